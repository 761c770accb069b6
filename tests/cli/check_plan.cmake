# Runs `trainsim plan SCENARIO ARGS --json OUT/NAME.json --csv OUT/NAME.csv`; stdout must match
# MATCH, the JSON name a best layout and the CSV have its header. With SAME_THREADS, runs again
# on 1 thread (the first run uses one per core) and requires the same JSON. With MIN_RATIO_PERCENT, the
# best layout's model TFLOP/s per GPU must reach that percentage of the reference's (the
# scenario's own layout); both are printed.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DARGS=<;-list> -DOUT=<dir> -DNAME=<file stem>
# -DMATCH=<regex> [-DSAME_THREADS=1] [-DMIN_RATIO_PERCENT=<integer>] [-DCSV_MATCH=<regex>: a
# line of the CSV must match it]
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(json_file "${OUT}/${NAME}.json")
set(csv_file "${OUT}/${NAME}.csv")
file(REMOVE "${json_file}" "${csv_file}")
execute_process(COMMAND "${TRAINSIM}" plan "${SCENARIO}" ${ARGS} --json "${json_file}"
                        --csv "${csv_file}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "plan ${ARGS} failed (${status}):\n${stdout}\n${stderr}")
endif()
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "stdout does not match '${MATCH}':\n${stdout}")
endif()
file(READ "${json_file}" json)
string(JSON best GET "${json}" best 0 description)
file(STRINGS "${csv_file}" header LIMIT_COUNT 1)
if(NOT header MATCHES "^estimate_rank,tensor_kind,")
  message(FATAL_ERROR "${csv_file} has no header: ${header}")
endif()
if(CSV_MATCH)
  file(STRINGS "${csv_file}" matching REGEX "${CSV_MATCH}")
  if(NOT matching)
    message(FATAL_ERROR "no line of ${csv_file} matches '${CSV_MATCH}'")
  endif()
endif()
if(SAME_THREADS)
  execute_process(COMMAND "${TRAINSIM}" plan "${SCENARIO}" ${ARGS} --threads 1
                          --json "${json_file}.1"
                  RESULT_VARIABLE status OUTPUT_VARIABLE stdout1 ERROR_VARIABLE stderr1)
  file(READ "${json_file}.1" json1)
  if(NOT status EQUAL 0 OR NOT json STREQUAL json1)
    message(FATAL_ERROR "--threads 1 gives another result (${status}):\n${stdout1}\n${stderr1}")
  endif()
endif()
if(MIN_RATIO_PERCENT)
  string(JSON ours GET "${json}" best 0 model_tflops_per_gpu)
  string(JSON ref GET "${json}" reference model_tflops_per_gpu)
  # CMake's math() is integer: compare tenths of TFLOP/s.
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]).*" "\\1\\2" ours10 "${ours}")
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]).*" "\\1\\2" ref10 "${ref}")
  math(EXPR need "${ref10} * ${MIN_RATIO_PERCENT} / 100")
  message("best layout ${best}: ${ours} TFLOP/s per GPU; scenario's layout: ${ref}")
  if(ours10 LESS need)
    message(FATAL_ERROR "best ${ours} TFLOP/s is below ${MIN_RATIO_PERCENT} % of ${ref}")
  endif()
endif()
message("${stdout}\n${stderr}")
