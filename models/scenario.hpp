#pragma once
// A scenario: model + training + parallel plan + a reference to a hardware profile.
// Produced only by inputs/scenario_loader, immutable afterwards.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "models/stragglers.hpp"

namespace trainsim {

/// How the scenario's framework drives the GPUs, where it differs from the framework the
/// hardware profile's host section describes (inputs::scenario_hardware applies it).
struct RuntimeSpec {
  std::optional<std::int64_t> device_max_connections;  ///< CUDA_DEVICE_MAX_CONNECTIONS
};

struct Scenario {
  std::string name;
  std::string hardware;                 ///< as written: a profile name or a path
  std::filesystem::path hardware_file;  ///< resolved path of the profile YAML
  std::filesystem::path source_file;    ///< the scenario file itself
  std::int64_t gpus = 0;
  ModelSpec model;
  TrainingSpec training;
  ParallelPlan parallel;
  RuntimeSpec runtime;
  StragglerSpec stragglers{};
};

}  // namespace trainsim
