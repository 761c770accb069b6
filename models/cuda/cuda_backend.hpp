#pragma once
// The cuda backend: the executor's calls on one NVIDIA GPU. cuBLAS GEMMs (bf16/fp16 with fp32
// accumulation, fp32, tf32; attention as strided-batched GEMMs over b·heads), our kernels for
// the memory-bound calls (kernels.hpp), one CUDA stream per program::Stream with events for
// stream_wait / wait_for, device memory from CUDA's stream-ordered pool (a caching allocator:
// freed blocks stay in the pool). CUDA types stay behind a pimpl, so including this header
// needs no CUDA headers.
//
// Collectives: a group of one is computed locally with the semantics of backend.hpp. A group
// with other members runs through NCCL when the options carry this rank's communicators
// (nccl_communicator.hpp: ranks as threads, one GPU each), on the group's stream; without
// them (one process driving one GPU of a larger plan) the call is not run: it is counted in
// skipped(), and its outputs hold this rank's own part only (an all-gather's other rows and a
// received tensor are zero).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/backend.hpp"
#include "models/cpu_backend.hpp"  // MicroBatchTokens
#include "models/cuda/nccl_communicator.hpp"
#include "models/measured_run.hpp"

namespace trainsim::cuda {

struct CudaBackendOptions {
  /// This rank's micro batches; when empty, token ids and labels are drawn uniformly from
  /// [0, vocab) per micro batch from `seed`.
  std::vector<MicroBatchTokens> batches;
  std::int64_t vocab = 0;
  std::uint64_t seed = 1;  ///< dropout masks and drawn tokens
  int device = 0;
  /// This rank's NCCL communicators (owned by the launcher, outliving the backend), or null:
  /// collectives over groups with other members are then skipped and counted.
  const NcclCommunicators* nccl = nullptr;
};

class CudaBackend final : public Backend {
 public:
  /// `tp_group` and `dp_group` list world ranks and contain `rank` (as CpuBackend's).
  /// Throws CudaError when no GPU is usable.
  CudaBackend(std::int64_t rank, std::vector<std::int64_t> tp_group,
              std::vector<std::int64_t> dp_group, CudaBackendOptions options);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  void bind(CommGroup group, std::vector<std::int64_t> ranks);

  /// Copies host values into / out of a tensor made by this backend (converted to and from
  /// its dtype; token tensors hold int64 ids). Both wait for the device.
  void upload(const Tensor& t, std::span<const double> values);
  std::vector<double> download(const Tensor& t);
  /// to[i] = (concatenation of `from`)[offset + i] for the elements that exist (a master
  /// weight shard initialised from the parameters it covers).
  void copy_flat(std::span<const Tensor> from, std::int64_t offset, const Tensor& to);
  /// Fills a tensor with Normal(mean, stddev) values (initial weights).
  void fill_normal(const Tensor& t, double mean, double stddev, std::uint64_t seed);
  void synchronize();
  std::string device_name() const;

  /// From now on every call is timed with cudaEvents on its stream. The device is first held
  /// by a gate kernel until the host has issued the iteration (or `gate_timeout_s` passed),
  /// so that launch gaps of the host do not count as op time.
  void start_timing(double gate_timeout_s = 2.0);
  /// Opens the gate, waits for the device, returns the calls in issue order and the time
  /// from the gate to the end of the last op on any stream.
  std::vector<MeasuredOp> stop_timing(double& elapsed_seconds);
  /// Collectives skipped since construction (or the last clear), per name and group.
  std::vector<SkippedCollective> skipped() const;
  void clear_skipped();

  void set_tag(const program::Tag& tag) override;
  void stream_wait(program::Stream waiter, program::Stream waited) override;
  void wait_for(program::Stream waiter, const Tensor& t) override;
  Tensor allocate(Shape shape, DType dtype, program::MemoryCategory category,
                  std::string_view name) override;
  void mark_saved(const Tensor&) override {}
  TokenBatch load_micro_batch(std::int64_t index, std::int64_t tokens,
                              std::int64_t labels) override;

  Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                std::string_view name) override;
  void matmul_accumulate(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                         Tensor& c, std::string_view name) override;
  void matmul_rows(const Tensor& a, std::int64_t a_part, std::int64_t a_parts, const Tensor& b,
                   bool transpose_b, Tensor& c, std::int64_t c_part, std::int64_t c_parts,
                   std::string_view name) override;
  Tensor attention_scores(const Tensor& qkv, const AttentionShape& shape,
                          std::string_view name) override;
  Tensor attention_context(const Tensor& probs, const Tensor& qkv, const AttentionShape& shape,
                           std::string_view name) override;
  Tensor attention_context_backward(const Tensor& dctx, const Tensor& probs, const Tensor& qkv,
                                    Tensor& dqkv, const AttentionShape& shape,
                                    std::string_view name) override;
  void attention_scores_backward(const Tensor& dscores, const Tensor& qkv, Tensor& dqkv,
                                 const AttentionShape& shape, std::string_view name) override;

  LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             std::string_view name) override;
  Tensor layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                             const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                             std::string_view name) override;
  Tensor layer_norm_partial_mean(const Tensor& x, std::int64_t hidden,
                                 std::string_view name) override;
  Tensor layer_norm_partial_variance(const Tensor& x, const Tensor& mean, std::int64_t hidden,
                                     std::string_view name) override;
  LayerNormResult layer_norm_apply(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                   const Tensor& mean, const Tensor& var,
                                   std::string_view name) override;
  Tensor layer_norm_backward_partial(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                     const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                     std::int64_t hidden, std::string_view name) override;
  Tensor layer_norm_backward_apply(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                   const Tensor& stats, const Tensor& sums,
                                   std::string_view name) override;
  void add_bias(Tensor& x, const Tensor& bias, std::string_view name) override;
  void bias_grad(const Tensor& dy, Tensor& dbias, std::string_view name) override;
  Tensor bias_gelu(const Tensor& x, const Tensor& bias, std::string_view name) override;
  Tensor bias_gelu_backward(const Tensor& dy, const Tensor& x, const Tensor& bias, Tensor& dbias,
                            std::string_view name) override;
  Tensor context_kv(const Tensor& qkv, const AttentionShape& shape, std::string_view name) override;
  FlashAttentionResult flash_attention_block(const Tensor& qkv, const Tensor& kv,
                                             const AttentionShape& shape, ContextBlock block,
                                             std::string_view name) override;
  void merge_attention(FlashAttentionResult& acc, const FlashAttentionResult& part,
                       const AttentionShape& shape, std::string_view name) override;
  void flash_attention_block_backward(const Tensor& dout, const Tensor& qkv, const Tensor& kv,
                                      const Tensor& out, const Tensor& lse, Tensor& dqkv,
                                      Tensor& dkv, const AttentionShape& shape, ContextBlock block,
                                      std::string_view name) override;
  void context_kv_backward(const Tensor& dkv, Tensor& dqkv, const AttentionShape& shape,
                           std::string_view name) override;
  FlashAttentionResult flash_attention(const Tensor& qkv, const AttentionShape& shape,
                                       double dropout, std::string_view name) override;
  void flash_attention_backward(const Tensor& dout, const Tensor& qkv, const Tensor& out,
                                const Tensor& lse, Tensor& dqkv, const AttentionShape& shape,
                                double dropout, std::string_view name) override;
  LayerNormResult qk_rms_norm(const Tensor& qkv, const Tensor& q_gamma, const Tensor& k_gamma,
                              const AttentionShape& shape, std::string_view name) override;
  Tensor qk_rms_norm_backward(const Tensor& dy, const Tensor& qkv, const Tensor& q_gamma,
                              const Tensor& k_gamma, const Tensor& stats, Tensor& dq_gamma,
                              Tensor& dk_gamma, const AttentionShape& shape,
                              std::string_view name) override;
  Tensor bias_add_residual(const Tensor& x, const Tensor& bias, const Tensor& residual,
                           std::string_view name) override;
  LayerNormResult rms_norm(const Tensor& x, const Tensor& gamma, std::string_view name) override;
  Tensor rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                           const Tensor& stats, Tensor& dgamma, std::string_view name) override;
  Tensor swiglu(const Tensor& x, std::string_view name) override;
  Tensor swiglu_backward(const Tensor& dy, const Tensor& x, std::string_view name) override;
  void rope(Tensor& qkv, const AttentionShape& shape, double theta, bool backward,
            std::string_view name) override;
  DropoutResult bias_dropout_add(const Tensor& x, const Tensor& bias, const Tensor& residual,
                                 double p, std::string_view name) override;
  Tensor dropout_backward(const Tensor& dy, const Tensor& mask, double p, Tensor* dbias,
                          std::string_view name) override;
  Tensor softmax(const Tensor& scores, std::string_view name) override;
  Tensor softmax_backward(const Tensor& dprobs, const Tensor& probs,
                          std::string_view name) override;
  DropoutResult dropout(const Tensor& x, double p, std::string_view name) override;
  void accumulate(Tensor& dst, const Tensor& src, std::string_view name) override;
  Tensor embedding_lookup(const Tensor& tokens, const Tensor& table, std::int64_t vocab_begin,
                          std::string_view name) override;
  void add_position_embedding(Tensor& x, const Tensor& table, std::int64_t micro_batch,
                              std::int64_t first_position, std::string_view name) override;
  void embedding_backward(const Tensor& dy, const Tensor& tokens, std::int64_t vocab_begin,
                          Tensor& dtable, std::string_view name) override;
  void position_embedding_backward(const Tensor& dy, std::int64_t micro_batch,
                                   std::int64_t first_position, Tensor& dtable,
                                   std::string_view name) override;
  Tensor cast(const Tensor& x, DType dtype, std::string_view name) override;
  Fp8Tensor quantize_fp8(const Tensor& x, Fp8Recipe recipe, program::MemoryCategory category,
                         std::string_view name) override;

  MoeRouting route(const Tensor& logits, const RouterSpec& spec, std::string_view name) override;
  Tensor route_backward(const Tensor& dprobs, const MoeRouting& routing, std::int64_t experts,
                        DType dtype, std::string_view name) override;
  Tensor permute_tokens(const Tensor& x, const MoeRouting& routing, std::string_view name) override;
  Tensor permute_tokens_backward(const Tensor& dpermuted, const MoeRouting& routing,
                                 std::string_view name) override;
  Tensor unpermute_tokens(const Tensor& y, const MoeRouting& routing,
                          std::string_view name) override;
  Tensor unpermute_tokens_backward(const Tensor& dout, const Tensor& y, const MoeRouting& routing,
                                   Tensor& dprobs, std::string_view name) override;
  Tensor sort_chunks(const Tensor& x, std::span<const std::int64_t> rows,
                     std::span<const std::int64_t> order, std::string_view name) override;
  Tensor grouped_matmul(const Tensor& a, const Tensor& w, std::span<const std::int64_t> rows,
                        bool transpose_w, std::string_view name) override;
  void grouped_matmul_weight_grad(const Tensor& a, const Tensor& dy,
                                  std::span<const std::int64_t> rows, Tensor& dw,
                                  std::string_view name) override;
  Tensor all_to_all(const Tensor& x, std::span<const std::int64_t> send,
                    std::span<const std::int64_t> recv, CommGroup group, program::Stream stream,
                    std::string_view name) override;
  std::vector<std::int64_t> gather_counts(const MoeRouting& routing, CommGroup group,
                                          std::string_view name) override;

  Tensor row_max(const Tensor& logits, std::string_view name) override;
  CrossEntropyStats cross_entropy_stats(Tensor& logits, const Tensor& max, const Tensor& labels,
                                        std::int64_t vocab_begin, std::string_view name) override;
  Tensor cross_entropy_loss(Tensor& exp_logits, const CrossEntropyStats& stats, double scale,
                            std::string_view name) override;
  void cross_entropy_backward(Tensor& softmax, const Tensor& labels, std::int64_t vocab_begin,
                              double scale, std::string_view name) override;

  void all_reduce(std::span<const Tensor> tensors, CommGroup group, ReduceOp op,
                  program::Stream stream, std::string_view name) override;
  Tensor ring_shift(const Tensor& x, CommGroup group, program::Stream stream,
                    std::string_view name) override;
  Tensor all_gather(const Tensor& x, CommGroup group, program::Stream stream,
                    std::string_view name) override;
  Tensor reduce_scatter(const Tensor& x, CommGroup group, program::Stream stream,
                        std::string_view name) override;
  Tensor broadcast(const Tensor& x, CommGroup group, std::int64_t root, program::Stream stream,
                   std::string_view name) override;
  void reduce(Tensor& x, CommGroup group, std::int64_t root, program::Stream stream,
              std::string_view name) override;
  void reduce_scatter_flat(std::span<const Tensor> tensors, CommGroup group, program::Stream stream,
                           std::string_view name) override;
  void all_gather_flat(std::span<const Tensor> tensors, CommGroup group, program::Stream stream,
                       std::string_view name) override;
  void reduce_scatter_accumulate(std::span<const Tensor> tensors, Tensor& shard, CommGroup group,
                                 program::Stream stream, std::string_view name) override;
  void all_gather_shards(const Tensor& shard, std::span<const Tensor> tensors, CommGroup group,
                         program::Stream stream, std::string_view name) override;
  void send(const Tensor& x, std::int64_t part, std::int64_t parts, std::int64_t peer,
            program::Stream stream, std::string_view name) override;
  Tensor recv(Shape shape, DType dtype, std::int64_t peer, program::Stream stream,
              std::string_view name) override;
  void zero(std::span<const Tensor> tensors, std::string_view name) override;
  void adam_step(std::span<const AdamTensors> tensors, const AdamHyper& hyper,
                 std::string_view name) override;
  void adam_step_flat(std::span<const Tensor> params, std::span<const Tensor> grads,
                      std::int64_t grad_offset, const Tensor& master, const Tensor& m,
                      const Tensor& v, std::int64_t offset, const AdamHyper& hyper,
                      std::string_view name) override;

  Tensor sum_of_squares(std::span<const TensorRange> ranges, std::string_view name) override;
  void scale(std::span<const TensorRange> ranges, double factor, std::string_view name) override;
  Tensor unscale_and_check(std::span<const TensorRange> ranges, double inv_scale,
                           std::string_view name) override;

  /// cudaDeviceSynchronize and the value, except while timing: the gate kernel holds the device
  /// until the host has issued the whole iteration, so a wait would never end (the timed run
  /// measures the GPU's side alone, and the read gives nullopt).
  std::optional<double> host_read(const Tensor& t, program::SyncPoint point,
                                  std::string_view name) override;
  void synchronize(program::SyncPoint point, std::string_view name) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Whether a CUDA GPU is usable here; `why` says why not.
bool gpu_available(std::string& why);
/// The number of usable CUDA GPUs (0 when none; `why` then says why).
int gpu_count(std::string& why);

}  // namespace trainsim::cuda
