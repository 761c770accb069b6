#include "models/cuda/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "models/cuda/cublas_library.hpp"
#include "models/cuda/cuda_error.hpp"
#include "models/cuda/kernels.hpp"

namespace trainsim::cuda {

namespace {

using program::Stream;
namespace k = kernels;

void check(cudaError_t status, std::string_view call) {
  throw_if_failed(static_cast<int>(status), call, cudaGetErrorString(status));
}
void check(const CublasLibrary& blas, cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_if_failed(static_cast<int>(status), call, blas.status_string(status));
}
void check(ncclResult_t status, std::string_view call) {
  throw_if_failed(static_cast<int>(status), call, ncclGetErrorString(status));
}

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::fp64:
      return ncclFloat64;
    case DType::fp32:
    case DType::tf32:
      return ncclFloat32;
    case DType::bf16:
      return ncclBfloat16;
    case DType::fp16:
      return ncclFloat16;
    case DType::fp8:
      return ncclUint8;
  }
  return ncclFloat32;
}

// Device memory of one tensor from the stream-ordered pool; freed on the compute stream once
// the last handle goes (the executor drops a tensor only after joining the streams that used
// it, as PyTorch's caching allocator assumes without record_stream).
class DeviceStorage final : public TensorStorage {
 public:
  DeviceStorage(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    check(cudaMallocAsync(&data, std::max<std::size_t>(bytes, 1), stream), "cudaMallocAsync");
  }
  ~DeviceStorage() override { cudaFreeAsync(data, stream_); }
  DeviceStorage(const DeviceStorage&) = delete;
  DeviceStorage& operator=(const DeviceStorage&) = delete;

  void* data = nullptr;
  Stream last_collective_stream = Stream::compute;  ///< for wait_for

 private:
  cudaStream_t stream_;
};

DeviceStorage& storage_of(const Tensor& t) {
  return static_cast<DeviceStorage&>(t.storage());
}
char* bytes_of(const Tensor& t) {
  return static_cast<char*>(storage_of(t).data);
}
std::int64_t rows(const Tensor& t) {
  return t.shape().batch * t.shape().rows;
}
std::int64_t cols(const Tensor& t) {
  return t.shape().cols;
}
k::Array arr(const Tensor& t) {
  return {bytes_of(t), t.dtype()};
}
k::ConstArray carr(const Tensor& t) {
  return {bytes_of(t), t.dtype()};
}
// Elements [offset, offset + n) of a tensor as an array.
k::Array arr_at(const Tensor& t, std::int64_t offset) {
  return {bytes_of(t) + offset * t.element_bytes(), t.dtype()};
}
k::ConstArray carr_at(const Tensor& t, std::int64_t offset) {
  return {bytes_of(t) + offset * t.element_bytes(), t.dtype()};
}
// The Llama layer's kernels are not written for this backend yet: its layers run on meta and
// cpu (issue 19), and a cuda run of such a model stops here with the op's name.
[[noreturn]] void not_on_cuda(std::string_view op) {
  throw std::invalid_argument(fmt::format(
      "cuda backend: {} is not implemented (RMSNorm, QK-norm, SwiGLU, RoPE, grouped-query and "
      "flash attention run on the meta and cpu backends only)",
      op));
}
k::ConstArray optional_carr(const Tensor* t) {
  return t != nullptr && t->defined() ? carr(*t) : k::ConstArray{nullptr, DType::fp32};
}
float* f32(const Tensor& t) {
  return reinterpret_cast<float*>(bytes_of(t));
}
std::int64_t* ids(const Tensor& t) {
  return reinterpret_cast<std::int64_t*>(bytes_of(t));
}
std::uint8_t* mask_bytes(const Tensor& t) {
  return reinterpret_cast<std::uint8_t*>(bytes_of(t));
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::fp64:
      return CUDA_R_64F;
    case DType::fp32:
    case DType::tf32:
      return CUDA_R_32F;
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::fp16:
      return CUDA_R_16F;
    case DType::fp8:
      return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

int as_int(std::int64_t v, std::string_view what) {
  if (v < 0 || v > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        fmt::format("cuda backend: GEMM {} = {} is outside cuBLAS's 32-bit range", what, v));
  }
  return static_cast<int>(v);
}

// A row-major operand of a (strided-batched) GEMM: base pointer, row stride, batch stride.
struct Operand {
  const void* data;
  DType dtype;
  std::int64_t ld;
  std::int64_t stride = 0;
};

// Elements [first, first + n) of each tensor's place in a concatenation, clipped to
// [begin, end): calls f(tensor, offset in tensor, offset from begin, count).
template <typename F>
void for_each_overlap(std::span<const Tensor> tensors, std::int64_t begin, std::int64_t end,
                      F&& f) {
  std::int64_t first = 0;
  for (const Tensor& t : tensors) {
    const std::int64_t lo = std::max(first, begin);
    const std::int64_t hi = std::min(first + t.numel(), end);
    if (lo < hi) f(t, lo - first, lo - begin, hi - lo);
    first += t.numel();
  }
}
std::int64_t total_numel(std::span<const Tensor> tensors) {
  std::int64_t n = 0;
  for (const Tensor& t : tensors)
    n += t.numel();
  return n;
}

k::AdamConstants adam_constants(const AdamHyper& h) {
  const double step = static_cast<double>(h.step);
  return {static_cast<float>(h.lr),
          static_cast<float>(h.beta1),
          static_cast<float>(h.beta2),
          static_cast<float>(h.eps),
          static_cast<float>(h.weight_decay),
          static_cast<float>(1.0 - std::pow(h.beta1, step)),
          static_cast<float>(1.0 - std::pow(h.beta2, step))};
}

}  // namespace

int gpu_count(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = cudaGetErrorString(status);
    return 0;
  }
  if (count == 0) why = "no CUDA devices";
  return count;
}

bool gpu_available(std::string& why) {
  return gpu_count(why) > 0;
}

struct CudaBackend::Impl {
  struct Pending {
    std::string name;
    OpClass op_class;
    program::Tag tag;
    Stream stream;
    cudaEvent_t start;
    cudaEvent_t end;
  };

  std::int64_t rank = 0;
  CudaBackendOptions options;
  std::array<std::vector<std::int64_t>, kCommGroupCount> groups;
  std::array<cudaStream_t, program::kStreamCount> streams{};
  CublasLibrary blas;  // opened here: see cublas_library.hpp
  cublasHandle_t cublas = nullptr;
  program::Tag tag;
  std::uint64_t dropout_counter = 0;
  std::map<std::pair<std::string, std::string>, std::int64_t> skipped;
  // Tensors being sent, kept alive until their send has completed (a send does not hold up
  // the compute stream, as the cpu communicator's buffered send does not block).
  std::vector<std::pair<Tensor, cudaEvent_t>> sending;
  // Timing.
  bool timing = false;
  std::vector<Pending> pending;
  int* gate = nullptr;  // mapped host flag read by the hold kernel
  cudaEvent_t begin_event = nullptr;

  cudaStream_t stream(Stream s) const { return streams[static_cast<std::size_t>(s)]; }
  const std::vector<std::int64_t>& ranks_of(CommGroup g) const {
    return groups[static_cast<std::size_t>(g)];
  }
  std::int64_t position_in(CommGroup g) const {
    const auto& r = ranks_of(g);
    return std::find(r.begin(), r.end(), rank) - r.begin();
  }
  std::int64_t size_of(CommGroup g) const {
    return std::max<std::int64_t>(static_cast<std::int64_t>(ranks_of(g).size()), 1);
  }
  // Where a collective runs: here (a group of one), through NCCL, or nowhere (counted).
  enum class Route : std::uint8_t { local, nccl, skipped };
  Route route(CommGroup g, std::string_view name) {
    if (size_of(g) <= 1) return Route::local;
    if (communicator(g) != nullptr) return Route::nccl;
    ++skipped[{std::string(name), std::string(comm_group_name(g))}];
    return Route::skipped;
  }
  NcclComm communicator(CommGroup g) const {
    return options.nccl != nullptr ? options.nccl->group(g) : nullptr;
  }
  // A padded flat buffer of n·c elements of `dtype` (c = chunk) holding the concatenation of
  // `tensors` when `fill`, zeros elsewhere; allocated before the caller's SideStream so that
  // it is freed only after the collective's stream has joined the compute stream.
  Tensor flat(std::int64_t elements, DType dtype) { return make({1, elements, 1}, dtype); }
  void pack(std::span<const Tensor> tensors, const Tensor& flat, Stream s) {
    check(cudaMemsetAsync(bytes_of(flat), 0, static_cast<std::size_t>(flat.bytes().count()),
                          stream(s)),
          "cudaMemsetAsync");
    for_each_overlap(tensors, 0, flat.numel(),
                     [&](const Tensor& t, std::int64_t in_t, std::int64_t in_flat, std::int64_t n) {
                       k::convert(carr_at(t, in_t), arr_at(flat, in_flat), n, stream(s));
                     });
  }
  // Elements [begin, end) of `flat` written back to their tensors.
  void unpack(const Tensor& flat, std::span<const Tensor> tensors, std::int64_t begin,
              std::int64_t end, Stream s) {
    for_each_overlap(
        tensors, begin, end,
        [&](const Tensor& t, std::int64_t in_t, std::int64_t in_range, std::int64_t n) {
          k::convert(carr_at(flat, begin + in_range), arr_at(t, in_t), n, stream(s));
        });
  }
  // The chunk size of a flat collective: ceil(numel / n).
  std::int64_t chunk_of(std::span<const Tensor> tensors, CommGroup g) const {
    const std::int64_t n = size_of(g);
    return (total_numel(tensors) + n - 1) / n;
  }
  // Drops the sent tensors whose send has completed.
  void release_sent() {
    std::erase_if(sending, [](const std::pair<Tensor, cudaEvent_t>& s) {
      if (cudaEventQuery(s.second) != cudaSuccess) return false;
      cudaEventDestroy(s.second);
      return true;
    });
  }
  // Records the stream of the collective that last used the tensors (for wait_for).
  static void mark(std::span<const Tensor> tensors, Stream s) {
    for (const Tensor& t : tensors)
      storage_of(t).last_collective_stream = s;
  }
  // The local part of a sharded collective: f(tensor, offset in it, offset in the shard, n)
  // over this member's chunk of the concatenation of `tensors`, on the collective's stream,
  // timed when the group is this rank alone.
  template <typename F>
  void member_chunk(std::span<const Tensor> tensors, const Tensor& shard, CommGroup group, Stream s,
                    std::string_view name, F&& f) {
    const bool here = route(group, name) == Route::local;
    const SideStream side(*this, s);
    const Scope scope(*this, name, OpClass::collective, s, here);
    const std::int64_t begin = position_in(group) * shard.numel();
    for_each_overlap(tensors, begin, begin + shard.numel(), f);
  }
  void skip_p2p(std::string_view name) { ++skipped[{std::string(name), "pipeline"}]; }

  Tensor make(Shape shape, DType dtype) {
    const auto bytes = static_cast<std::size_t>(shape.numel() * bytes_per_element(dtype));
    return Tensor(std::make_shared<DeviceStorage>(bytes, stream(Stream::compute)), shape, dtype);
  }
  Tensor make_mask(Shape shape) {
    return Tensor::byte_mask(std::make_shared<DeviceStorage>(
                                 static_cast<std::size_t>(shape.numel()), stream(Stream::compute)),
                             shape);
  }
  Tensor make_zero(Shape shape, DType dtype, Stream s) {
    Tensor t = make(shape, dtype);
    check(cudaMemsetAsync(bytes_of(t), 0, static_cast<std::size_t>(t.bytes().count()), stream(s)),
          "cudaMemsetAsync");
    return t;
  }

  void wait(Stream waiter, Stream waited) {
    if (waiter == waited) return;
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(e, stream(waited)), "cudaEventRecord");
    check(cudaStreamWaitEvent(stream(waiter), e, 0), "cudaStreamWaitEvent");
    cudaEventDestroy(e);  // released once the wait has happened
  }

  // One timed call: events on its stream before and after when timing.
  class Scope {
   public:
    Scope(Impl& impl, std::string_view name, OpClass c, Stream s, bool enabled = true)
        : impl_(impl) {
      if (!impl.timing || !enabled) return;
      Pending p{std::string(name), c, impl.tag, s, nullptr, nullptr};
      check(cudaEventCreate(&p.start), "cudaEventCreate");
      check(cudaEventCreate(&p.end), "cudaEventCreate");
      check(cudaEventRecord(p.start, impl.stream(s)), "cudaEventRecord");
      impl.pending.push_back(std::move(p));
      index_ = impl.pending.size() - 1;
      active_ = true;
    }
    ~Scope() {
      if (active_) {
        const Pending& p = impl_.pending[index_];
        cudaEventRecord(p.end, impl_.stream(p.stream));
      }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Impl& impl_;
    std::size_t index_ = 0;
    bool active_ = false;
  };
  // Work on a communicator's stream ordered after everything issued on the compute stream,
  // and the compute stream after it. The meta backend derives cross-stream dependencies
  // from tensor accesses, so the executor does not announce every one with stream_wait;
  // this conservative join keeps the local collectives correct (NCCL ones will need the
  // accesses tracked per tensor).
  class SideStream {
   public:
    SideStream(Impl& impl, Stream s) : impl_(impl), stream_(s) { impl.wait(s, Stream::compute); }
    ~SideStream() { impl_.wait(Stream::compute, stream_); }
    SideStream(const SideStream&) = delete;
    SideStream& operator=(const SideStream&) = delete;

   private:
    Impl& impl_;
    Stream stream_;
  };

  Scope compute(std::string_view name, OpClass c = OpClass::kernel) {
    return {*this, name, c, Stream::compute};
  }
  cudaStream_t cs() const { return stream(Stream::compute); }

  // Row-major C = alpha · op(A) · op(B) + beta · C for `batch` strided matrices.
  void gemm(const Operand& a, const Operand& b, const Operand& c, bool ta, bool tb, std::int64_t m,
            std::int64_t n, std::int64_t kk, std::int64_t batch, double alpha, double beta) {
    if (a.dtype != b.dtype) {
      throw std::invalid_argument(fmt::format("cuda backend: GEMM operands of types {} and {}",
                                              to_string(a.dtype), to_string(b.dtype)));
    }
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (a.dtype == DType::tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    if (a.dtype == DType::fp64) compute = CUBLAS_COMPUTE_64F;
    const float alpha_f = static_cast<float>(alpha);
    const float beta_f = static_cast<float>(beta);
    const void* alpha_p = a.dtype == DType::fp64 ? static_cast<const void*>(&alpha) : &alpha_f;
    const void* beta_p = a.dtype == DType::fp64 ? static_cast<const void*>(&beta) : &beta_f;
    check(blas, blas.set_stream(cublas, cs()), "cublasSetStream");
    // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, and a row-major matrix
    // is its transpose in column-major: so B goes first and the transposes carry over.
    check(blas,
          blas.gemm_strided_batched_ex(
              cublas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
              as_int(n, "n"), as_int(m, "m"), as_int(kk, "k"), alpha_p, b.data, cuda_type(b.dtype),
              as_int(b.ld, "ldb"), b.stride, a.data, cuda_type(a.dtype), as_int(a.ld, "lda"),
              a.stride, beta_p, const_cast<void*>(c.data), cuda_type(c.dtype), as_int(c.ld, "ldc"),
              c.stride, as_int(batch, "batch"), compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
  }
  void matmul(const Tensor& a, const Tensor& b, bool ta, bool tb, const Tensor& c, double beta) {
    const std::int64_t m = ta ? cols(a) : rows(a);
    const std::int64_t n = tb ? rows(b) : cols(b);
    const std::int64_t kk = ta ? rows(a) : cols(a);
    const std::int64_t kb = tb ? cols(b) : rows(b);
    if (kk != kb || rows(c) != m || cols(c) != n) {
      throw std::invalid_argument(
          fmt::format("cuda backend: GEMM shapes do not match: op(a) {}x{}, op(b) {}x{}, c {}x{}",
                      m, kk, kb, n, rows(c), cols(c)));
    }
    gemm({bytes_of(a), a.dtype(), cols(a)}, {bytes_of(b), b.dtype(), cols(b)},
         {bytes_of(c), c.dtype(), cols(c)}, ta, tb, m, n, kk, 1, 1.0, beta);
  }

  // Head views of attention (parallelism-reference: per (sequence i, head j) at
  // (i·heads + j)·3d in the fused QKV output, rows strided by b·3·heads·d).
  struct Heads {
    const AttentionShape& s;
    std::int64_t batch() const { return s.micro_batch * s.heads; }
    Operand qkv(const Tensor& t, int which) const {
      return {bytes_of(t) + which * s.head_dim * t.element_bytes(), t.dtype(),
              s.micro_batch * 3 * s.heads * s.head_dim, 3 * s.head_dim};
    }
    Operand ctx(const Tensor& t) const {
      return {bytes_of(t), t.dtype(), s.micro_batch * s.heads * s.head_dim, s.head_dim};
    }
    Operand square(const Tensor& t) const {
      return {bytes_of(t), t.dtype(), s.seq_len, s.seq_len * s.seq_len};
    }
  };
};

CudaBackend::CudaBackend(std::int64_t rank, std::vector<std::int64_t> tp_group,
                         std::vector<std::int64_t> dp_group, CudaBackendOptions options)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!gpu_available(why)) throw CudaError("no usable CUDA GPU: " + why);
  impl_->rank = rank;
  impl_->options = std::move(options);
  bind(CommGroup::tensor, std::move(tp_group));
  bind(CommGroup::data, std::move(dp_group));
  check(cudaSetDevice(impl_->options.device), "cudaSetDevice");
  // Keep freed blocks in the pool (a caching allocator) instead of returning them at syncs.
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, impl_->options.device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
        "cudaMemPoolSetAttribute");
  for (cudaStream_t& s : impl_->streams)
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  check(impl_->blas, impl_->blas.create(&impl_->cublas), "cublasCreate");
  check(cudaHostAlloc(reinterpret_cast<void**>(&impl_->gate), sizeof(int), cudaHostAllocMapped),
        "cudaHostAlloc");
  *impl_->gate = 1;
}

CudaBackend::~CudaBackend() {
  cudaDeviceSynchronize();
  for (const auto& [tensor, event] : impl_->sending)
    cudaEventDestroy(event);
  impl_->sending.clear();  // their memory is freed on the streams destroyed below
  for (const Impl::Pending& p : impl_->pending) {
    cudaEventDestroy(p.start);
    cudaEventDestroy(p.end);
  }
  if (impl_->begin_event != nullptr) cudaEventDestroy(impl_->begin_event);
  cudaFreeHost(impl_->gate);
  impl_->blas.destroy(impl_->cublas);
  for (cudaStream_t s : impl_->streams)
    cudaStreamDestroy(s);
}

void CudaBackend::bind(CommGroup group, std::vector<std::int64_t> ranks) {
  impl_->groups[static_cast<std::size_t>(group)] = std::move(ranks);
}

void CudaBackend::upload(const Tensor& t, std::span<const double> values) {
  if (static_cast<std::int64_t>(values.size()) != t.numel()) {
    throw std::invalid_argument(fmt::format("cuda backend: upload of {} values into {} elements",
                                            values.size(), t.numel()));
  }
  // Through an fp64 (or int64) staging buffer on the device, converted there.
  synchronize();  // the tensor's allocation and earlier writes are stream-ordered
  const std::size_t n = values.size();
  void* staging = nullptr;
  check(cudaMalloc(&staging, std::max<std::size_t>(n * sizeof(double), 1)), "cudaMalloc");
  if (t.element_bytes() == 8 && t.dtype() == DType::fp64) {
    // Token ids live as int64 in fp64-labelled tensors: convert on the host.
    std::vector<std::int64_t> host(values.begin(), values.end());
    check(cudaMemcpy(staging, host.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice),
          "cudaMemcpy");
    check(cudaMemcpy(bytes_of(t), staging, n * sizeof(std::int64_t), cudaMemcpyDeviceToDevice),
          "cudaMemcpy");
  } else if (t.element_bytes() == 1) {
    std::vector<std::uint8_t> host(values.begin(), values.end());
    check(cudaMemcpy(bytes_of(t), host.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy");
  } else {
    check(cudaMemcpy(staging, values.data(), n * sizeof(double), cudaMemcpyHostToDevice),
          "cudaMemcpy");
    k::convert({staging, DType::fp64}, arr(t), t.numel(), impl_->cs());
    synchronize();
  }
  cudaFree(staging);
}

std::vector<double> CudaBackend::download(const Tensor& t) {
  synchronize();
  const auto n = static_cast<std::size_t>(t.numel());
  std::vector<double> out(n);
  if (t.element_bytes() == 8 && t.dtype() == DType::fp64) {
    std::vector<std::int64_t> host(n);
    check(cudaMemcpy(host.data(), bytes_of(t), n * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::copy(host.begin(), host.end(), out.begin());
    return out;
  }
  if (t.element_bytes() == 1) {
    std::vector<std::uint8_t> host(n);
    check(cudaMemcpy(host.data(), bytes_of(t), n, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::copy(host.begin(), host.end(), out.begin());
    return out;
  }
  void* staging = nullptr;
  check(cudaMalloc(&staging, std::max<std::size_t>(n * sizeof(double), 1)), "cudaMalloc");
  k::convert(carr(t), {staging, DType::fp64}, t.numel(), impl_->cs());
  synchronize();
  check(cudaMemcpy(out.data(), staging, n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(staging);
  return out;
}

void CudaBackend::copy_flat(std::span<const Tensor> from, std::int64_t offset, const Tensor& to) {
  for_each_overlap(from, offset, offset + to.numel(),
                   [&](const Tensor& t, std::int64_t in_t, std::int64_t in_to, std::int64_t n) {
                     k::convert(carr_at(t, in_t), arr_at(to, in_to), n, impl_->cs());
                   });
}

void CudaBackend::fill_normal(const Tensor& t, double mean, double stddev, std::uint64_t seed) {
  k::fill_normal(arr(t), t.numel(), mean, stddev, seed, impl_->cs());
}

void CudaBackend::synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::optional<double> CudaBackend::host_read(const Tensor& t, program::SyncPoint point,
                                             std::string_view name) {
  if (impl_->timing) return std::nullopt;
  synchronize(point, name);
  float value = 0.0f;
  if (t.dtype() != DType::fp32) {
    throw std::invalid_argument(
        fmt::format("cuda backend: host_read of a {} tensor (fp32 only)", to_string(t.dtype())));
  }
  check(cudaMemcpy(&value, bytes_of(t), sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return value;
}

void CudaBackend::synchronize(program::SyncPoint, std::string_view) {
  if (!impl_->timing) synchronize();
}

std::string CudaBackend::device_name() const {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, impl_->options.device), "cudaGetDeviceProperties");
  return p.name;
}

void CudaBackend::start_timing(double gate_timeout_s) {
  synchronize();
  Impl& im = *impl_;
  *im.gate = 0;
  int* device_gate = nullptr;
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_gate), im.gate, 0),
        "cudaHostGetDevicePointer");
  k::hold(device_gate, gate_timeout_s, im.cs());
  if (im.begin_event == nullptr) check(cudaEventCreate(&im.begin_event), "cudaEventCreate");
  check(cudaEventRecord(im.begin_event, im.cs()), "cudaEventRecord");
  for (int s = 1; s < program::kStreamCount; ++s)
    im.wait(static_cast<Stream>(s), Stream::compute);
  im.timing = true;
}

std::vector<MeasuredOp> CudaBackend::stop_timing(double& elapsed_seconds) {
  Impl& im = *impl_;
  for (int s = 1; s < program::kStreamCount; ++s)
    im.wait(Stream::compute, static_cast<Stream>(s));
  cudaEvent_t end = nullptr;
  check(cudaEventCreate(&end), "cudaEventCreate");
  check(cudaEventRecord(end, im.cs()), "cudaEventRecord");
  *reinterpret_cast<volatile int*>(im.gate) = 1;
  synchronize();
  float ms = 0.0f;
  check(cudaEventElapsedTime(&ms, im.begin_event, end), "cudaEventElapsedTime");
  cudaEventDestroy(end);
  elapsed_seconds = ms * 1e-3;
  std::vector<MeasuredOp> out;
  out.reserve(im.pending.size());
  for (const Impl::Pending& p : im.pending) {
    float op_ms = 0.0f;
    check(cudaEventElapsedTime(&op_ms, p.start, p.end), "cudaEventElapsedTime");
    out.push_back({p.name, p.op_class, p.tag, p.stream, op_ms * 1e-3});
    cudaEventDestroy(p.start);
    cudaEventDestroy(p.end);
  }
  im.pending.clear();
  im.timing = false;
  return out;
}

std::vector<SkippedCollective> CudaBackend::skipped() const {
  std::vector<SkippedCollective> out;
  for (const auto& [key, count] : impl_->skipped)
    out.push_back({key.first, key.second, count});
  return out;
}

void CudaBackend::clear_skipped() {
  impl_->skipped.clear();
}

void CudaBackend::set_tag(const program::Tag& tag) {
  impl_->tag = tag;
}

void CudaBackend::stream_wait(Stream waiter, Stream waited) {
  impl_->wait(waiter, waited);
}

void CudaBackend::wait_for(Stream waiter, const Tensor& t) {
  // Waits for everything issued so far on the stream of the tensor's last collective: more
  // than the one collective when later ones are queued, never less.
  impl_->wait(waiter, storage_of(t).last_collective_stream);
}

Tensor CudaBackend::allocate(Shape shape, DType dtype, program::MemoryCategory, std::string_view) {
  return impl_->make_zero(shape, dtype, Stream::compute);
}

TokenBatch CudaBackend::load_micro_batch(std::int64_t index, std::int64_t tokens,
                                         std::int64_t labels) {
  Impl& im = *impl_;
  TokenBatch batch;
  if (tokens > 0) batch.tokens = im.make({1, tokens, 1}, DType::fp64);
  if (labels > 0) batch.labels = im.make({1, labels, 1}, DType::fp64);
  if (!im.options.batches.empty()) {
    const MicroBatchTokens& mb = im.options.batches.at(static_cast<std::size_t>(index));
    if (static_cast<std::int64_t>(mb.tokens.size()) != tokens ||
        static_cast<std::int64_t>(mb.labels.size()) != labels) {
      throw std::logic_error("cuda backend: micro batch has the wrong number of tokens or labels");
    }
    if (tokens > 0)
      check(cudaMemcpyAsync(bytes_of(batch.tokens), mb.tokens.data(), mb.tokens.size() * 8,
                            cudaMemcpyHostToDevice, im.cs()),
            "cudaMemcpyAsync");
    if (labels > 0)
      check(cudaMemcpyAsync(bytes_of(batch.labels), mb.labels.data(), mb.labels.size() * 8,
                            cudaMemcpyHostToDevice, im.cs()),
            "cudaMemcpyAsync");
    check(cudaStreamSynchronize(im.cs()), "cudaStreamSynchronize");  // host vectors stay ours
    return batch;
  }
  if (im.options.vocab <= 0) {
    throw std::logic_error("cuda backend: no micro batches given and no vocabulary to draw from");
  }
  const std::uint64_t seed =
      im.options.seed * 0x9e3779b97f4a7c15ULL + 2 * static_cast<std::uint64_t>(index);
  if (tokens > 0) k::fill_tokens(ids(batch.tokens), tokens, im.options.vocab, seed, im.cs());
  if (labels > 0) k::fill_tokens(ids(batch.labels), labels, im.options.vocab, seed + 1, im.cs());
  return batch;
}

// --- GEMMs -----------------------------------------------------------------------------------

Tensor CudaBackend::matmul(const Tensor& a, const Tensor& b, bool ta, bool tb,
                           std::string_view name) {
  Impl& im = *impl_;
  Tensor c = im.make({1, ta ? cols(a) : rows(a), tb ? rows(b) : cols(b)}, a.dtype());
  auto scope = im.compute(name, OpClass::gemm);
  im.matmul(a, b, ta, tb, c, 0.0);
  return c;
}

void CudaBackend::matmul_accumulate(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& c,
                                    std::string_view name) {
  auto scope = impl_->compute(name, OpClass::gemm);
  impl_->matmul(a, b, ta, tb, c, 1.0);
}

void CudaBackend::matmul_rows(const Tensor& a, std::int64_t a_part, std::int64_t a_parts,
                              const Tensor& b, bool tb, Tensor& c, std::int64_t c_part,
                              std::int64_t c_parts, std::string_view name) {
  Impl& im = *impl_;
  const std::int64_t m = rows(a) / a_parts;
  const std::int64_t n = tb ? rows(b) : cols(b);
  const std::int64_t k = cols(a);
  if (rows(a) % a_parts != 0 || rows(c) % c_parts != 0 || a_part < 0 || a_part >= a_parts ||
      c_part < 0 || c_part >= c_parts || rows(c) / c_parts != m || cols(c) != n ||
      (tb ? cols(b) : rows(b)) != k) {
    throw std::invalid_argument("cuda backend: matmul_rows: the row blocks do not match");
  }
  auto scope = im.compute(name, OpClass::gemm);
  im.gemm({bytes_of(a) + a_part * m * k * a.element_bytes(), a.dtype(), k},
          {bytes_of(b), b.dtype(), cols(b)},
          {bytes_of(c) + c_part * m * n * c.element_bytes(), c.dtype(), n}, false, tb, m, n, k, 1,
          1.0, 0.0);
}

Tensor CudaBackend::attention_scores(const Tensor& qkv, const AttentionShape& s,
                                     std::string_view name) {
  Impl& im = *impl_;
  if (s.kv_heads != s.heads) not_on_cuda("grouped-query attention");
  const Impl::Heads h{s};
  Tensor scores = im.make({s.micro_batch * s.heads, s.seq_len, s.seq_len}, qkv.dtype());
  auto scope = im.compute(name, OpClass::gemm);
  im.gemm(h.qkv(qkv, 0), h.qkv(qkv, 1), h.square(scores), false, true, s.seq_len, s.seq_len,
          s.head_dim, h.batch(), 1.0 / std::sqrt(static_cast<double>(s.head_dim)), 0.0);
  return scores;
}

Tensor CudaBackend::attention_context(const Tensor& probs, const Tensor& qkv,
                                      const AttentionShape& s, std::string_view name) {
  Impl& im = *impl_;
  const Impl::Heads h{s};
  Tensor ctx = im.make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype());
  auto scope = im.compute(name, OpClass::gemm);
  im.gemm(h.square(probs), h.qkv(qkv, 2), h.ctx(ctx), false, false, s.seq_len, s.head_dim,
          s.seq_len, h.batch(), 1.0, 0.0);
  return ctx;
}

Tensor CudaBackend::attention_context_backward(const Tensor& dctx, const Tensor& probs,
                                               const Tensor& qkv, Tensor& dqkv,
                                               const AttentionShape& s, std::string_view name) {
  Impl& im = *impl_;
  const Impl::Heads h{s};
  Tensor dprobs = im.make(probs.shape(), probs.dtype());
  auto scope = im.compute(name, OpClass::gemm);
  // dP = dO·Vᵀ, dV = Pᵀ·dO.
  im.gemm(h.ctx(dctx), h.qkv(qkv, 2), h.square(dprobs), false, true, s.seq_len, s.seq_len,
          s.head_dim, h.batch(), 1.0, 0.0);
  im.gemm(h.square(probs), h.ctx(dctx), h.qkv(dqkv, 2), true, false, s.seq_len, s.head_dim,
          s.seq_len, h.batch(), 1.0, 0.0);
  return dprobs;
}

void CudaBackend::attention_scores_backward(const Tensor& dscores, const Tensor& qkv, Tensor& dqkv,
                                            const AttentionShape& s, std::string_view name) {
  Impl& im = *impl_;
  const Impl::Heads h{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  auto scope = im.compute(name, OpClass::gemm);
  // dQ = dS·K/√d, dK = dSᵀ·Q/√d.
  im.gemm(h.square(dscores), h.qkv(qkv, 1), h.qkv(dqkv, 0), false, false, s.seq_len, s.head_dim,
          s.seq_len, h.batch(), scale, 0.0);
  im.gemm(h.square(dscores), h.qkv(qkv, 0), h.qkv(dqkv, 1), true, false, s.seq_len, s.head_dim,
          s.seq_len, h.batch(), scale, 0.0);
}

// --- memory-bound kernels --------------------------------------------------------------------

LayerNormResult CudaBackend::layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                        std::string_view name) {
  Impl& im = *impl_;
  LayerNormResult r{im.make(x.shape(), x.dtype()), im.make({1, rows(x), 2}, DType::fp32)};
  auto scope = im.compute(name);
  k::layer_norm(carr(x), carr(gamma), carr(beta), arr(r.y), f32(r.stats), rows(x), cols(x),
                im.cs());
  return r;
}

Tensor CudaBackend::layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                        const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                        std::string_view name) {
  Impl& im = *impl_;
  Tensor sums = im.make({1, rows(x), 2}, DType::fp32);
  Tensor dx = im.make(x.shape(), x.dtype());
  auto scope = im.compute(name);
  k::layer_norm_backward_sums(carr(dy), carr(x), carr(gamma), f32(stats), f32(sums), rows(x),
                              cols(x), cols(x), im.cs());
  k::layer_norm_parameter_grads(carr(dy), carr(x), f32(stats), arr(dgamma), arr(dbeta), rows(x),
                                cols(x), im.cs());
  k::layer_norm_backward_apply(carr(dy), carr(x), carr(gamma), f32(stats), f32(sums), arr(dx),
                               rows(x), cols(x), im.cs());
  return dx;
}

Tensor CudaBackend::layer_norm_partial_mean(const Tensor& x, std::int64_t hidden,
                                            std::string_view name) {
  Impl& im = *impl_;
  Tensor mean = im.make({1, rows(x), 1}, DType::fp32);
  auto scope = im.compute(name);
  k::layer_norm_partial_mean(carr(x), f32(mean), rows(x), cols(x), hidden, im.cs());
  return mean;
}

Tensor CudaBackend::layer_norm_partial_variance(const Tensor& x, const Tensor& mean,
                                                std::int64_t hidden, std::string_view name) {
  Impl& im = *impl_;
  Tensor var = im.make(mean.shape(), DType::fp32);
  auto scope = im.compute(name);
  k::layer_norm_partial_variance(carr(x), f32(mean), f32(var), rows(x), cols(x), hidden, im.cs());
  return var;
}

LayerNormResult CudaBackend::layer_norm_apply(const Tensor& x, const Tensor& gamma,
                                              const Tensor& beta, const Tensor& mean,
                                              const Tensor& var, std::string_view name) {
  Impl& im = *impl_;
  LayerNormResult r{im.make(x.shape(), x.dtype()), im.make({1, rows(x), 2}, DType::fp32)};
  auto scope = im.compute(name);
  k::layer_norm_apply(carr(x), carr(gamma), carr(beta), f32(mean), f32(var), arr(r.y), f32(r.stats),
                      rows(x), cols(x), im.cs());
  return r;
}

Tensor CudaBackend::layer_norm_backward_partial(const Tensor& dy, const Tensor& x,
                                                const Tensor& gamma, const Tensor& stats,
                                                Tensor& dgamma, Tensor& dbeta, std::int64_t hidden,
                                                std::string_view name) {
  Impl& im = *impl_;
  Tensor sums = im.make({1, rows(x), 2}, DType::fp32);
  auto scope = im.compute(name);
  k::layer_norm_backward_sums(carr(dy), carr(x), carr(gamma), f32(stats), f32(sums), rows(x),
                              cols(x), hidden, im.cs());
  k::layer_norm_parameter_grads(carr(dy), carr(x), f32(stats), arr(dgamma), arr(dbeta), rows(x),
                                cols(x), im.cs());
  return sums;
}

Tensor CudaBackend::layer_norm_backward_apply(const Tensor& dy, const Tensor& x,
                                              const Tensor& gamma, const Tensor& stats,
                                              const Tensor& sums, std::string_view name) {
  Impl& im = *impl_;
  Tensor dx = im.make(x.shape(), x.dtype());
  auto scope = im.compute(name);
  k::layer_norm_backward_apply(carr(dy), carr(x), carr(gamma), f32(stats), f32(sums), arr(dx),
                               rows(x), cols(x), im.cs());
  return dx;
}

void CudaBackend::add_bias(Tensor& x, const Tensor& bias, std::string_view name) {
  auto scope = impl_->compute(name);
  k::add_bias(arr(x), carr(bias), rows(x), cols(x), impl_->cs());
}

void CudaBackend::bias_grad(const Tensor& dy, Tensor& dbias, std::string_view name) {
  auto scope = impl_->compute(name);
  k::column_sums_accumulate(carr(dy), arr(dbias), rows(dy), cols(dy), impl_->cs());
}

Tensor CudaBackend::bias_gelu(const Tensor& x, const Tensor& bias, std::string_view name) {
  Impl& im = *impl_;
  Tensor y = im.make(x.shape(), x.dtype());
  auto scope = im.compute(name);
  k::bias_gelu(carr(x), carr(bias), arr(y), rows(x), cols(x), im.cs());
  return y;
}

Tensor CudaBackend::bias_gelu_backward(const Tensor& dy, const Tensor& x, const Tensor& bias,
                                       Tensor& dbias, std::string_view name) {
  Impl& im = *impl_;
  Tensor dx = im.make(x.shape(), x.dtype());
  auto scope = im.compute(name);
  k::bias_gelu_backward(carr(dy), carr(x), carr(bias), arr(dx), rows(x), cols(x), im.cs());
  k::column_sums_accumulate(carr(dx), arr(dbias), rows(x), cols(x), im.cs());
  return dx;
}

Tensor CudaBackend::bias_add_residual(const Tensor& x, const Tensor& bias,
                                      const Tensor& residual, std::string_view name) {
  Impl& im = *impl_;
  Tensor y = im.make(x.shape(), x.dtype());
  auto scope = im.compute(name);
  k::dropout(carr(x), optional_carr(&bias), carr(residual), arr(y), nullptr, 0.0,
             im.options.seed, im.dropout_counter, rows(x), cols(x), im.cs());
  return y;
}

Tensor CudaBackend::context_kv(const Tensor&, const AttentionShape&, std::string_view name) {
  not_on_cuda(name);
}
FlashAttentionResult CudaBackend::flash_attention_block(const Tensor&, const Tensor&,
                                                        const AttentionShape&, ContextBlock,
                                                        std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::merge_attention(FlashAttentionResult&, const FlashAttentionResult&,
                                  const AttentionShape&, std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::flash_attention_block_backward(const Tensor&, const Tensor&, const Tensor&,
                                                 const Tensor&, const Tensor&, Tensor&, Tensor&,
                                                 const AttentionShape&, ContextBlock,
                                                 std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::context_kv_backward(const Tensor&, Tensor&, const AttentionShape&,
                                      std::string_view name) {
  not_on_cuda(name);
}
FlashAttentionResult CudaBackend::flash_attention(const Tensor&, const AttentionShape&, double,
                                                  std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::flash_attention_backward(const Tensor&, const Tensor&, const Tensor&,
                                           const Tensor&, Tensor&, const AttentionShape&, double,
                                           std::string_view name) {
  not_on_cuda(name);
}
LayerNormResult CudaBackend::qk_rms_norm(const Tensor&, const Tensor&, const Tensor&,
                                         const AttentionShape&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::qk_rms_norm_backward(const Tensor&, const Tensor&, const Tensor&,
                                         const Tensor&, const Tensor&, Tensor&, Tensor&,
                                         const AttentionShape&, std::string_view name) {
  not_on_cuda(name);
}
LayerNormResult CudaBackend::rms_norm(const Tensor&, const Tensor&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::rms_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                      Tensor&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::swiglu(const Tensor&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::swiglu_backward(const Tensor&, const Tensor&, std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::rope(Tensor&, const AttentionShape&, double, bool, std::string_view name) {
  not_on_cuda(name);
}

DropoutResult CudaBackend::bias_dropout_add(const Tensor& x, const Tensor& bias,
                                            const Tensor& residual, double p,
                                            std::string_view name) {
  Impl& im = *impl_;
  DropoutResult r{im.make(x.shape(), x.dtype()), im.make_mask(x.shape())};
  auto scope = im.compute(name);
  k::dropout(carr(x), optional_carr(&bias), carr(residual), arr(r.y), mask_bytes(r.mask), p,
             im.options.seed, im.dropout_counter, rows(x), cols(x), im.cs());
  im.dropout_counter += static_cast<std::uint64_t>(x.numel());
  return r;
}

DropoutResult CudaBackend::dropout(const Tensor& x, double p, std::string_view name) {
  Impl& im = *impl_;
  DropoutResult r{im.make(x.shape(), x.dtype()), im.make_mask(x.shape())};
  auto scope = im.compute(name);
  k::dropout(carr(x), optional_carr(nullptr), optional_carr(nullptr), arr(r.y), mask_bytes(r.mask),
             p, im.options.seed, im.dropout_counter, rows(x), cols(x), im.cs());
  im.dropout_counter += static_cast<std::uint64_t>(x.numel());
  return r;
}

Tensor CudaBackend::dropout_backward(const Tensor& dy, const Tensor& mask, double p, Tensor* dbias,
                                     std::string_view name) {
  Impl& im = *impl_;
  Tensor dx = im.make(dy.shape(), dy.dtype());
  auto scope = im.compute(name);
  k::dropout_backward(carr(dy), mask_bytes(mask), arr(dx), p, dy.numel(), im.cs());
  if (dbias != nullptr)
    k::column_sums_accumulate(carr(dx), arr(*dbias), rows(dy), cols(dy), im.cs());
  return dx;
}

Tensor CudaBackend::softmax(const Tensor& scores, std::string_view name) {
  Impl& im = *impl_;
  Tensor probs = im.make(scores.shape(), scores.dtype());
  auto scope = im.compute(name);
  k::causal_softmax(carr(scores), arr(probs), rows(scores), cols(scores), im.cs());
  return probs;
}

Tensor CudaBackend::softmax_backward(const Tensor& dprobs, const Tensor& probs,
                                     std::string_view name) {
  Impl& im = *impl_;
  Tensor dscores = im.make(probs.shape(), probs.dtype());
  auto scope = im.compute(name);
  k::softmax_backward(carr(dprobs), carr(probs), arr(dscores), rows(probs), cols(probs), im.cs());
  return dscores;
}

void CudaBackend::accumulate(Tensor& dst, const Tensor& src, std::string_view name) {
  auto scope = impl_->compute(name);
  k::accumulate(arr(dst), carr(src), dst.numel(), impl_->cs());
}

Tensor CudaBackend::embedding_lookup(const Tensor& tokens, const Tensor& table,
                                     std::int64_t vocab_begin, std::string_view name) {
  Impl& im = *impl_;
  Tensor out = im.make({1, tokens.numel(), cols(table)}, table.dtype());
  auto scope = im.compute(name);
  k::embedding_lookup(ids(tokens), carr(table), arr(out), tokens.numel(), rows(table), cols(table),
                      vocab_begin, im.cs());
  return out;
}

void CudaBackend::add_position_embedding(Tensor& x, const Tensor& table, std::int64_t micro_batch,
                                         std::int64_t first_position, std::string_view name) {
  auto scope = impl_->compute(name);
  k::add_position_embedding(arr(x), carr(table), rows(x), cols(x), micro_batch, first_position,
                            impl_->cs());
}

void CudaBackend::embedding_backward(const Tensor& dy, const Tensor& tokens,
                                     std::int64_t vocab_begin, Tensor& dtable,
                                     std::string_view name) {
  auto scope = impl_->compute(name);
  k::embedding_backward(carr(dy), ids(tokens), arr(dtable), rows(dy), rows(dtable), cols(dy),
                        vocab_begin, impl_->cs());
}

void CudaBackend::position_embedding_backward(const Tensor& dy, std::int64_t micro_batch,
                                              std::int64_t first_position, Tensor& dtable,
                                              std::string_view name) {
  auto scope = impl_->compute(name);
  k::position_embedding_backward(carr(dy), arr(dtable), rows(dy), cols(dy), micro_batch,
                                 first_position, impl_->cs());
}

Fp8Tensor CudaBackend::quantize_fp8(const Tensor&, Fp8Recipe, program::MemoryCategory,
                                    std::string_view name) {
  not_on_cuda(name);
}

Tensor CudaBackend::cast(const Tensor& x, DType dtype, std::string_view name) {
  Impl& im = *impl_;
  Tensor y = im.make(x.shape(), dtype);
  auto scope = im.compute(name);
  k::convert(carr(x), arr(y), x.numel(), im.cs());
  return y;
}

// --- cross entropy ---------------------------------------------------------------------------

Tensor CudaBackend::row_max(const Tensor& logits, std::string_view name) {
  Impl& im = *impl_;
  Tensor max = im.make({1, rows(logits), 1}, DType::fp32);
  auto scope = im.compute(name);
  k::row_max(carr(logits), f32(max), rows(logits), cols(logits), im.cs());
  return max;
}

CrossEntropyStats CudaBackend::cross_entropy_stats(Tensor& logits, const Tensor& max,
                                                   const Tensor& labels, std::int64_t vocab_begin,
                                                   std::string_view name) {
  Impl& im = *impl_;
  CrossEntropyStats r{im.make(max.shape(), DType::fp32), im.make(max.shape(), DType::fp32)};
  auto scope = im.compute(name);
  k::cross_entropy_stats(arr(logits), f32(max), ids(labels), f32(r.target_logit), f32(r.sum_exp),
                         rows(logits), cols(logits), vocab_begin, im.cs());
  return r;
}

Tensor CudaBackend::cross_entropy_loss(Tensor& exp_logits, const CrossEntropyStats& stats,
                                       double scale, std::string_view name) {
  Impl& im = *impl_;
  Tensor loss = im.make({1, 1, 1}, DType::fp32);
  Tensor row_loss = im.make({1, rows(exp_logits), 1}, DType::fp32);
  auto scope = im.compute(name);
  k::cross_entropy_loss(arr(exp_logits), f32(stats.sum_exp), f32(stats.target_logit), f32(row_loss),
                        f32(loss), scale, rows(exp_logits), cols(exp_logits), im.cs());
  return loss;
}

void CudaBackend::cross_entropy_backward(Tensor& softmax, const Tensor& labels,
                                         std::int64_t vocab_begin, double scale,
                                         std::string_view name) {
  auto scope = impl_->compute(name);
  k::cross_entropy_backward(arr(softmax), ids(labels), scale, rows(softmax), cols(softmax),
                            vocab_begin, impl_->cs());
}

// --- collectives: a group of one here, others through NCCL or skipped ---------------------------

void CudaBackend::all_reduce(std::span<const Tensor> tensors, CommGroup group, ReduceOp op,
                             Stream stream, std::string_view name) {
  Impl& im = *impl_;
  Impl::mark(tensors, stream);
  // A group of one: the reduction is the tensor itself.
  if (im.route(group, name) != Impl::Route::nccl) return;
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream);
  // The fused message as one NCCL group: one launch, whatever the tensors' dtypes.
  check(ncclGroupStart(), "ncclGroupStart");
  for (const Tensor& t : tensors) {
    check(ncclAllReduce(bytes_of(t), bytes_of(t), static_cast<std::size_t>(t.numel()),
                        nccl_type(t.dtype()), op == ReduceOp::max ? ncclMax : ncclSum,
                        im.communicator(group), im.stream(stream)),
          "ncclAllReduce");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
}

Tensor CudaBackend::ring_shift(const Tensor&, CommGroup, Stream, std::string_view) {
  not_on_cuda("TP communication overlap's ring exchange (parallel.tensor.comm_overlap)");
}

Tensor CudaBackend::all_gather(const Tensor& x, CommGroup group, Stream stream,
                               std::string_view name) {
  Impl& im = *impl_;
  const std::int64_t n = im.size_of(group);
  Shape shape = x.shape();
  shape.rows *= n;
  const Impl::Route route = im.route(group, name);
  Tensor y = route == Impl::Route::skipped ? im.make_zero(shape, x.dtype(), Stream::compute)
                                           : im.make(shape, x.dtype());
  storage_of(y).last_collective_stream = stream;
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream, route != Impl::Route::skipped);
  if (route == Impl::Route::nccl) {
    check(ncclAllGather(bytes_of(x), bytes_of(y), static_cast<std::size_t>(x.numel()),
                        nccl_type(x.dtype()), im.communicator(group), im.stream(stream)),
          "ncclAllGather");
    return y;
  }
  // This member's rows land at its position; with absent members the rest stays zero.
  k::convert(carr(x), arr_at(y, im.position_in(group) * x.numel()), x.numel(), im.stream(stream));
  return y;
}

Tensor CudaBackend::reduce_scatter(const Tensor& x, CommGroup group, Stream stream,
                                   std::string_view name) {
  Impl& im = *impl_;
  const std::int64_t n = im.size_of(group);
  Shape shape = x.shape();
  shape.rows /= n;
  Tensor y = im.make(shape, x.dtype());
  storage_of(y).last_collective_stream = stream;
  const Impl::Route route = im.route(group, name);
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream, route != Impl::Route::skipped);
  if (route == Impl::Route::nccl) {
    check(
        ncclReduceScatter(bytes_of(x), bytes_of(y), static_cast<std::size_t>(y.numel()),
                          nccl_type(x.dtype()), ncclSum, im.communicator(group), im.stream(stream)),
        "ncclReduceScatter");
    return y;
  }
  k::convert(carr_at(x, im.position_in(group) * y.numel()), arr(y), y.numel(), im.stream(stream));
  return y;
}

Tensor CudaBackend::broadcast(const Tensor& x, CommGroup group, std::int64_t root, Stream stream,
                              std::string_view name) {
  Impl& im = *impl_;
  Tensor y = im.make(x.shape(), x.dtype());
  storage_of(y).last_collective_stream = stream;
  const Impl::Route route = im.route(group, name);
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream, route != Impl::Route::skipped);
  if (route == Impl::Route::nccl) {
    check(ncclBroadcast(bytes_of(x), bytes_of(y), static_cast<std::size_t>(x.numel()),
                        nccl_type(x.dtype()), static_cast<int>(root), im.communicator(group),
                        im.stream(stream)),
          "ncclBroadcast");
    return y;
  }
  k::convert(carr(x), arr(y), x.numel(), im.stream(stream));
  return y;
}

void CudaBackend::reduce(Tensor& x, CommGroup group, std::int64_t root, Stream stream,
                         std::string_view name) {
  Impl& im = *impl_;
  storage_of(x).last_collective_stream = stream;
  if (im.route(group, name) != Impl::Route::nccl) return;
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream);
  check(ncclReduce(bytes_of(x), bytes_of(x), static_cast<std::size_t>(x.numel()),
                   nccl_type(x.dtype()), ncclSum, static_cast<int>(root), im.communicator(group),
                   im.stream(stream)),
        "ncclReduce");
}

void CudaBackend::reduce_scatter_flat(std::span<const Tensor> tensors, CommGroup group,
                                      Stream stream, std::string_view name) {
  Impl& im = *impl_;
  Impl::mark(tensors, stream);
  // A group of one: this member's chunk keeps its local values.
  if (im.route(group, name) != Impl::Route::nccl || tensors.empty()) return;
  const std::int64_t c = im.chunk_of(tensors, group);
  const std::int64_t begin = im.position_in(group) * c;
  // The first tensor's dtype for the message (the gradient buffer's: one dtype throughout).
  const Tensor flat = im.flat(c * im.size_of(group), tensors.front().dtype());
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream);
  im.pack(tensors, flat, stream);
  // In place: NCCL's receive buffer is the sender's own chunk.
  check(ncclReduceScatter(bytes_of(flat), bytes_of(flat) + begin * flat.element_bytes(),
                          static_cast<std::size_t>(c), nccl_type(flat.dtype()), ncclSum,
                          im.communicator(group), im.stream(stream)),
        "ncclReduceScatter");
  im.unpack(flat, tensors, begin, begin + c, stream);
}

void CudaBackend::all_gather_flat(std::span<const Tensor> tensors, CommGroup group, Stream stream,
                                  std::string_view name) {
  Impl& im = *impl_;
  Impl::mark(tensors, stream);
  // A group of one: this member's chunk is already in place.
  if (im.route(group, name) != Impl::Route::nccl || tensors.empty()) return;
  const std::int64_t c = im.chunk_of(tensors, group);
  const std::int64_t begin = im.position_in(group) * c;
  const Tensor flat = im.flat(c * im.size_of(group), tensors.front().dtype());
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream);
  im.pack(tensors, flat, stream);
  check(ncclAllGather(bytes_of(flat) + begin * flat.element_bytes(), bytes_of(flat),
                      static_cast<std::size_t>(c), nccl_type(flat.dtype()), im.communicator(group),
                      im.stream(stream)),
        "ncclAllGather");
  im.unpack(flat, tensors, 0, total_numel(tensors), stream);
}

void CudaBackend::reduce_scatter_accumulate(std::span<const Tensor> tensors, Tensor& shard,
                                            CommGroup group, Stream stream, std::string_view name) {
  Impl& im = *impl_;
  Impl::mark(std::span<const Tensor>(&shard, 1), stream);
  if (im.route(group, name) == Impl::Route::nccl && !tensors.empty()) {
    const std::int64_t c = shard.numel();
    const std::int64_t begin = im.position_in(group) * c;
    const Tensor flat = im.flat(c * im.size_of(group), tensors.front().dtype());
    const Impl::SideStream side(im, stream);
    const Impl::Scope scope(im, name, OpClass::collective, stream);
    im.pack(tensors, flat, stream);
    check(ncclReduceScatter(bytes_of(flat), bytes_of(flat) + begin * flat.element_bytes(),
                            static_cast<std::size_t>(c), nccl_type(flat.dtype()), ncclSum,
                            im.communicator(group), im.stream(stream)),
          "ncclReduceScatter");
    k::accumulate(arr(shard), carr_at(flat, begin), c, im.stream(stream));
    return;
  }
  // shard += this member's chunk of the concatenation (the sum over a group of one; the
  // local part alone when the others are absent).
  im.member_chunk(tensors, shard, group, stream, name,
                  [&](const Tensor& t, std::int64_t in_t, std::int64_t in_shard, std::int64_t n) {
                    k::accumulate(arr_at(shard, in_shard), carr_at(t, in_t), n, im.stream(stream));
                  });
}

void CudaBackend::all_gather_shards(const Tensor& shard, std::span<const Tensor> tensors,
                                    CommGroup group, Stream stream, std::string_view name) {
  Impl& im = *impl_;
  Impl::mark(tensors, stream);
  if (im.route(group, name) == Impl::Route::nccl) {
    const std::int64_t c = shard.numel();
    const Tensor flat = im.flat(c * im.size_of(group), shard.dtype());
    const Impl::SideStream side(im, stream);
    const Impl::Scope scope(im, name, OpClass::collective, stream);
    check(ncclAllGather(bytes_of(shard), bytes_of(flat), static_cast<std::size_t>(c),
                        nccl_type(shard.dtype()), im.communicator(group), im.stream(stream)),
          "ncclAllGather");
    im.unpack(flat, tensors, 0, total_numel(tensors), stream);
    return;
  }
  im.member_chunk(tensors, shard, group, stream, name,
                  [&](const Tensor& t, std::int64_t in_t, std::int64_t in_shard, std::int64_t n) {
                    k::convert(carr_at(shard, in_shard), arr_at(t, in_t), n, im.stream(stream));
                  });
}

void CudaBackend::send(const Tensor& x, std::int64_t part, std::int64_t parts, std::int64_t peer,
                       Stream stream, std::string_view name) {
  Impl& im = *impl_;
  const NcclComm comm = im.options.nccl != nullptr ? im.options.nccl->to(peer) : nullptr;
  if (comm == nullptr) {
    im.skip_p2p(name);
    return;
  }
  im.release_sent();
  const std::int64_t count = x.numel() / parts;
  // After the data is written; the compute stream does not wait for the send (a send is
  // buffered on the cpu too): `x` stays alive until its send completes instead.
  im.wait(stream, Stream::compute);
  {
    const Impl::Scope scope(im, name, OpClass::collective, stream);
    check(ncclSend(bytes_of(x) + part * count * x.element_bytes(), static_cast<std::size_t>(count),
                   nccl_type(x.dtype()), 1, comm, im.stream(stream)),
          "ncclSend");
  }
  cudaEvent_t done = nullptr;
  check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(done, im.stream(stream)), "cudaEventRecord");
  im.sending.emplace_back(x, done);
}

Tensor CudaBackend::recv(Shape shape, DType dtype, std::int64_t peer, Stream stream,
                         std::string_view name) {
  Impl& im = *impl_;
  const NcclComm comm = im.options.nccl != nullptr ? im.options.nccl->from(peer) : nullptr;
  if (comm == nullptr) {
    im.skip_p2p(name);
    Tensor y = im.make_zero(shape, dtype, Stream::compute);
    storage_of(y).last_collective_stream = stream;
    return y;
  }
  Tensor y = im.make(shape, dtype);
  storage_of(y).last_collective_stream = stream;
  const Impl::SideStream side(im, stream);
  const Impl::Scope scope(im, name, OpClass::collective, stream);
  check(ncclRecv(bytes_of(y), static_cast<std::size_t>(y.numel()), nccl_type(dtype), 0, comm,
                 im.stream(stream)),
        "ncclRecv");
  return y;
}

// --- optimizer -------------------------------------------------------------------------------

void CudaBackend::zero(std::span<const Tensor> tensors, std::string_view name) {
  Impl& im = *impl_;
  auto scope = im.compute(name);
  for (const Tensor& t : tensors)
    check(cudaMemsetAsync(bytes_of(t), 0, static_cast<std::size_t>(t.bytes().count()), im.cs()),
          "cudaMemsetAsync");
}

void CudaBackend::adam_step(std::span<const AdamTensors> tensors, const AdamHyper& hyper,
                            std::string_view name) {
  Impl& im = *impl_;
  const k::AdamConstants c = adam_constants(hyper);
  auto scope = im.compute(name);
  // One launch per tensor (not yet Apex's multi-tensor apply), then the copies into the
  // model-dtype parameters.
  for (const AdamTensors& t : tensors)
    k::adam(f32(t.master), f32(t.m), f32(t.v), carr(t.grad), t.master.numel(), c, im.cs());
  for (const AdamTensors& t : tensors)
    k::convert(carr(t.master), arr(t.param), t.param.numel(), im.cs());
}

void CudaBackend::adam_step_flat(std::span<const Tensor> params, std::span<const Tensor> grads,
                                 std::int64_t grad_offset, const Tensor& master, const Tensor& m,
                                 const Tensor& v, std::int64_t offset, const AdamHyper& hyper,
                                 std::string_view name) {
  Impl& im = *impl_;
  const k::AdamConstants c = adam_constants(hyper);
  // Elements past the parameters' end are padding: no Adam for them, as on the cpu.
  const std::int64_t n = std::clamp<std::int64_t>(total_numel(params) - offset, 0, master.numel());
  auto scope = im.compute(name);
  for_each_overlap(
      grads, grad_offset, grad_offset + n,
      [&](const Tensor& g, std::int64_t in_g, std::int64_t in_shard, std::int64_t count) {
        k::adam(f32(master) + in_shard, f32(m) + in_shard, f32(v) + in_shard, carr_at(g, in_g),
                count, c, im.cs());
      });
  for_each_overlap(
      params, offset, offset + n,
      [&](const Tensor& p, std::int64_t in_p, std::int64_t in_shard, std::int64_t count) {
        k::convert(carr_at(master, in_shard), arr_at(p, in_p), count, im.cs());
      });
}

Tensor CudaBackend::sum_of_squares(std::span<const TensorRange> ranges, std::string_view name) {
  Impl& im = *impl_;
  Tensor sum = im.make_zero({1, 1, 1}, DType::fp32, Stream::compute);
  const Tensor partial = im.make({1, k::kSquaresBlocks, 1}, DType::fp32);
  auto scope = im.compute(name);
  for (const TensorRange& r : ranges)
    k::sum_of_squares_accumulate(carr_at(r.tensor, r.offset), r.count, f32(partial), f32(sum),
                                 im.cs());
  return sum;
}

void CudaBackend::scale(std::span<const TensorRange> ranges, double factor, std::string_view name) {
  Impl& im = *impl_;
  auto scope = im.compute(name);
  for (const TensorRange& r : ranges)
    k::scale(arr_at(r.tensor, r.offset), r.count, factor, im.cs());
}

Tensor CudaBackend::unscale_and_check(std::span<const TensorRange> ranges, double inv_scale,
                                      std::string_view name) {
  Impl& im = *impl_;
  Tensor found_inf = im.make_zero({1, 1, 1}, DType::fp32, Stream::compute);
  auto scope = im.compute(name);
  for (const TensorRange& r : ranges)
    k::unscale_and_check(arr_at(r.tensor, r.offset), r.count, inv_scale, f32(found_inf), im.cs());
  return found_inf;
}

}  // namespace trainsim::cuda

// Mixture of experts: not on cuda yet (the meta and cpu backends run it).
namespace trainsim::cuda {
MoeRouting CudaBackend::route(const Tensor&, const RouterSpec&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::route_backward(const Tensor&, const MoeRouting&, std::int64_t, DType,
                                   std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::permute_tokens(const Tensor&, const MoeRouting&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::permute_tokens_backward(const Tensor&, const MoeRouting&,
                                            std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::unpermute_tokens(const Tensor&, const MoeRouting&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::unpermute_tokens_backward(const Tensor&, const Tensor&, const MoeRouting&,
                                              Tensor&, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::sort_chunks(const Tensor&, std::span<const std::int64_t>,
                                std::span<const std::int64_t>, std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::grouped_matmul(const Tensor&, const Tensor&, std::span<const std::int64_t>,
                                   bool, std::string_view name) {
  not_on_cuda(name);
}
void CudaBackend::grouped_matmul_weight_grad(const Tensor&, const Tensor&,
                                             std::span<const std::int64_t>, Tensor&,
                                             std::string_view name) {
  not_on_cuda(name);
}
Tensor CudaBackend::all_to_all(const Tensor&, std::span<const std::int64_t>,
                               std::span<const std::int64_t>, CommGroup, program::Stream,
                               std::string_view name) {
  not_on_cuda(name);
}
std::vector<std::int64_t> CudaBackend::gather_counts(const MoeRouting&, CommGroup,
                                                     std::string_view name) {
  not_on_cuda(name);
}
}  // namespace trainsim::cuda
