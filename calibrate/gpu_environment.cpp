#include "calibrate/gpu_environment.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

namespace trainsim::calibrate::gpu {
namespace {

std::string version_text(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

int attribute(cudaDeviceAttr what, int device) {
  int v = 0;
  cudaDeviceGetAttribute(&v, what, device);
  return v;
}

}  // namespace

std::optional<EnvironmentRecord> query_environment(std::string& why_not) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why_not = fmt::format("no usable CUDA GPU ({})",
                          status != cudaSuccess ? cudaGetErrorString(status) : "no devices");
    return std::nullopt;
  }
  EnvironmentRecord env;
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  env.driver_cuda_version = version_text(driver);
  env.runtime_cuda_version = version_text(runtime);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
    cublasGetVersion(handle, &env.cublas_version);
    cublasDestroy(handle);
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    DeviceRecord r;
    r.name = p.name;
    r.compute_capability = fmt::format("{}.{}", p.major, p.minor);
    r.sm_count = p.multiProcessorCount;
    r.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
    r.l2_bytes = p.l2CacheSize;
    r.sm_clock_mhz = attribute(cudaDevAttrClockRate, d) / 1000.0;
    r.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, d) / 1000.0;
    r.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d);
    env.devices.push_back(r);
  }
  return env;
}

std::string to_yaml(const EnvironmentRecord& env) {
  std::string out;
  out += fmt::format("driver_cuda_version: \"{}\"\n", env.driver_cuda_version);
  out += fmt::format("runtime_cuda_version: \"{}\"\n", env.runtime_cuda_version);
  out += fmt::format("cublas_version: {}\n", env.cublas_version);
  out += "devices:\n";
  for (const DeviceRecord& d : env.devices) {
    out += fmt::format("  - name: \"{}\"\n", d.name);
    out += fmt::format("    compute_capability: \"{}\"\n", d.compute_capability);
    out += fmt::format("    sm_count: {}\n", d.sm_count);
    out += fmt::format("    memory: \"{} B\"\n", d.memory_bytes);
    out += fmt::format("    l2_cache: \"{} B\"\n", d.l2_bytes);
    out += fmt::format("    sm_clock: \"{:.0f} MHz\"\n", d.sm_clock_mhz);
    out += fmt::format("    memory_clock: \"{:.0f} MHz\"\n", d.memory_clock_mhz);
    out += fmt::format("    memory_bus_width_bits: {}\n", d.memory_bus_width_bits);
  }
  return out;
}

std::map<std::string, std::string> to_key_values(const EnvironmentRecord& env) {
  std::map<std::string, std::string> kv;
  kv["driver_cuda"] = env.driver_cuda_version;
  kv["cuda_runtime"] = env.runtime_cuda_version;
  kv["cublas"] = std::to_string(env.cublas_version);
  kv["gpu_count"] = std::to_string(env.devices.size());
  if (env.devices.empty()) return kv;
  const DeviceRecord& d = env.devices.front();
  kv["gpu"] = d.name;
  kv["compute_capability"] = d.compute_capability;
  kv["sm_count"] = std::to_string(d.sm_count);
  kv["gpu_memory"] = fmt::format("{} B", d.memory_bytes);
  kv["l2_cache"] = fmt::format("{} B", d.l2_bytes);
  kv["sm_clock"] = fmt::format("{:.0f} MHz", d.sm_clock_mhz);
  kv["memory_clock"] = fmt::format("{:.0f} MHz", d.memory_clock_mhz);
  kv["memory_bus_width_bits"] = std::to_string(d.memory_bus_width_bits);
  for (std::size_t i = 1; i < env.devices.size(); ++i)
    if (env.devices[i].name != d.name) kv[fmt::format("gpu_{}", i)] = env.devices[i].name;
  return kv;
}

}  // namespace trainsim::calibrate::gpu
