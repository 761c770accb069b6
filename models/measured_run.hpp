#pragma once
// What one timed run of a rank's Program on a real GPU measured (`trainsim exec --backend cuda
// --time`): per op, in issue order, and per iteration. Plain data: written and read as JSON by
// reports/measured_run_json, compared with the simulator by reports/run_validation.

#include <cstdint>
#include <string>
#include <vector>

#include "models/program.hpp"

namespace trainsim {

/// What kind of Program op a backend call is: a GEMM, a memory-bound kernel, a collective or
/// one side of a point-to-point transfer.
enum class OpClass : std::uint8_t { gemm, kernel, collective, p2p };

constexpr std::string_view to_string(OpClass c) {
  switch (c) {
    case OpClass::gemm:
      return "gemm";
    case OpClass::kernel:
      return "kernel";
    case OpClass::collective:
      return "collective";
    case OpClass::p2p:
      return "p2p";
  }
  return "?";
}

/// One backend call as timed on the GPU (cudaEvents around it on its stream; the median over
/// the repetitions). A call the Program records as several ops (attention backward: two GEMMs)
/// is one measured op with the Program's name.
struct MeasuredOp {
  std::string name;
  OpClass op_class = OpClass::kernel;
  program::Tag tag;
  program::Stream stream = program::Stream::compute;
  double seconds = 0.0;
};

/// Collectives (and transfers) not run because the group's other GPUs are absent, per name.
struct SkippedCollective {
  std::string name;
  std::string group;
  std::int64_t count = 0;  ///< per iteration
};

struct MeasuredRun {
  std::string scenario;  ///< scenario name
  std::string hardware;  ///< the profile the prediction must use (name as in the scenario)
  std::int64_t rank = 0;
  std::string device;  ///< GPU name as the driver reports it
  std::int64_t warmup = 0;
  std::int64_t repetitions = 0;
  double iteration_seconds = 0.0;  ///< median over repetitions, all streams joined
  std::vector<MeasuredOp> ops;     ///< issue order
  std::vector<SkippedCollective> skipped;
};

}  // namespace trainsim
