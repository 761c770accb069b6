#pragma once
// A progress bar on stderr for long commands, drawn only when stderr is a terminal (so logs
// and tests see nothing). One line, redrawn in place: "estimate [#####.....] 120/480".

#include <cstddef>
#include <string>
#include <string_view>

namespace trainsim::cli {

class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();  ///< ends the line if one was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Redraws for `done` of `total` items of `phase` (at most about 50 redraws per phase).
  void update(std::string_view phase, std::size_t done, std::size_t total);

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string phase_;
  std::size_t last_cells_ = static_cast<std::size_t>(-1);
};

}  // namespace trainsim::cli
