// The command line's progress bar (cli/progress_bar.hpp): silent when not enabled (stderr not a
// terminal) and during the first second, the ETA extrapolated from the phase's rate, a new
// phase on a new line, clear() erasing the line.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/progress_bar.hpp"

using trainsim::cli::ProgressBar;
using namespace std::chrono_literals;

namespace {

// A bar drawing into a temporary file, on a clock the test moves.
struct Harness {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{std::tmpfile(), &std::fclose};
  ProgressBar::Clock::time_point now{};
  std::unique_ptr<ProgressBar> bar;

  explicit Harness(bool enabled) {
    REQUIRE(file);
    bar = std::make_unique<ProgressBar>(file.get(), enabled, [this] { return now; });
  }

  std::string text() {
    std::fflush(file.get());
    std::rewind(file.get());
    std::string out;
    for (int c = std::fgetc(file.get()); c != EOF; c = std::fgetc(file.get()))
      out += static_cast<char>(c);
    return out;
  }
};

}  // namespace

TEST_CASE("progress line: counts, the bar, the ETA from the rate so far, the time when done") {
  CHECK(ProgressBar::line("replay", 25, 100, 10s) ==
        "replay    [##########..............................] 25/100  ETA 30s");
  CHECK(ProgressBar::line("replay", 0, 100, 10s) ==
        "replay    [........................................] 0/100");
  CHECK(ProgressBar::line("fit", 40, 160, 100s) ==
        "fit       [##########..............................] 40/160  ETA 5m00s");
  CHECK(ProgressBar::line("replay", 2'600'000, 10'600'000, 2s).ends_with("2.6M/10.6M  ETA 6s"));
  CHECK(ProgressBar::line("estimate", 12'345, 54'348, 3600s).ends_with("12.3k/54.3k  ETA 3h24m"));
  CHECK(ProgressBar::line("validate", 9, 9, 125s).ends_with("9/9  in 2m05s"));
}

TEST_CASE("progress bar: nothing when not enabled, nothing in the first second") {
  Harness off(false);
  off.now += 5s;
  off.bar->update("replay", 1, 2);
  off.bar.reset();
  CHECK(off.text().empty());

  Harness quiet(true);
  quiet.now += 500ms;
  quiet.bar->update("replay", 1, 2);
  quiet.bar.reset();
  CHECK(quiet.text().empty());
}

TEST_CASE("progress bar: redrawn in place, a new phase on a new line, clear() erases") {
  Harness h(true);
  h.bar->update("estimate", 0, 10);
  h.now += 2s;
  h.bar->update("estimate", 5, 10);
  h.bar->update("estimate", 5, 10);  // nothing moved, within a second: no redraw
  std::string text = h.text();
  CHECK(text.find("\rest") == 0);
  CHECK(text.find("5/10  ETA 2s") != std::string::npos);
  CHECK(text.find('\r', 1) == std::string::npos);
  h.bar->update("replay", 0, 3);
  text = h.text();
  CHECK(text.find("\n\rreplay") != std::string::npos);
  h.bar->clear();
  text = h.text();
  CHECK(text.ends_with(std::string("\r") + std::string(80, ' ') + "\r"));
  h.bar.reset();  // cleared: no line left to end
  CHECK_FALSE(h.text().ends_with("\n"));
}
