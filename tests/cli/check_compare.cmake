# Runs `trainsim compare` on a tiny scenario and checks the table and the JSON.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DOUT=<dir>
# Checks: exit status 0; a row per scheme with its layout; the infeasible scheme says why; the
# JSON (--json FILE, and --json - on stdout) has the documented keys; two runs write the same
# bytes (determinism).
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
foreach(run 1 2)
  execute_process(
    COMMAND "${TRAINSIM}" compare "${SCENARIO}" --tensor 1d,2d,2.5d --json "${OUT}/compare.${run}.json"
    RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "trainsim compare failed (${status}):\n${stdout}\n${stderr}")
  endif()
endforeach()
message("${stdout}")
foreach(pattern "1d +t=4 " "2d +q=2 " "2.5d +- +cannot run: .*--depth"
        "note: 2d: sequence parallelism off")
  if(NOT stdout MATCHES "${pattern}")
    message(FATAL_ERROR "compare output does not match '${pattern}':\n${stdout}")
  endif()
endforeach()

file(READ "${OUT}/compare.1.json" json)
foreach(key scenario hardware gpus global_batch baseline schemes)
  string(JSON value ERROR_VARIABLE err GET "${json}" ${key})
  if(err)
    message(FATAL_ERROR "JSON lacks '${key}': ${err}")
  endif()
endforeach()
string(JSON rows LENGTH "${json}" schemes)
if(NOT rows EQUAL 3)
  message(FATAL_ERROR "expected 3 schemes, got ${rows}")
endif()
foreach(key scheme layout step_time_s inference_time_s max_global_batch step_speedup
        inference_speedup max_batch_ratio)
  string(JSON value ERROR_VARIABLE err GET "${json}" schemes 1 ${key})
  if(err)
    message(FATAL_ERROR "JSON scheme lacks '${key}': ${err}")
  endif()
endforeach()
string(JSON step GET "${json}" schemes 1 step_time_s)
string(JSON inference GET "${json}" schemes 1 inference_time_s)
if(NOT inference LESS step)
  message(FATAL_ERROR "inference ${inference} s is not below the step time ${step} s")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}/compare.1.json"
                        "${OUT}/compare.2.json" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "two runs wrote different JSON: not deterministic")
endif()

execute_process(
  COMMAND "${TRAINSIM}" compare "${SCENARIO}" --tensor 1d,2d --no-max-batch --json -
  RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "trainsim compare --json - failed (${status}):\n${stdout}\n${stderr}")
endif()
string(JSON baseline ERROR_VARIABLE err GET "${stdout}" baseline)
if(err OR NOT baseline STREQUAL "1d")
  message(FATAL_ERROR "--json - did not print the JSON on stdout: ${err}\n${stdout}")
endif()
