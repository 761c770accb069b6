# A command run by `mpirun -np N` prints and writes byte for byte what it does as one process
# (issue 22: the processes share the work, process 0 writes).
# -DTRAINSIM=<binary> -DMPIEXEC=<mpirun> "-DMPI_FLAGS=<list>" -DPROCESSES=<N>
# "-DARGS=<command and arguments>" -DOUT=<dir> -DNAME=<file stem>
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
# Names of their own per process count: the -np 2 and -np 3 tests may run at once.
set(alone "${OUT}/${NAME}.np${PROCESSES}.alone.json")
set(shared "${OUT}/${NAME}.np${PROCESSES}.shared.json")
file(REMOVE "${alone}" "${shared}")
execute_process(COMMAND "${TRAINSIM}" ${ARGS} --json "${alone}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout_alone ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "one process failed (${status}): ${stderr}")
endif()
execute_process(COMMAND "${MPIEXEC}" -np ${PROCESSES} ${MPI_FLAGS} "${TRAINSIM}" ${ARGS}
                        --json "${shared}"
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout_shared ERROR_VARIABLE stderr)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "mpirun -np ${PROCESSES} failed (${status}): ${stderr}")
endif()
if(NOT stdout_alone STREQUAL stdout_shared)
  message(FATAL_ERROR "stdout differs between one process and ${PROCESSES}:\n--- one\n"
                      "${stdout_alone}\n--- ${PROCESSES}\n${stdout_shared}")
endif()
file(READ "${alone}" json_alone)
file(READ "${shared}" json_shared)
if(NOT json_alone STREQUAL json_shared)
  message(FATAL_ERROR "--json differs between one process and ${PROCESSES}")
endif()
string(LENGTH "${stdout_alone}" length)
message("${NAME}: ${PROCESSES} processes print and write what one does (${length} bytes)")
