# Runs `trainsim training-time SCENARIO ARGS --json/--csv/--plot OUT/NAME.*`; stdout must match
# MATCH; the JSON's best point must be the front's first and every point within MAX_GPUS; the
# CSV has its header and the SVG is one. Runs again on 1 thread (the first run uses one per
# core) and requires byte-identical JSON and SVG.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DARGS=<;-list> -DMAX_GPUS=<n> -DOUT=<dir>
# -DNAME=<file stem> -DMATCH=<regex>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(stem "${OUT}/${NAME}")
file(REMOVE "${stem}.json" "${stem}.csv" "${stem}.svg" "${stem}.1.json" "${stem}.1.svg")
execute_process(COMMAND "${TRAINSIM}" training-time "${SCENARIO}" ${ARGS} --max-gpus ${MAX_GPUS}
                        --json "${stem}.json" --csv "${stem}.csv" --plot "${stem}.svg"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "training-time ${ARGS} failed (${status}):\n${stdout}\n${stderr}")
endif()
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "stdout does not match '${MATCH}':\n${stdout}")
endif()
file(READ "${stem}.json" json)
string(JSON best GET "${json}" best description)
string(JSON best_days GET "${json}" best days)
string(JSON first GET "${json}" front 0 description)
string(JSON first_days GET "${json}" front 0 days)
if(NOT best STREQUAL first OR NOT best_days STREQUAL first_days)
  message(FATAL_ERROR "the best point (${best}, ${best_days} d) is not the front's first "
                      "(${first}, ${first_days} d)")
endif()
string(JSON n LENGTH "${json}" points)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON gpus GET "${json}" points ${i} gpus)
  if(gpus GREATER MAX_GPUS)
    message(FATAL_ERROR "point ${i} uses ${gpus} GPUs, above --max-gpus ${MAX_GPUS}")
  endif()
endforeach()
file(STRINGS "${stem}.csv" header LIMIT_COUNT 1)
if(NOT header MATCHES "^batch,batch_tokens,gpus,description,")
  message(FATAL_ERROR "${stem}.csv has no header: ${header}")
endif()
file(READ "${stem}.svg" svg)
if(NOT svg MATCHES "<svg.*Pareto front.*</svg>")
  message(FATAL_ERROR "${stem}.svg is not the front's plot")
endif()
execute_process(COMMAND "${TRAINSIM}" training-time "${SCENARIO}" ${ARGS} --max-gpus ${MAX_GPUS}
                        --threads 1 --json "${stem}.1.json" --plot "${stem}.1.svg"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout1 ERROR_VARIABLE stderr1)
file(READ "${stem}.1.json" json1)
file(READ "${stem}.1.svg" svg1)
if(NOT status EQUAL 0 OR NOT json STREQUAL json1 OR NOT svg STREQUAL svg1)
  message(FATAL_ERROR "--threads 1 gives another result (${status}):\n${stdout1}\n${stderr1}")
endif()
message("${stdout}\n${stderr}")
