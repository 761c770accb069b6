#pragma once
// The meta backend: holds no data and records every op it is asked for into a
// program::RankProgram. Dependencies are derived from tensor use: each buffer remembers the
// op that last wrote it and the last reader on each stream, and an op touching a buffer last
// used on another stream waits for that op (read-after-write and write-after-read). Every
// tensor creation is an Alloc; the drop of its last handle is a Free on the stream that used
// the buffer last, after any use on the other streams.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "models/backend.hpp"
#include "models/name_cache.hpp"

namespace trainsim {

class MetaBackend final : public Backend {
 public:
  /// Records into `out` (its rank is kept), interning names in `names`. Collectives on the
  /// tensor/data communicator refer to `tp_group` / `dp_group` of the Program, whose sizes
  /// are `tp_size` and `dp_size`.
  MetaBackend(program::RankProgram& out, program::NameTable& names, program::GroupId tp_group,
              program::GroupId dp_group, std::int64_t tp_size = 1, std::int64_t dp_size = 1);
  ~MetaBackend() override;
  MetaBackend(const MetaBackend&) = delete;
  MetaBackend& operator=(const MetaBackend&) = delete;

  /// Collectives on `group` refer to Program group `id` of `size` members (the row and
  /// column of a SUMMA grid; the constructor binds tensor and data).
  void bind(CommGroup group, program::GroupId id, std::int64_t size) {
    groups_[static_cast<std::size_t>(group)] = {id, size};
  }

  /// Stops recording: buffers released afterwards (persistent parameters, gradients and
  /// optimizer state) get no Free.
  void finish() { finished_ = true; }

  void set_tag(const program::Tag& tag) override { tag_ = tag; }
  void stream_wait(program::Stream waiter, program::Stream waited) override;
  void wait_for(program::Stream waiter, const Tensor& t) override;
  Tensor allocate(Shape shape, DType dtype, program::MemoryCategory category,
                  std::string_view name) override;
  void mark_saved(const Tensor& t) override;
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

  /// Records the read; a meta tensor has no value (nullopt).
  std::optional<double> host_read(const Tensor& t, program::SyncPoint point,
                                  std::string_view name) override;
  void synchronize(program::SyncPoint point, std::string_view name) override;

 private:
  class Storage;
  friend class Storage;
  struct Access {
    const Tensor* tensor;
    bool write;
  };

  program::OpIndex record(program::Payload payload, program::Stream stream, std::string_view name,
                          std::initializer_list<Access> accesses);
  program::OpIndex record(program::Payload payload, program::Stream stream, program::NameId name,
                          std::span<const Access> accesses,
                          program::KernelClass kernel_class = program::KernelClass::elementwise);
  /// Records a HostSync on the host stream, after what last wrote `read` (when given); it
  /// consumes none of the GPU streams' pending waits and no GPU op ever waits for it.
  void record_sync(program::SyncPoint point, bool device, const Tensor* read,
                   std::string_view name);
  void release(Storage& storage);
  Tensor make(Shape shape, DType dtype, std::string_view name);
  Tensor make_mask(Shape shape, std::string_view name);
  Tensor allocate_buffer(Shape shape, DType dtype, bool mask, program::MemoryCategory category,
                         std::string_view name);
  program::OpIndex kernel(std::string_view name, program::KernelClass kernel_class, Bytes read,
                          Bytes written, double flops, std::initializer_list<Access> accesses);
  /// The LayerNorm backward kernel, whole (a fused LayerNorm kernel) or its grid-partial
  /// first pass (a reduction over the row): they differ in what they write (`out`), their
  /// FLOPs per element and their class.
  void layer_norm_backward_kernel(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                  const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                  const Tensor& out, double flops_per_element,
                                  program::KernelClass kernel_class, std::string_view name);
  program::OpIndex gemm(std::string_view name, program::Gemm g,
                        std::initializer_list<Access> accesses);
  /// Records one multi-tensor optimizer kernel over `ranges` (fp32: 4 B per element read, and
  /// written when `write`), reading those tensors and, when `write`, writing them; `out` (a
  /// [1, 1] result) is written too when given.
  void multi_tensor_kernel(std::span<const TensorRange> ranges, bool write, const Tensor* out,
                           double flops_per_element, std::string_view name);
  /// Records a collective over the tensors (all written) of `size` bytes.
  void flat_collective(program::CollectiveKind kind, std::span<const Tensor> tensors,
                       CommGroup group, Bytes size, program::Stream stream, std::string_view name);

  /// Records a collective of `size` bytes over the accesses in scratch_; over a group of one,
  /// a local kernel reading and writing the given bytes instead.
  void record_flat(program::CollectiveKind kind, CommGroup group, DType dtype, Bytes size,
                   Bytes local_read, Bytes local_written, program::Stream stream,
                   std::string_view name);

  program::RankProgram& out_;
  NameCache name_cache_;  ///< interns into the NameTable the backend was given
  struct GroupRef {
    program::GroupId id = 0;
    std::int64_t size = 1;
  };
  const GroupRef& group(CommGroup g) const { return groups_[static_cast<std::size_t>(g)]; }

  std::array<GroupRef, kCommGroupCount> groups_{};
  program::Tag tag_;
  program::BufferId next_buffer_ = 0;
  bool finished_ = false;
  /// Latest op recorded on each stream, and the waits to attach to a stream's next op.
  std::array<program::OpIndex, program::kStreamCount> last_on_stream_;
  std::array<std::array<program::OpIndex, program::kStreamCount>, program::kStreamCount>
      pending_waits_;
  /// For each stream, the latest op of each other stream that its recorded ops already wait
  /// for (directly).
  std::array<std::array<program::OpIndex, program::kStreamCount>, program::kStreamCount>
      ordered_after_;
  std::vector<Access> scratch_;
};

}  // namespace trainsim
