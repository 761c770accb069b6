#include "cli/phase_clock.hpp"

#include <fmt/format.h>

namespace trainsim::cli {

PhaseClock::PhaseClock() : start_(Clock::now()), last_(start_) {}

void PhaseClock::tick(std::string_view phase, std::size_t done) {
  const std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  const std::string_view to = done > 0 ? phase : std::string_view("other");
  auto it = seconds_.find(to);
  if (it == seconds_.end()) it = seconds_.emplace(std::string(to), 0.0).first;
  it->second += std::chrono::duration<double>(now - last_).count();
  last_ = now;
}

double PhaseClock::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

std::string PhaseClock::summary() const {
  const std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [phase, s] : seconds_)
    out += fmt::format("{}{} {:.1f} s", out.empty() ? "" : ", ", phase, s);
  return out;
}

}  // namespace trainsim::cli
