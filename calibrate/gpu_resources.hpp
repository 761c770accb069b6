#pragma once
// RAII owners of the CUDA objects the microbenchmarks use (style §13): device buffers,
// streams, events, cuBLAS handles and the mapped host flag of the timing gate. Each remembers
// its device and makes it current where the CUDA call needs it. Failures throw CudaError.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string_view>
#include <utility>

#include "models/cuda/cuda_error.hpp"

namespace trainsim::calibrate::gpu {

inline void check(cudaError_t code, std::string_view call) {
  cuda::throw_if_failed(static_cast<int>(code), call,
                        code == cudaSuccess ? "" : cudaGetErrorString(code));
}
inline void check(cublasStatus_t code, std::string_view call) {
  cuda::throw_if_failed(static_cast<int>(code), call, cublasGetStatusString(code));
}

/// Makes `device` current.
inline void use_device(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
}

/// Owns one movable handle; `destroy` releases it on its device.
template <typename Handle, void (*Destroy)(Handle)>
class Owned {
 public:
  Owned() = default;
  Owned(int device, Handle h) : device_(device), handle_(h) {}
  Owned(Owned&& o) noexcept : device_(o.device_), handle_(std::exchange(o.handle_, Handle{})) {}
  Owned& operator=(Owned&& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(handle_, o.handle_);
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (handle_ != Handle{}) {
      cudaSetDevice(device_);
      Destroy(handle_);
    }
  }
  Handle get() const { return handle_; }
  int device() const { return device_; }

 private:
  int device_ = 0;
  Handle handle_{};
};

namespace detail {
inline void free_device(void* p) {
  cudaFree(p);
}
inline void destroy_stream(cudaStream_t s) {
  cudaStreamDestroy(s);
}
inline void destroy_event(cudaEvent_t e) {
  cudaEventDestroy(e);
}
inline void destroy_cublas(cublasHandle_t h) {
  cublasDestroy(h);
}
inline void free_host(void* p) {
  cudaFreeHost(p);
}
}  // namespace detail

/// Device memory of `bytes` (at least one byte) on `device`.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::size_t bytes) : bytes_(bytes) {
    use_device(device);
    void* p = nullptr;
    check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
    memory_ = {device, p};
  }
  void* data() const { return memory_.get(); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(memory_.get());
  }
  /// The address `offset` bytes in.
  void* at(std::size_t offset) const { return static_cast<char*>(memory_.get()) + offset; }
  std::size_t bytes() const { return bytes_; }
  int device() const { return memory_.device(); }

 private:
  Owned<void*, detail::free_device> memory_;
  std::size_t bytes_ = 0;
};

/// A non-blocking stream on `device`.
class Stream {
 public:
  explicit Stream(int device) {
    use_device(device);
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    stream_ = {device, s};
  }
  cudaStream_t get() const { return stream_.get(); }
  int device() const { return stream_.device(); }
  void synchronize() const {
    use_device(device());
    check(cudaStreamSynchronize(get()), "cudaStreamSynchronize");
  }

 private:
  Owned<cudaStream_t, detail::destroy_stream> stream_;
};

/// A timing event on `device`.
class Event {
 public:
  explicit Event(int device) {
    use_device(device);
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    event_ = {device, e};
  }
  cudaEvent_t get() const { return event_.get(); }
  void record(cudaStream_t stream) const {
    use_device(event_.device());
    check(cudaEventRecord(get(), stream), "cudaEventRecord");
  }

 private:
  Owned<cudaEvent_t, detail::destroy_event> event_;
};

/// Milliseconds between two completed events.
inline float elapsed_ms(const Event& start, const Event& stop) {
  check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
  float ms = 0.0f;
  check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

/// A cuBLAS handle on `device`, bound to `stream`.
class CublasHandle {
 public:
  CublasHandle(int device, cudaStream_t stream) {
    use_device(device);
    cublasHandle_t h = nullptr;
    check(cublasCreate(&h), "cublasCreate");
    handle_ = {device, h};
    check(cublasSetStream(h, stream), "cublasSetStream");
  }
  cublasHandle_t get() const { return handle_.get(); }

 private:
  Owned<cublasHandle_t, detail::destroy_cublas> handle_;
};

/// A host int every device can read (mapped, portable): the flag of the timing gate.
class MappedFlag {
 public:
  /// Allocated from `device`'s context (a process per GPU makes none on device 0).
  explicit MappedFlag(int device = 0) {
    use_device(device);
    void* p = nullptr;
    check(cudaHostAlloc(&p, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable),
          "cudaHostAlloc");
    memory_ = {device, p};
    set(0);
  }
  void set(int v) const { *static_cast<volatile int*>(memory_.get()) = v; }
  /// The device view of the flag (the same address under unified addressing).
  const volatile int* device_pointer() const {
    void* d = nullptr;
    check(cudaHostGetDevicePointer(&d, memory_.get(), 0), "cudaHostGetDevicePointer");
    return static_cast<const volatile int*>(d);
  }

 private:
  Owned<void*, detail::free_host> memory_;
};

}  // namespace trainsim::calibrate::gpu
