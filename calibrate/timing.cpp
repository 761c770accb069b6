#include "calibrate/timing.hpp"

#include <algorithm>
#include <vector>

#include "models/cuda/kernels.hpp"

namespace trainsim::calibrate::gpu {
namespace {

// Long enough for any repetition's launches to be issued; short enough that a full launch
// queue (the host blocked before releasing the gate) only costs this once.
constexpr double kGateTimeoutS = 2.0;

void synchronize(const std::vector<TimedStream>& streams) {
  for (const TimedStream& s : streams) {
    use_device(s.device);
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace

Timing time_prepared(const Prepared& p, const TimingPolicy& policy, const MappedFlag& gate) {
  for (int i = 0; i < policy.warmup; ++i)
    p.run();
  synchronize(p.streams);
  Timing t;
  try {
    t.verified = p.verify();
  } catch (const cuda::CudaError& e) {
    cudaGetLastError();  // an allocation failure is not sticky: clear it and go on
    t.note = e.what();
  }

  std::vector<Event> starts;
  std::vector<Event> stops;
  for (const TimedStream& s : p.streams) {
    starts.emplace_back(s.device);
    stops.emplace_back(s.device);
  }
  const volatile int* flag = gate.device_pointer();
  std::vector<double> seconds;
  double total = 0.0;
  while (
      static_cast<int>(seconds.size()) < policy.max_repetitions &&
      (static_cast<int>(seconds.size()) < policy.min_repetitions || total < policy.min_timed_s)) {
    gate.set(0);
    for (std::size_t i = 0; i < p.streams.size(); ++i) {
      use_device(p.streams[i].device);
      cuda::kernels::hold(flag, kGateTimeoutS, p.streams[i].stream);
      starts[i].record(p.streams[i].stream);
    }
    p.run();
    for (std::size_t i = 0; i < p.streams.size(); ++i)
      stops[i].record(p.streams[i].stream);
    if (p.before_release) p.before_release();
    gate.set(1);
    double longest = 0.0;
    for (std::size_t i = 0; i < p.streams.size(); ++i)
      longest = std::max(longest, 1e-3 * elapsed_ms(starts[i], stops[i]));
    if (p.longest) longest = p.longest(longest);
    seconds.push_back(longest / p.ops_per_run);
    total += longest;
  }
  t.median = Time::from_seconds(median(seconds));
  t.repetitions = static_cast<std::int64_t>(seconds.size());
  return t;
}

}  // namespace trainsim::calibrate::gpu
