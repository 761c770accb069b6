# End-to-end test of `trainsim fit`: writes the synthetic raw CSV, fits it against
# selene-a100-80gb, checks the report, that a second run writes the same bytes, and that the
# written profile loads and simulates (a copy of SCENARIO pointed at it).
# -DTRAINSIM=<binary> -DWRITE_RAW=<generator> -DSCENARIO=<yaml> -DOUT=<dir>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${WRITE_RAW}" "${OUT}/synthetic-raw.csv" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "write_synthetic_raw failed (${status})")
endif()
foreach(run 1 2)
  file(MAKE_DIRECTORY "${OUT}/run${run}")
  execute_process(
    COMMAND "${TRAINSIM}" fit "${OUT}/synthetic-raw.csv" --base selene-a100-80gb
            -o "${OUT}/run${run}/fitted-selene.yaml" --residuals "${OUT}/run${run}/residuals.csv"
    RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "trainsim fit failed (${status}):\n${stdout}\n${stderr}")
  endif()
endforeach()
message("${stdout}")
foreach(what "gemm" "memory" "collectives intra_node" "collectives inter_node" "p2p"
        "interference" "attention" "  tf32" "  8 GPUs")
  if(NOT stdout MATCHES "  ${what} +[0-9]+ +[0-9]+ +[0-9.]+% +[0-9.]+%")
    message(FATAL_ERROR "no '${what}' row with held-out errors in the report")
  endif()
endforeach()
file(READ "${OUT}/run1/fitted-selene.yaml" first)
file(READ "${OUT}/run2/fitted-selene.yaml" second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "two fits of the same rows wrote different profiles")
endif()
# --residuals: one line per verified GEMM row of the raw file (unverified rows are not fitted), the same bytes twice, held-out rows marked.
file(READ "${OUT}/run1/residuals.csv" first)
file(READ "${OUT}/run2/residuals.csv" second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "two fits of the same rows wrote different residuals")
endif()
file(STRINGS "${OUT}/synthetic-raw.csv" raw_gemm REGEX "^gemm,.*,yes$")
file(STRINGS "${OUT}/run1/residuals.csv" residual_gemm REGEX "^gemm,[0-9]+,gemm,")
list(LENGTH raw_gemm raw_count)
list(LENGTH residual_gemm residual_count)
if(NOT raw_count EQUAL residual_count OR raw_count EQUAL 0)
  message(FATAL_ERROR "${residual_count} GEMM residuals for ${raw_count} GEMM rows")
endif()
if(NOT first MATCHES "^fit,line,benchmark,dtype,m,n,k,batch,algorithm,measured_s,predicted_s,error,held_out\n"
   OR NOT first MATCHES ",yes\n" OR NOT first MATCHES ",no\n")
  message(FATAL_ERROR "residuals: unexpected header or no held-out marks:\n${first}")
endif()
file(READ "${SCENARIO}" scenario)
string(REGEX REPLACE "hardware: [^\n]*" "hardware: ${OUT}/run1/fitted-selene.yaml" scenario
       "${scenario}")
file(WRITE "${OUT}/on-fitted-profile.yaml" "${scenario}")
execute_process(COMMAND "${TRAINSIM}" simulate "${OUT}/on-fitted-profile.yaml"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0 OR NOT stdout MATCHES "iteration time")
  message(FATAL_ERROR "simulating on the fitted profile failed (${status}):\n${stdout}\n${stderr}")
endif()
