#pragma once
// Wall time per phase of a long search (plan, training-time), for the one line they print on
// stderr ("bound 4.8 s, estimate 7.9 s, …"): where a search's time goes, without a profiler.
// Each interval between two progress calls goes to the later call's phase; a call before a
// phase's first item (done = 0) closes the work between phases, charged to "other".

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace trainsim::cli {

class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  PhaseClock();

  /// Charges the time since the previous call (or the start). Safe from several threads.
  void tick(std::string_view phase, std::size_t done);
  /// Seconds since the start.
  double elapsed_s() const;
  /// "phase s, …" by phase name, one decimal.
  std::string summary() const;

 private:
  mutable std::mutex mutex_;
  Clock::time_point start_;
  Clock::time_point last_;
  std::map<std::string, double, std::less<>> seconds_;
};

}  // namespace trainsim::cli
