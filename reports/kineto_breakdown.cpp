#include "reports/kineto_breakdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "reports/error_statistics.hpp"

namespace trainsim::reports {

namespace {

using inputs::KernelFamily;
using inputs::kKernelFamilyCount;

KernelFamily family_at(int i) {
  return static_cast<KernelFamily>(i);
}

// Index of the step whose [start, start + duration) holds t; -1 when none.
int step_holding(const std::vector<inputs::ProfilerStep>& steps, Time t) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (t >= steps[i].start && t < steps[i].start + steps[i].duration) return static_cast<int>(i);
  }
  return -1;
}

// Union length of intervals sorted by start.
double union_seconds(std::vector<std::pair<Time, Time>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  Time total = Time::zero();
  Time open_start = Time::zero();
  Time open_end = Time::zero();
  bool open = false;
  for (const auto& [start, end] : intervals) {
    if (open && start <= open_end) {
      open_end = std::max(open_end, end);
      continue;
    }
    if (open) total += open_end - open_start;
    open_start = start;
    open_end = end;
    open = true;
  }
  if (open) total += open_end - open_start;
  return total.seconds();
}

}  // namespace

double KinetoBreakdown::median_wall_s() const {
  std::vector<double> walls;
  for (const KinetoStep& s : steps)
    walls.push_back(s.wall_s);
  return walls.empty() ? 0.0 : median(walls);
}

double KinetoBreakdown::median_step_s() const {
  std::vector<double> times;
  for (const KinetoStep& s : steps)
    times.push_back(s.time_s());
  return times.empty() ? 0.0 : median(times);
}

double KinetoBreakdown::mean_family_s(KernelFamily f) const {
  if (steps.empty()) return 0.0;
  double sum = 0.0;
  for (const KinetoStep& s : steps)
    sum += s.family_s[static_cast<int>(f)];
  return sum / static_cast<double>(steps.size());
}

double KinetoBreakdown::mean_family_count(KernelFamily f) const {
  if (steps.empty()) return 0.0;
  double sum = 0.0;
  for (const KinetoStep& s : steps)
    sum += static_cast<double>(s.family_count[static_cast<int>(f)]);
  return sum / static_cast<double>(steps.size());
}

KinetoBreakdown kineto_breakdown(const inputs::KinetoTrace& trace) {
  KinetoBreakdown b;
  b.source = trace.source.string();
  b.rank = trace.rank;
  b.world_size = trace.world_size;
  // The runtime call of a correlation id: the trace keeps them sorted and unique by id.
  const auto launch = [&calls = trace.runtime_calls](std::int64_t correlation) -> const Time* {
    const auto it = std::lower_bound(
        calls.begin(), calls.end(), correlation,
        [](const inputs::RuntimeCall& c, std::int64_t id) { return c.correlation < id; });
    return it != calls.end() && it->correlation == correlation ? &it->start : nullptr;
  };

  for (const inputs::ProfilerStep& s : trace.steps)
    b.steps.push_back({.number = s.number, .wall_s = s.duration.seconds()});
  std::vector<std::vector<std::pair<Time, Time>>> intervals(b.steps.size());
  std::vector<std::pair<Time, Time>> spans(b.steps.size(), {Time::max(), Time::zero()});
  std::map<std::pair<std::int64_t, std::int64_t>, KinetoStream> streams;

  for (const inputs::GpuActivity& a : trace.activities) {
    int step = -1;
    if (a.correlation) {
      if (const Time* issued = launch(*a.correlation)) {
        step = step_holding(trace.steps, *issued);
        if (step >= 0) ++b.placed_by_launch;
      }
    }
    if (step < 0) step = step_holding(trace.steps, a.start);
    if (step < 0) {
      ++b.outside_steps;
      continue;
    }
    KinetoStep& s = b.steps[static_cast<std::size_t>(step)];
    const int f = static_cast<int>(a.family);
    s.family_s[f] += a.duration.seconds();
    ++s.family_count[f];
    ++s.activities;
    const Time end = a.start + a.duration;
    intervals[static_cast<std::size_t>(step)].emplace_back(a.start, end);
    auto& [first, last] = spans[static_cast<std::size_t>(step)];
    first = std::min(first, a.start);
    last = std::max(last, end);
    KinetoStream& st = streams[{a.device, a.stream}];
    st.device = a.device;
    st.stream = a.stream;
    st.busy_s += a.duration.seconds();
    ++st.activities;
  }
  for (std::size_t i = 0; i < b.steps.size(); ++i) {
    if (b.steps[i].activities == 0) continue;
    b.steps[i].gpu_busy_s = union_seconds(intervals[i]);
    b.steps[i].gpu_span_s = (spans[i].second - spans[i].first).seconds();
  }
  for (auto& [key, st] : streams)
    b.streams.push_back(st);
  return b;
}

std::string format_kineto_breakdown(const KinetoBreakdown& b) {
  std::string out = fmt::format("PyTorch profiler trace {}", b.source);
  if (b.rank) out += fmt::format(", rank {}", *b.rank);
  if (b.world_size) out += fmt::format(" of {}", *b.world_size);
  out += fmt::format(
      ": {} ProfilerStep spans, {} GPU activities in them ({} placed by their "
      "launch), {} outside\n",
      b.steps.size(),
      [&] {
        std::int64_t n = 0;
        for (const KinetoStep& s : b.steps)
          n += s.activities;
        return n;
      }(),
      b.placed_by_launch, b.outside_steps);
  if (b.steps.empty()) {
    out += fmt::format("  {}\n", kNoProfilerSteps);
    return out;
  }
  out += fmt::format("\n  {:<22}{:>12}{:>14}{:>14}{:>14}{:>12}{:>12}\n", "step", "wall ms",
                     "GPU busy ms", "GPU span ms", "GPU idle ms", "step ms", "activities");
  for (const KinetoStep& s : b.steps) {
    out += fmt::format("  {:<22}{:>12.3f}{:>14.3f}{:>14.3f}{:>14.3f}{:>12.3f}{:>12}\n",
                       fmt::format("ProfilerStep#{}", s.number), s.wall_s * 1e3, s.gpu_busy_s * 1e3,
                       s.gpu_span_s * 1e3, s.gpu_idle_s() * 1e3, s.time_s() * 1e3, s.activities);
  }
  out += fmt::format("  {:<22}{:>12.3f}{:>56.3f}\n", "median", b.median_wall_s() * 1e3,
                     b.median_step_s() * 1e3);
  out += "  (step: the longer of the host span and the GPU span)\n";

  double total = 0.0;
  for (int f = 0; f < kKernelFamilyCount; ++f)
    total += b.mean_family_s(family_at(f));
  out += fmt::format("\n  {:<22}{:>14}{:>10}{:>18}\n", "family (mean per step)", "ms", "share",
                     "activities");
  for (int f = 0; f < kKernelFamilyCount; ++f) {
    const double t = b.mean_family_s(family_at(f));
    const double n = b.mean_family_count(family_at(f));
    if (n == 0.0) continue;
    out += fmt::format("  {:<22}{:>14.3f}{:>9.1f}%{:>18.1f}\n", to_string(family_at(f)), t * 1e3,
                       total > 0.0 ? 100.0 * t / total : 0.0, n);
  }
  out += fmt::format("\n  {:<22}{:>14}{:>18}\n", "device / stream", "busy ms (all)", "activities");
  for (const KinetoStream& s : b.streams) {
    out += fmt::format("  {:<22}{:>14.3f}{:>18}\n",
                       fmt::format("GPU {} stream {}", s.device, s.stream), s.busy_s * 1e3,
                       s.activities);
  }
  return out;
}

std::string kineto_breakdown_json(const KinetoBreakdown& b) {
  nlohmann::ordered_json j;
  j["source"] = b.source;
  j["rank"] = b.rank ? nlohmann::ordered_json(*b.rank) : nlohmann::ordered_json(nullptr);
  j["world_size"] =
      b.world_size ? nlohmann::ordered_json(*b.world_size) : nlohmann::ordered_json(nullptr);
  j["outside_steps"] = b.outside_steps;
  j["placed_by_launch"] = b.placed_by_launch;
  j["median_wall_s"] = b.median_wall_s();
  j["median_step_s"] = b.median_step_s();
  auto& steps = j["steps"] = nlohmann::ordered_json::array();
  for (const KinetoStep& s : b.steps) {
    nlohmann::ordered_json step;
    step["number"] = s.number;
    step["wall_s"] = s.wall_s;
    step["gpu_busy_s"] = s.gpu_busy_s;
    step["gpu_span_s"] = s.gpu_span_s;
    step["gpu_idle_s"] = s.gpu_idle_s();
    step["step_s"] = s.time_s();
    step["activities"] = s.activities;
    auto& families = step["families"] = nlohmann::ordered_json::object();
    for (int f = 0; f < kKernelFamilyCount; ++f) {
      if (s.family_count[f] == 0) continue;
      families[std::string(to_string(family_at(f)))] = {{"time_s", s.family_s[f]},
                                                        {"activities", s.family_count[f]}};
    }
    steps.push_back(std::move(step));
  }
  auto& streams = j["streams"] = nlohmann::ordered_json::array();
  for (const KinetoStream& s : b.streams) {
    streams.push_back({{"device", s.device},
                       {"stream", s.stream},
                       {"busy_s", s.busy_s},
                       {"activities", s.activities}});
  }
  return j.dump(2) + "\n";
}

}  // namespace trainsim::reports
