#pragma once
// The processes one trainsim command runs on: this process alone, or, started by mpirun
// (`mpirun -np N build/bin/trainsim plan …`), the processes of an MPI job that share the
// command's sweep (models/spread.hpp). Process 0 prints and writes every output; the others
// compute their share and print nothing, so the output is the one-process output, byte for byte.

#include <cstdio>
#include <memory>
#include <string_view>

#include "models/process_group.hpp"

namespace trainsim::cli {

class Job {
 public:
  Job();
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  /// The job's processes: under an MPI launcher, its world, started on the first call (main
  /// calls it before every command but `exec`, whose cuda backend starts MPI itself); else
  /// null. From then on, processes other than 0 print nothing (stdout and stderr to
  /// /dev/null). Throws Infeasible under a launcher when trainsim was built without MPI.
  const ProcessGroup* group();
  /// Whether this process prints and writes files: the only process, or process 0.
  bool writes() const;
  /// Reports an error of this process and returns the exit code: alone, or when every
  /// process of the job failed alike (they meet within a few seconds), process 0 prints it;
  /// otherwise this process prints it, naming itself, and ends the job (MPI_Abort), since
  /// another may be waiting for it in a collective.
  int fail(int code, std::string_view kind, std::string_view what) const;

 private:
  struct Mpi;
  std::unique_ptr<Mpi> mpi_;
  std::FILE* errors_ = stderr;
};

}  // namespace trainsim::cli
