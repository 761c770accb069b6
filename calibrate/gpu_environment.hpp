#pragma once
// The environment record of a calibration run: driver, CUDA runtime and cuBLAS versions and,
// per GPU, name, compute capability, SMs, memory, L2 and clocks. `trainsim-gpu-info` prints
// it as YAML; `trainsim-calibrate` writes it as the raw CSV's `# key: value` lines.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::calibrate::gpu {

struct DeviceRecord {
  std::string name;
  std::string compute_capability;  ///< "9.0"
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  double sm_clock_mhz = 0.0;      ///< the boost clock the driver reports
  double memory_clock_mhz = 0.0;  ///< peak memory clock
  int memory_bus_width_bits = 0;
};

struct EnvironmentRecord {
  std::string driver_cuda_version;   ///< "13.0": the newest CUDA the driver supports
  std::string runtime_cuda_version;  ///< "13.0"
  int cublas_version = 0;            ///< cublasGetVersion's integer (e.g. 130100)
  std::vector<DeviceRecord> devices;
};

/// What the CUDA runtime reports; nullopt with `why_not` set when no GPU is usable.
std::optional<EnvironmentRecord> query_environment(std::string& why_not);

/// The record as YAML (trainsim-gpu-info's output).
std::string to_yaml(const EnvironmentRecord& env);

/// The record as flat `key: value` pairs for the raw CSV (`gpu`, `gpu_count`, `driver_cuda`,
/// `cuda_runtime`, `cublas`, `sm_clock`, ... of device 0; other devices' names when they
/// differ).
std::map<std::string, std::string> to_key_values(const EnvironmentRecord& env);

}  // namespace trainsim::calibrate::gpu
