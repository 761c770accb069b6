# Runs `trainsim isoefficiency SCENARIO ARGS --json OUT/NAME.json --plot OUT/NAME.svg`; stdout
# must match MATCH, the fitted exponent of the first scheme lie in [K_MIN, K_MAX], and the
# plot be an SVG document.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DARGS=<;-list> -DOUT=<dir> -DNAME=<file stem>
# -DMATCH=<regex> -DK_MIN=<number> -DK_MAX=<number>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(json_file "${OUT}/${NAME}.json")
set(svg_file "${OUT}/${NAME}.svg")
file(REMOVE "${json_file}" "${svg_file}")
execute_process(COMMAND "${TRAINSIM}" isoefficiency "${SCENARIO}" ${ARGS} --json "${json_file}"
                        --plot "${svg_file}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "isoefficiency ${ARGS} failed (${status}):\n${stdout}\n${stderr}")
endif()
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "stdout does not match '${MATCH}':\n${stdout}")
endif()
file(READ "${json_file}" json)
string(JSON k GET "${json}" schemes 0 fit exponent)
# CMake compares numbers as integers or decimals: compare k·100 rounded through math().
string(REGEX REPLACE "^([0-9]+)\\.([0-9][0-9]).*" "\\1\\2" k100 "${k}")
math(EXPR lo "${K_MIN} * 100")
math(EXPR hi "${K_MAX} * 100")
if(k100 LESS lo OR k100 GREATER hi)
  message(FATAL_ERROR "fitted exponent ${k} outside [${K_MIN}, ${K_MAX}]:\n${stdout}")
endif()
file(READ "${svg_file}" svg LIMIT 200)
if(NOT svg MATCHES "<svg")
  message(FATAL_ERROR "${svg_file} is not an SVG document")
endif()
message("${stdout}")
