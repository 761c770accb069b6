#include "cli/job.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "models/errors.hpp"

#ifdef TRAINSIM_WITH_MPI
#include "mpi/mpi_process_group.hpp"
#include "mpi/mpi_world.hpp"
#endif

namespace trainsim::cli {
namespace {

// Whether a launcher started this process as one of several (the variables mpirun, srun and
// PMIx set).
bool under_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

// How long a failed process waits for the others to fail too before it ends the job: the same
// inputs fail on every process within moments of each other (an item's error reaches all at
// once); a process still computing after this is not going to.
[[maybe_unused]] constexpr std::chrono::seconds kSharedErrorWait{10};

}  // namespace

#ifdef TRAINSIM_WITH_MPI
struct Job::Mpi {
  mpi::MpiWorld world{nullptr, nullptr};
  mpi::MpiProcessGroup group{world};
};
#else
struct Job::Mpi {};
#endif

Job::Job() = default;

Job::~Job() {
  if (errors_ != stderr) std::fclose(errors_);
}

const ProcessGroup* Job::group() {
#ifdef TRAINSIM_WITH_MPI
  if (mpi_) return &mpi_->group;
  if (!under_launcher()) return nullptr;
  mpi_ = std::make_unique<Mpi>();
  if (mpi_->group.rank() != 0) {
    // Errors still reach the user from this process (a copy of its stderr); the rest is
    // process 0's to print.
    std::fflush(stdout);
    std::fflush(stderr);
    if (std::FILE* copy = fdopen(dup(STDERR_FILENO), "w")) errors_ = copy;
    if (std::freopen("/dev/null", "w", stdout) == nullptr ||
        std::freopen("/dev/null", "w", stderr) == nullptr) {
      throw std::runtime_error("process could not send its output to /dev/null");
    }
  }
  return &mpi_->group;
#else
  if (under_launcher()) {
    throw Infeasible(
        "started by an MPI launcher, but this trainsim was built without MPI (no MPI found "
        "when it was configured): every process would compute the whole sweep; install "
        "libopenmpi-dev (scripts/install-deps) and rebuild, or run one process");
  }
  return nullptr;
#endif
}

bool Job::writes() const {
#ifdef TRAINSIM_WITH_MPI
  return !mpi_ || mpi_->group.rank() == 0;
#else
  return true;
#endif
}

int Job::fail(int code, std::string_view kind, std::string_view what) const {
#ifdef TRAINSIM_WITH_MPI
  if (mpi_ && mpi_->group.size() > 1 && !mpi_->group.all_failed_within(kSharedErrorWait)) {
    fmt::print(errors_, "trainsim: process {} of {}: {}: {}\n", mpi_->group.rank(),
               mpi_->group.size(), kind, what);
    std::fflush(errors_);
    mpi_->world.abort(code);
  }
#endif
  if (writes()) fmt::print(errors_, "trainsim: {}: {}\n", kind, what);
  return code;
}

}  // namespace trainsim::cli
