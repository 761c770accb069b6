# Runs `trainsim critical-batch ARGS --json OUT/NAME.json`; stdout must match MATCH and the
# JSON value at KEY (a ;-list path) must match JSON_MATCH.
# -DTRAINSIM=<binary> -DARGS=<;-list> -DOUT=<dir> -DNAME=<file stem> -DMATCH=<regex>
# -DKEY=<;-list> -DJSON_MATCH=<regex>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(json_file "${OUT}/${NAME}.json")
file(REMOVE "${json_file}")
execute_process(COMMAND "${TRAINSIM}" critical-batch ${ARGS} --json "${json_file}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "critical-batch ${ARGS} failed (${status}):\n${stdout}\n${stderr}")
endif()
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "stdout does not match '${MATCH}':\n${stdout}")
endif()
file(READ "${json_file}" json)
string(JSON value GET "${json}" ${KEY})
if(NOT value MATCHES "${JSON_MATCH}")
  message(FATAL_ERROR "JSON ${KEY} = ${value} does not match '${JSON_MATCH}'")
endif()
message("${stdout}")
