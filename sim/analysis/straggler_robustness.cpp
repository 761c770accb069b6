#include "sim/analysis/straggler_robustness.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/build_program.hpp"
#include "sim/replay.hpp"

namespace trainsim::sim {

StragglerRobustness straggler_robustness(const ModelSpec& model,
                                         const hw::HardwareProfile& hardware, const Layout& layout,
                                         std::int64_t global_batch, double factor) {
  if (!std::isfinite(factor) || factor < 1.0)
    throw std::invalid_argument("straggler_robustness: the factor must be finite and >= 1");
  const program::Program program = build_program(
      model, layout.plan, training_of(layout, global_batch), ProgramScope::representative);
  const auto gpus = static_cast<std::size_t>(layout.plan.gpus());
  auto with_slow = [&](std::size_t gpu) {
    ReplayOptions options;
    options.record_op_timings = false;
    options.kernel_slowdowns.assign(gpus, 1.0);
    options.kernel_slowdowns[gpu] = factor;
    return replay(program, hardware, options).iteration_time;
  };
  StragglerRobustness r;
  r.factor = factor;
  r.first_gpu = with_slow(0);
  r.last_gpu = with_slow(gpus - 1);
  return r;
}

}  // namespace trainsim::sim
