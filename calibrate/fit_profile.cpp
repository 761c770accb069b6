#include "calibrate/fit_profile.hpp"

#include <fmt/format.h>

#include "calibrate/fit_attention.hpp"
#include "calibrate/fit_collectives.hpp"
#include "calibrate/fit_gemm.hpp"
#include "calibrate/fit_interference.hpp"
#include "calibrate/fit_memory.hpp"
#include "calibrate/fit_p2p.hpp"
#include "models/errors.hpp"

namespace trainsim::calibrate {

ProfileFit fit_profile(const RawMeasurements& raw, const hw::HardwareProfile& base,
                       const FitRowOptions& options) {
  ProfileFit result;
  result.profile = base;
  result.rows = raw.rows.size();
  std::vector<const RawMeasurement*> memory;
  std::vector<const RawMeasurement*> gemm;
  std::vector<const RawMeasurement*> intra;
  std::vector<const RawMeasurement*> inter;
  std::vector<const RawMeasurement*> interference;
  std::vector<const RawMeasurement*> send_recv;
  std::vector<const RawMeasurement*> attention;
  for (const RawMeasurement& r : raw.rows) {
    if (!r.verified) {
      ++result.unverified_rows;
      if (!options.include_unverified) continue;
    }
    switch (r.benchmark) {
      case Benchmark::memcpy:
      case Benchmark::elementwise:
      case Benchmark::launch:
        memory.push_back(&r);
        break;
      case Benchmark::gemm:
        gemm.push_back(&r);
        break;
      case Benchmark::gemm_during_collective:
        interference.push_back(&r);
        break;
      case Benchmark::send_recv:
        send_recv.push_back(&r);
        break;
      case Benchmark::attention:
      case Benchmark::attention_backward:
        attention.push_back(&r);
        break;
      default:
        (r.tier == Tier::intra_node ? intra : inter).push_back(&r);
        break;
    }
  }
  if (result.unverified_rows > 0) {
    result.notes.push_back(fmt::format("{} rows with verified = no {}", result.unverified_rows,
                                       options.include_unverified
                                           ? "fitted all the same (--include-unverified)"
                                           : "left out of every fit"));
  }
  hw::HardwareProfile& p = result.profile;
  if (!memory.empty()) result.fits.push_back(fit_memory(memory, p));
  if (!gemm.empty()) result.fits.push_back(fit_gemm(gemm, p));
  // After memory: the attention model adds the (fitted) kernel launch.
  if (!attention.empty()) result.fits.push_back(fit_attention(attention, p));
  if (!intra.empty()) result.fits.push_back(fit_collectives(intra, Tier::intra_node, p));
  if (!inter.empty()) result.fits.push_back(fit_collectives(inter, Tier::inter_node, p));
  if (!send_recv.empty()) result.fits.push_back(fit_p2p(send_recv, p));
  if (!interference.empty()) {
    if (gemm.empty()) {
      result.notes.push_back(
          "interference fitted against the base profile's GEMM model (no gemm rows)");
    }
    result.fits.push_back(fit_interference(interference, p));
  }
  if (result.fits.empty()) {
    throw Infeasible(
        fmt::format("{}: none of its {} rows can be fitted", raw.file.string(), result.rows));
  }
  return result;
}

}  // namespace trainsim::calibrate
