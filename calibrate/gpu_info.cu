// trainsim-gpu-info: the environment record a calibration run starts with (GPU, SMs, memory,
// clocks, driver, CUDA runtime and cuBLAS versions), as YAML on stdout. Exits 77 (skipped)
// when no GPU is usable, saying why, so CI without a GPU passes cleanly.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace {

constexpr int kExitNoGpu = 77;

int version_major(int v) { return v / 1000; }
int version_minor(int v) { return (v % 1000) / 10; }

}  // namespace

int main() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("skipped: no usable CUDA GPU (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "no devices");
    return kExitNoGpu;
  }
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  int cublas = 0;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
    cublasGetVersion(handle, &cublas);
    cublasDestroy(handle);
  }
  std::printf("driver_cuda_version: \"%d.%d\"\n", version_major(driver), version_minor(driver));
  std::printf("runtime_cuda_version: \"%d.%d\"\n", version_major(runtime), version_minor(runtime));
  std::printf("cublas_version: %d\n", cublas);
  std::printf("devices:\n");
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    int clock_khz = 0;
    int memory_clock_khz = 0;
    int bus_width = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
    cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, d);
    cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, d);
    std::printf("  - name: \"%s\"\n", p.name);
    std::printf("    compute_capability: \"%d.%d\"\n", p.major, p.minor);
    std::printf("    sm_count: %d\n", p.multiProcessorCount);
    std::printf("    memory: \"%zu B\"\n", p.totalGlobalMem);
    std::printf("    l2_cache: \"%d B\"\n", p.l2CacheSize);
    std::printf("    sm_clock: \"%.0f MHz\"\n", clock_khz / 1000.0);
    std::printf("    memory_clock: \"%.0f MHz\"\n", memory_clock_khz / 1000.0);
    std::printf("    memory_bus_width_bits: %d\n", bus_width);
  }
  return 0;
}
