# Runs `trainsim validate-run MEASURED SCENARIO` and checks it succeeds with the per-class,
# per-layer and iteration tables. -DTRAINSIM=<binary> -DMEASURED=<json> -DSCENARIO=<yaml>
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${TRAINSIM}" validate-run "${MEASURED}" "${SCENARIO}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "validate-run failed (${status}):\n${stdout}\n${stderr}")
endif()
foreach(expected "op class" "layer 0" "outside layers" "iteration \\(compute only\\)"
                 "were skipped in the measurement")
  if(NOT stdout MATCHES "${expected}")
    message(FATAL_ERROR "validate-run output lacks '${expected}':\n${stdout}")
  endif()
endforeach()
message("${stdout}")
