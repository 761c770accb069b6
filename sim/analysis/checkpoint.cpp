#include "sim/analysis/checkpoint.hpp"

#include <stdexcept>

namespace trainsim::sim {

CheckpointSize checkpoint_size(const ModelSpec& model, std::int64_t gpus,
                               std::int64_t gpus_per_node) {
  if (gpus < 1 || gpus_per_node < 1)
    throw std::invalid_argument("checkpoint_size: gpus and gpus_per_node must be >= 1");
  const std::int64_t weight =
      bytes_per_element(model.dtype == DType::fp8 ? DType::bf16 : model.dtype);
  const std::int64_t master = model.dtype == DType::fp32 ? 0 : 4;
  const std::int64_t adam = 8;
  CheckpointSize size;
  size.total = Bytes::of(model.parameters() * (weight + master + adam));
  size.per_gpu = Bytes::rounded(size.total.as_double() / static_cast<double>(gpus));
  size.per_node =
      Bytes::rounded(size.per_gpu.as_double() * static_cast<double>(std::min(gpus, gpus_per_node)));
  return size;
}

namespace {

struct Bounded {
  Time time;
  std::string bound;
};

/// The slowest of the three stages a checkpoint's bytes pass through.
Bounded slowest(Time gpu, Time node, Time filesystem) {
  Bounded out{gpu, "GPU-to-host copies"};
  if (node > out.time) out = {node, "node storage links"};
  if (filesystem > out.time) out = {filesystem, "file system"};
  return out;
}

}  // namespace

CheckpointTimes checkpoint_times(const CheckpointSize& size, const hw::CheckpointPath& path) {
  const Time copy = size.per_gpu / path.device_to_host;
  const Bounded write =
      slowest(copy, size.per_node / path.node_write, size.total / path.filesystem_write);
  const Bounded load =
      slowest(copy, size.per_node / path.node_read, size.total / path.filesystem_read);
  CheckpointTimes out;
  out.write = write.time;
  out.write_bound = write.bound;
  out.stall = path.asynchronous ? copy : write.time;
  out.load = load.time;
  out.load_bound = load.bound;
  return out;
}

}  // namespace trainsim::sim
