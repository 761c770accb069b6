# Runs trainsim with arguments that must fail and checks the exit status and the message.
# -DTRAINSIM=<binary> -DARGS=<;-list> -DSTATUS=<expected exit> -DEXPECT=<regex on stderr>
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${TRAINSIM}" ${ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE stdout
                ERROR_VARIABLE stderr)
if(NOT status EQUAL STATUS)
  message(FATAL_ERROR "expected exit ${STATUS}, got ${status}\nstdout:\n${stdout}\nstderr:\n${stderr}")
endif()
if(NOT stderr MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${stderr}")
endif()
message("${stderr}")
