# A command that fails alike on every process of `mpirun -np N` exits non-zero with its error
# printed once (process 0's), not once per process, and without hanging.
# -DTRAINSIM=<binary> -DMPIEXEC=<mpirun> "-DMPI_FLAGS=<list>" -DPROCESSES=<N>
# "-DARGS=<command and arguments>" -DEXPECT=<text of the error>
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${MPIEXEC}" -np ${PROCESSES} ${MPI_FLAGS} "${TRAINSIM}" ${ARGS}
                RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
                TIMEOUT 60)
if(status EQUAL 0)
  message(FATAL_ERROR "mpirun -np ${PROCESSES} succeeded; expected the error '${EXPECT}'")
endif()
string(REPLACE ";" "," messages "${stderr}")  # a ';' would split the matches
string(REGEX MATCHALL "trainsim: error: [^\n]*${EXPECT}" found "${messages}")
list(LENGTH found times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "the error was printed ${times} times (expected once):\n${stderr}")
endif()
message("the error printed once by ${PROCESSES} processes; exit status ${status}")
