# `trainsim exec SCENARIO --backend cuda --time --json OUT` then validate-run on what it
# wrote. Without a GPU the exec must fail saying why; the test prints "skipped: ..." and
# ctest reports it skipped (SKIP_REGULAR_EXPRESSION).
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DOUT=<dir>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(json "${OUT}/cuda-measured.json")
execute_process(COMMAND "${TRAINSIM}" exec "${SCENARIO}" --backend cuda --time --warmup 1
                        --repetitions 2 --json "${json}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  if(stderr MATCHES "needs a CUDA GPU and this machine has none")
    message("skipped: ${stderr}")
    return()
  endif()
  message(FATAL_ERROR "exec --backend cuda failed (${status}):\n${stdout}\n${stderr}")
endif()
message("${stdout}")
set(MEASURED "${json}")
include("${CMAKE_CURRENT_LIST_DIR}/check_validate_run.cmake")
