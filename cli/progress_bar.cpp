#include "cli/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace trainsim::cli {
namespace {
constexpr std::size_t kCells = 40;
}

ProgressBar::ProgressBar() : enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) fmt::print(stderr, "\n");
}

void ProgressBar::update(std::string_view phase, std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const std::size_t cells = done * kCells / total;
  if (phase == phase_ && cells == last_cells_ && done != total) return;
  if (phase != phase_ && drawn_) fmt::print(stderr, "\n");
  phase_ = std::string(phase);
  last_cells_ = cells;
  drawn_ = true;
  fmt::print(stderr, "\r{:<9}[{}{}] {}/{}", phase, std::string(cells, '#'),
             std::string(kCells - cells, '.'), done, total);
  std::fflush(stderr);
}

}  // namespace trainsim::cli
