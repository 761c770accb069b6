# `trainsim report critical-batch --out OUT` writes the report; `--check --out OUT` passes on
# it, then fails after one CSV line is changed, naming the file and the line.
# -DTRAINSIM=<binary> -DOUT=<directory>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${TRAINSIM}" report critical-batch --out "${OUT}" RESULT_VARIABLE status
                OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "report --out failed (${status}):\n${stdout}${stderr}")
endif()
execute_process(COMMAND "${TRAINSIM}" report --check critical-batch --out "${OUT}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0 OR NOT stdout MATCHES "are what the code regenerates")
  message(FATAL_ERROR "--check on a fresh report failed (${status}):\n${stdout}${stderr}")
endif()
file(READ "${OUT}/trade-off.csv" csv)
string(REPLACE "\n1," "\n1.5," edited "${csv}")
if(edited STREQUAL csv)
  message(FATAL_ERROR "the test found no row starting with 1 to edit in:\n${csv}")
endif()
file(WRITE "${OUT}/trade-off.csv" "${edited}")
execute_process(COMMAND "${TRAINSIM}" report --check critical-batch --out "${OUT}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(status EQUAL 0)
  message(FATAL_ERROR "--check passed on an edited report:\n${stdout}")
endif()
if(NOT stdout MATCHES "trade-off.csv: line 5: committed '1.5,[^']*', regenerated '1,")
  message(FATAL_ERROR "--check does not name the file and line:\n${stdout}${stderr}")
endif()
if(NOT stderr MATCHES "committed reports differ from the code's: critical-batch")
  message(FATAL_ERROR "no error line:\n${stderr}")
endif()
message("${stdout}${stderr}")
