#include "cli/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

namespace trainsim::cli {
namespace {

constexpr std::size_t kCells = 40;
// Commands shorter than this never draw; a bar that flashes for a moment only distracts.
constexpr std::chrono::seconds kQuietStart{1};
// The ETA is redrawn at most this often when the bar itself does not move.
constexpr std::chrono::seconds kRedraw{1};

// 950, 12.3k, 10.6M: counts of ops reach tens of millions.
std::string count_text(std::size_t n) {
  if (n < 10'000) return fmt::format("{}", n);
  if (n < 1'000'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
}

// 7s, 2m05s, 1h02m.
std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

ProgressBar::ProgressBar()
    : ProgressBar(stderr, isatty(STDERR_FILENO) == 1, [] { return Clock::now(); }) {}

ProgressBar::ProgressBar(std::FILE* out, bool enabled, Now now)
    : out_(out), enabled_(enabled), now_(std::move(now)), created_(now_()) {}

ProgressBar::~ProgressBar() {
  if (drawn_) fmt::print(out_, "\n");
}

std::string ProgressBar::line(std::string_view phase, std::size_t done, std::size_t total,
                              std::chrono::duration<double> elapsed) {
  const std::size_t cells = total == 0 ? kCells : std::min(done, total) * kCells / total;
  std::string text =
      fmt::format("{:<9} [{}{}] {}/{}", phase, std::string(cells, '#'),
                  std::string(kCells - cells, '.'), count_text(done), count_text(total));
  if (done >= total) {
    text += fmt::format("  in {}", duration_text(elapsed.count()));
  } else if (done > 0) {
    const double left =
        elapsed.count() * static_cast<double>(total - done) / static_cast<double>(done);
    text += fmt::format("  ETA {}", duration_text(left));
  }
  return text;
}

void ProgressBar::update(std::string_view phase, std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const std::lock_guard lock(mutex_);
  const Clock::time_point now = now_();
  const bool new_phase = phase != phase_;
  if (new_phase) {
    if (drawn_) fmt::print(out_, "\n");
    drawn_ = false;
    phase_ = std::string(phase);
    phase_start_ = now;
    last_cells_ = static_cast<std::size_t>(-1);
  }
  if (now - created_ < kQuietStart) return;
  const std::size_t cells = std::min(done, total) * kCells / total;
  if (!new_phase && cells == last_cells_ && done < total && now - last_draw_ < kRedraw) return;
  last_cells_ = cells;
  last_draw_ = now;
  drawn_ = true;
  // Padded so that a shorter ETA overwrites the end of a longer one.
  fmt::print(out_, "\r{:<80}", line(phase, done, total, now - phase_start_));
  std::fflush(out_);
}

void ProgressBar::clear() {
  const std::lock_guard lock(mutex_);
  if (!drawn_) return;
  fmt::print(out_, "\r{:<80}\r", "");
  std::fflush(out_);
  drawn_ = false;
  last_cells_ = static_cast<std::size_t>(-1);
}

sim::Progress ProgressBar::callback() {
  return [this](std::string_view phase, std::size_t done, std::size_t total) {
    update(phase, done, total);
  };
}

}  // namespace trainsim::cli
