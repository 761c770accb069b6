#pragma once
// A progress bar on stderr for long commands, drawn only when stderr is a terminal (so logs,
// pipes and tests see nothing) and only once the command has run for a second (short commands
// stay silent). One line per phase, redrawn in place:
//   "replay    [##########..............................] 2.6M/10.6M  ETA 4s"
// The ETA extrapolates the phase's rate so far: elapsed × (total − done) / done.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "sim/progress.hpp"

namespace trainsim::cli {

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  /// Draws on stderr when stderr is a terminal.
  ProgressBar();
  /// Draws on `out` when `enabled`, reading the time from `now` (tests).
  ProgressBar(std::FILE* out, bool enabled, Now now);
  ~ProgressBar();  ///< ends the line if one was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Redraws for `done` of `total` items of `phase`: when the bar moves a cell, the phase
  /// changes or a second has passed (the ETA), at most. Safe from several threads.
  void update(std::string_view phase, std::size_t done, std::size_t total);

  /// Erases the drawn line, so the command's own output starts on a clean line; the next
  /// update() draws again.
  void clear();

  /// update() as the library's callback; the bar must outlive it.
  sim::Progress callback();

  /// The line drawn for `done` of `total` items of `phase` after `elapsed` in it (tests).
  static std::string line(std::string_view phase, std::size_t done, std::size_t total,
                          std::chrono::duration<double> elapsed);

 private:
  std::FILE* out_;
  bool enabled_;
  Now now_;
  Clock::time_point created_;
  std::mutex mutex_;
  bool drawn_ = false;
  std::string phase_;
  Clock::time_point phase_start_;
  Clock::time_point last_draw_;
  std::size_t last_cells_ = static_cast<std::size_t>(-1);
};

}  // namespace trainsim::cli
