#pragma once
// GEMM figures through the simulator's own GEMM model (sim::estimate_gemm), minimising the
// squared relative error of the gemm rows. A base profile with candidate tiles (cuBLAS's
// heuristic) gets each dtype's max_efficiency, gpu.gemm.operand_bandwidth and
// gpu.gemm.cta_overhead_k (the tiles and max_split_k are the library's and stay the base's);
// one without gets max_efficiency and the one CTA tile: for each candidate cuBLAS tile, the
// max_efficiency that minimises the error, the tile with the smallest error winning.

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// The single tile's candidates (profiles without candidate tiles): tiles cuBLAS picks among for
/// large bf16/fp16 GEMMs on A100/H100 (CUTLASS's default threadblock shapes); the base
/// profile's tile is tried first, so it wins ties.
inline constexpr std::array<std::pair<std::int64_t, std::int64_t>, 6> kCandidateTiles{
    {{256, 128}, {128, 256}, {128, 128}, {256, 64}, {64, 256}, {128, 64}}};

/// Fits the GEMM model's free figures into `profile` from gemm rows (the header above). With
/// rows of more than one dtype, each dtype gets its own max_efficiency
/// (gpu.gemm.max_efficiency_by_dtype) and the shared figures (tile, or operand bandwidth and
/// overhead) minimise their summed error; the scalar is then the best single figure over all
/// rows, for dtypes not measured. Call after fit_memory: the model's HBM floor and launch
/// overhead use the profile's figures. Throws Infeasible with fewer than two fitting rows of
/// any dtype.
FitSummary fit_gemm(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile);

/// The simulator's time for the GEMM of a gemm or gemm_during_collective row, alone.
Time predict_gemm_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
