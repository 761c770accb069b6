#pragma once
// What one checkpoint of a training run weighs and what saving and loading it costs on the
// profile's checkpoint path (sim/reliability.hpp).
//
// What is saved: every parameter in the model's dtype, its fp32 master copy (when the model
// dtype is not fp32) and Adam's two fp32 moments, each byte once: Megatron-Core's distributed
// checkpoint with fully parallel save (the default since 0.7) spreads the tensors that data
// parallelism replicates over the replicas, so every GPU writes total / GPUs, whatever the
// layout; fully parallel load reads each byte once and exchanges the replicas' shares over
// the data-parallel group (that exchange, a few GB per GPU over the NICs, is left out: seconds
// against minutes of restart). Gradients, activations and the data loader's state are not
// saved (the data loader's is kilobytes).
//
// Saving: each GPU copies its share to host memory over its PCIe link; each node writes its
// GPUs' shares over its storage links; the file system takes every node's. The three run as
// a pipeline, so the slowest sets the time. Synchronous: the step waits for all of it;
// asynchronous: only for the copy to host memory.

#include <cstdint>
#include <string>

#include "models/model_spec.hpp"
#include "sim/reliability.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

struct CheckpointSize {
  Bytes total;    ///< one checkpoint
  Bytes per_gpu;  ///< total / GPUs
  Bytes per_node;
};

/// Throws std::invalid_argument unless gpus ≥ 1 and gpus_per_node ≥ 1.
CheckpointSize checkpoint_size(const ModelSpec& model, std::int64_t gpus,
                               std::int64_t gpus_per_node);

struct CheckpointTimes {
  Time stall;  ///< training waits this long per checkpoint
  Time write;  ///< from the start of a save to its last byte stored
  Time load;   ///< reading it back at a restart
  /// What limits the write and the load: "GPU-to-host copies", "node storage links" or "file
  /// system".
  std::string write_bound;
  std::string load_bound;
};

CheckpointTimes checkpoint_times(const CheckpointSize& size, const hw::CheckpointPath& path);

}  // namespace trainsim::sim
