#pragma once
// The figures `trainsim fit-runs` may move when it fits a profile to measured iteration times:
// each a physical quantity of the profile, bounded to the range the hardware and software make
// plausible, with the reason for the bounds. Figures measured directly and well (the GEMM
// roofline's MAMF, link bandwidths) are not among them: whole runs would only trade them
// against the others.

#include <functional>
#include <string>
#include <vector>

#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

struct RunParameter {
  std::string name;                 ///< what is fitted, as printed ("host dispatch, compute op")
  std::vector<std::string> fields;  ///< the profile fields it writes
  std::string unit;                 ///< "us" or "" (a fraction or a factor)
  double low = 0.0;                 ///< bounds, in `unit`
  double high = 0.0;
  std::string bounds;  ///< why these bounds
  std::function<double(const hw::HardwareProfile&)> get;
  std::function<void(hw::HardwareProfile&, double)> set;
};

/// The parameters a whole-run fit of `base` moves: its host's dispatch costs (compute and
/// communication ops), the achieved fraction of HBM bandwidth of streaming kernels and the
/// per-kernel device overhead. The collective curves are not among them: they are measured
/// sweeps (nccl-tests), and whole runs, whose small TP messages are latency-bound, moved the
/// A100's to the bounds of any plausible range while the runs it was measured for got worse.
/// Throws std::invalid_argument when `base` has no host section (the host's figures are the
/// first a whole run constrains; write one, with a guess and its reason, before fitting).
std::vector<RunParameter> whole_run_parameters(const hw::HardwareProfile& base);

/// Pairs of parameters the rows cannot tell apart: the correlation of their estimates,
/// from the fit's Jacobian at the optimum (J'J inverted), beyond `threshold` in magnitude.
struct Confounded {
  std::size_t a = 0;
  std::size_t b = 0;
  double correlation = 0.0;
};

/// From `jacobian` (rows x parameters: d(relative error) / d(parameter) at the optimum, in
/// the parameters' own units) and each parameter's `ranges` (high - low): every parameter the
/// rows barely respond to (moving it over its whole range changes the rows' errors by less
/// than `min_effect` rms, linearised: reported with b == a), then, among the others, the
/// pairs whose estimates correlate beyond `threshold` in magnitude.
std::vector<Confounded> confounded_parameters(const std::vector<std::vector<double>>& jacobian,
                                              const std::vector<double>& ranges,
                                              double threshold = 0.95, double min_effect = 0.005);

}  // namespace trainsim::calibrate
