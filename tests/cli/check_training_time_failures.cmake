# `trainsim training-time` on a scenario whose profile has a reliability: section.
# Default: runs it with failures (--json/--csv/--plot OUT/NAME.*); stdout must match MATCH; the
# JSON must carry the failures (profile, the failure-aware best = the front's first, every
# point's expected wall >= its work and p90 >= p50), the CSV its failure columns, the SVG the
# failure-aware front; again on 1 thread, the same JSON and SVG byte for byte.
# With -DNO_FAILURES=1: runs it with and without --no-failures; the --no-failures stdout must
# be the failure-aware stdout's beginning (the failure-free answer unchanged), with nothing of
# the failures in its text or JSON.
# -DTRAINSIM=<binary> -DSCENARIO=<yaml> -DARGS=<;-list> -DOUT=<dir> -DNAME=<file stem>
# -DMATCH=<regex> [-DNO_FAILURES=1]
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${OUT}")
set(stem "${OUT}/${NAME}")
file(REMOVE "${stem}.json" "${stem}.csv" "${stem}.svg" "${stem}.1.json" "${stem}.1.svg"
     "${stem}.free.json")

function(run_training_time out_var)
  execute_process(COMMAND "${TRAINSIM}" training-time "${SCENARIO}" ${ARGS} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "training-time ${ARGS} ${ARGN} failed (${status}):\n${stdout}\n${stderr}")
  endif()
  set(${out_var} "${stdout}" PARENT_SCOPE)
endfunction()

if(NO_FAILURES)
  run_training_time(with)
  run_training_time(without --no-failures --json "${stem}.free.json")
  string(LENGTH "${without}" n)
  string(SUBSTRING "${with}" 0 ${n} head)
  if(NOT head STREQUAL without)
    message(FATAL_ERROR "--no-failures is not the failure-aware output's beginning:\n"
                        "--no-failures:\n${without}\nwith failures:\n${with}")
  endif()
  string(SUBSTRING "${with}" ${n} -1 rest)
  if(NOT rest MATCHES "^\nwith failures, from ")
    message(FATAL_ERROR "the failure-aware part does not follow the failure-free one:\n${rest}")
  endif()
  if(without MATCHES "with failures|Monte Carlo")
    message(FATAL_ERROR "--no-failures still prints failures:\n${without}")
  endif()
  file(READ "${stem}.free.json" json)
  string(JSON has ERROR_VARIABLE missing GET "${json}" failures)
  if(NOT missing)
    message(FATAL_ERROR "--no-failures JSON has a failures key")
  endif()
  message("${without}")
  return()
endif()

run_training_time(stdout --json "${stem}.json" --csv "${stem}.csv" --plot "${stem}.svg")
if(NOT stdout MATCHES "${MATCH}")
  message(FATAL_ERROR "stdout does not match '${MATCH}':\n${stdout}")
endif()
file(READ "${stem}.json" json)
string(JSON profile GET "${json}" failures profile)
if(NOT profile STREQUAL "dgx-h100")
  message(FATAL_ERROR "failures.profile is '${profile}', not dgx-h100")
endif()
string(JSON best GET "${json}" failures best description)
string(JSON best_p50 GET "${json}" failures best failures monte_carlo p50_days)
string(JSON first GET "${json}" failures front 0 description)
string(JSON first_p50 GET "${json}" failures front 0 failures monte_carlo p50_days)
if(NOT best STREQUAL first OR NOT best_p50 STREQUAL first_p50)
  message(FATAL_ERROR "the failure-aware best (${best}, ${best_p50} d) is not the front's "
                      "first (${first}, ${first_p50} d)")
endif()
string(JSON n LENGTH "${json}" points)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON work GET "${json}" points ${i} failures work_s)
  string(JSON wall GET "${json}" points ${i} failures expected_wall_s)
  string(JSON p50 GET "${json}" points ${i} failures monte_carlo p50_days)
  string(JSON p90 GET "${json}" points ${i} failures monte_carlo p90_days)
  # CMake compares numbers as doubles in if(... LESS ...).
  if(wall LESS work OR p90 LESS p50)
    message(FATAL_ERROR "point ${i}: expected wall ${wall} s below its work ${work} s, or "
                        "p90 ${p90} below p50 ${p50}")
  endif()
endforeach()
file(STRINGS "${stem}.csv" header LIMIT_COUNT 1)
if(NOT header MATCHES ",on_front,expected_days,p50_days,p90_days,interval_steps,effective,")
  message(FATAL_ERROR "${stem}.csv has no failure columns: ${header}")
endif()
file(READ "${stem}.svg" svg)
if(NOT svg MATCHES "<svg.*with dgx-h100's failures: p50, bar to p90.*</svg>")
  message(FATAL_ERROR "${stem}.svg has no failure-aware front")
endif()
run_training_time(stdout1 --threads 1 --json "${stem}.1.json" --plot "${stem}.1.svg")
file(READ "${stem}.1.json" json1)
file(READ "${stem}.1.svg" svg1)
if(NOT json STREQUAL json1 OR NOT svg STREQUAL svg1)
  message(FATAL_ERROR "--threads 1 gives another result:\n${stdout1}")
endif()
message("${stdout}")
