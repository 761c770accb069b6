#pragma once
// The cpu backend: real numbers in fp64 (whatever dtype a tensor is labelled with), Eigen for
// GEMMs. One backend per rank; ranks are threads sharing a CpuCommunicator. Streams, tags and
// memory categories are ignored: ops run in program order.

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "models/backend.hpp"
#include "models/cpu_communicator.hpp"

namespace trainsim {

/// Token ids and labels of one micro batch in [s, b] row order (row = position·b + sequence).
struct MicroBatchTokens {
  std::vector<std::int64_t> tokens;
  std::vector<std::int64_t> labels;
};

class CpuBackend final : public Backend {
 public:
  /// `tp_group` and `dp_group` list world ranks in ring order and contain `rank`;
  /// `batches` are this rank's micro batches; `seed` drives dropout masks.
  CpuBackend(CpuCommunicator& communicator, std::int64_t rank, std::vector<std::int64_t> tp_group,
             std::vector<std::int64_t> dp_group, std::vector<MicroBatchTokens> batches,
             std::uint64_t seed);

  /// Collectives on `group` (the row and column of a SUMMA grid; the constructor sets tensor
  /// and data) run over `ranks`, in ring order, containing this rank.
  void bind(CommGroup group, std::vector<std::int64_t> ranks) {
    groups_[static_cast<std::size_t>(group)] = std::move(ranks);
  }

  /// The fp64 values of a tensor made by a CpuBackend (mutable: tests and loaders write them).
  static std::span<double> values(const Tensor& t);

  void set_tag(const program::Tag&) override {}
  void stream_wait(program::Stream, program::Stream) override {}
  void wait_for(program::Stream, const Tensor&) override {}
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

  // Nothing runs asynchronously here: the host never waits, and reads the value.
  std::optional<double> host_read(const Tensor& t, program::SyncPoint, std::string_view) override {
    return values(t)[0];
  }
  void synchronize(program::SyncPoint, std::string_view) override {}

 private:
  const std::vector<std::int64_t>& ranks_of(CommGroup group) const {
    return groups_[static_cast<std::size_t>(group)];
  }
  /// This rank's position in `ranks`.
  std::size_t position_in(const std::vector<std::int64_t>& ranks) const;
  Tensor make(Shape shape, DType dtype);
  DropoutResult dropout_impl(const Tensor& x, const Tensor* bias, const Tensor* residual, double p);

  CpuCommunicator& communicator_;
  std::int64_t rank_;
  std::array<std::vector<std::int64_t>, kCommGroupCount> groups_;
  std::vector<MicroBatchTokens> batches_;
  std::mt19937_64 rng_;
};

}  // namespace trainsim
