# Runs `trainsim simulate` on one scenario and checks its outputs.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DOUT=<dir> [-DFULL=ON] [-DMATCH=<regex>]
# Checks: exit status 0; the summary names the iteration time (or matches MATCH); the JSON
# has the specified top-level keys with a positive iteration time; the trace is valid JSON
# with events; a second run writes byte-identical JSON and trace (determinism).
cmake_minimum_required(VERSION 3.25)
get_filename_component(name "${SCENARIO}" NAME_WE)
file(MAKE_DIRECTORY "${OUT}")
set(extra "")
if(FULL)
  set(extra "--full")
  set(name "${name}-full")
endif()

foreach(run 1 2)
  execute_process(
    COMMAND "${TRAINSIM}" simulate "${SCENARIO}" ${extra} --json "${OUT}/${name}.${run}.json"
            --trace "${OUT}/${name}.${run}.trace.json"
    RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "trainsim simulate ${SCENARIO} failed (${status}):\n${stdout}\n${stderr}")
  endif()
endforeach()
message("${stdout}")
if(NOT MATCH)
  set(MATCH "iteration time")
endif()
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "summary does not match '${MATCH}':\n${stdout}")
endif()

file(READ "${OUT}/${name}.1.json" json)
foreach(key iteration_time_s tokens_per_s tflops_per_gpu mfu hfu breakdown_s memory)
  string(JSON value ERROR_VARIABLE err GET "${json}" ${key})
  if(err)
    message(FATAL_ERROR "JSON lacks '${key}': ${err}")
  endif()
endforeach()
string(JSON peak GET "${json}" memory peak_bytes)
string(JSON fits GET "${json}" memory fits)
string(JSON seconds GET "${json}" iteration_time_s)
if(NOT seconds GREATER 0)
  message(FATAL_ERROR "iteration time is not positive: ${seconds}")
endif()
if(NOT peak GREATER 0)
  message(FATAL_ERROR "peak memory is not positive: ${peak}")
endif()

file(READ "${OUT}/${name}.1.trace.json" trace)
string(JSON events LENGTH "${trace}" traceEvents)
if(events LESS 10)
  message(FATAL_ERROR "trace has only ${events} events")
endif()

foreach(suffix json trace.json)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}/${name}.1.${suffix}"
                          "${OUT}/${name}.2.${suffix}" RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "two runs wrote different ${suffix} files: not deterministic")
  endif()
endforeach()
