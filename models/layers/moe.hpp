#pragma once
// A mixture-of-experts feed-forward block as Megatron-Core's MoELayer runs it with the
// alltoall token dispatcher and grouped GEMMs (modern-models-reference §6.1-6.2), in place of
// the MLP on the layers model.moe covers:
//   router     logits = x·W_r (h → E), top-k of each token's logits, softmax over them
//   permute    each token copied once per kept choice, grouped by expert
//   dispatch   (EP > 1) all-to-all of the rows to the ranks holding their experts, then the
//              received chunks sorted from source-major to local-expert-major
//   experts    grouped GEMM FC1 (h → 2F, [gate | up]), SwiGLU, grouped GEMM FC2 (F → h)
//   combine    (EP > 1) the chunks sorted back and all-to-all'ed to their tokens' ranks
//   unpermute  each token's rows summed, weighted by their probabilities
//   shared     (S > 0) a dense SwiGLU MLP of S·F on every token (TP-sharded like the MLP),
//              added to the routed output
// The router and dispatcher work on this rank's tokens: its sequence shard with SP (which
// tensor parallelism needs here, as in Megatron-Core), each expert whole on one rank (expert
// TP 1). The router's weight is replicated and its gradient partial per TP rank (summed over
// TP like SP's); the experts' gradients are summed over the expert-data-parallel group.
// Not modelled: auxiliary load-balancing losses, the z-loss, expert bias, sigmoid scores and
// group-limited routing (DeepSeek-V3), the shared experts' overlap with the all-to-all.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/layers/layer_context.hpp"
#include "models/layers/mlp.hpp"
#include "models/layers/norm.hpp"

namespace trainsim {

/// The host's plan of one MoE layer's exchange for one micro batch (Megatron's dispatcher
/// preprocess: from the tokens per expert of every member of the expert-parallel group).
struct ExpertExchange {
  std::vector<std::int64_t> send;  ///< rows to each member of the group (its experts' rows)
  std::vector<std::int64_t> recv;  ///< rows from each member (for this rank's experts)
  /// The received chunks in arrival order (source-major: [source j][local expert g]) and
  /// the order that makes them local-expert-major; and the way back.
  std::vector<std::int64_t> source_major_rows, to_expert_major;
  std::vector<std::int64_t> expert_major_rows, to_source_major;
  std::vector<std::int64_t> rows;  ///< rows per local expert: the grouped GEMMs' groups

  /// The plan for the member at `position` of a group whose members routed `counts`
  /// (members x experts, member-major), each holding experts / members consecutive experts.
  static ExpertExchange plan(const std::vector<std::int64_t>& counts, std::int64_t members,
                             std::int64_t position);
};

/// What the MoE block keeps for its backward pass.
struct MoeSaved {
  Tensor x;  ///< the norm's output: the router's and the permutation's input
  MoeRouting routing;
  ExpertExchange exchange;
  /// What FC1's and FC2's weight gradients read of their inputs: the rows as the local
  /// experts take them and SwiGLU's output, or with FP8 their columnwise FP8 copies.
  Tensor fc1_input, fc2_input;
  Tensor fc1;         ///< FC1's output [rows, 2F]: SwiGLU's backward reads it
  Tensor expert_out;  ///< the rows back at their tokens' rank, before the weighted sum
  NormSaved shared_in;
  MlpSaved shared;
};

class MoeBlock {
 public:
  MoeBlock() = default;
  /// Registers PREFIX.router.weight ([1, h, E], replicated), PREFIX.experts.fc1.weight ([E, h,
  /// 2F]) and PREFIX.experts.fc2.weight ([E, F, h]) split over EP, and the shared experts'
  /// PREFIX.shared.* (an MlpBlock of width S·F) when the model has some.
  static MoeBlock add(LayerContext& c, const std::string& prefix, std::int32_t layer);

  /// The block's output [N, h] for the norm's output `in` (which it consumes in inference);
  /// `keep` marks what the backward reads saved.
  Tensor forward(LayerContext& c, NormSaved& in, MoeSaved& saved, bool keep);
  /// The gradient of the norm's output; frees `saved` and `in.y` as it goes.
  Tensor backward(LayerContext& c, Tensor dy, NormSaved& in, MoeSaved& saved);

 private:
  /// op(x)·W of the local experts' grouped GEMM, in bf16 or (training.precision fp8) in FP8
  /// as TE's GroupedLinear runs it; `saved_input` gets what the weight gradient reads.
  static Tensor experts_linear(LayerContext& c, const Tensor& x, std::size_t weight,
                               std::span<const std::int64_t> rows, const std::string& name,
                               Tensor& saved_input);
  /// Its backward: returns dx, accumulates the weight gradient and reports it ready.
  static Tensor experts_linear_backward(LayerContext& c, const Tensor& dy,
                                        const Tensor& saved_input, std::size_t weight,
                                        std::span<const std::int64_t> rows,
                                        const std::string& name);
  /// The routed rows at the local experts: dispatched over EP (or the permuted rows
  /// themselves without EP).
  Tensor dispatch(LayerContext& c, const Tensor& permuted, MoeSaved& s);
  /// Rows at their tokens' rank to the ranks holding their experts, sorted local-expert-major:
  /// all-to-all NAME.all_to_all, then NAME.sort (the rows themselves without EP).
  static Tensor to_experts(LayerContext& c, const Tensor& rows, const ExpertExchange& x,
                           const std::string& name);
  /// The way back: sorted source-major (NAME.sort), all-to-all to their tokens' ranks.
  static Tensor from_experts(LayerContext& c, const Tensor& rows, const ExpertExchange& x,
                             const std::string& name);

  MoeSpec spec_{};
  std::int32_t layer_ = 0;
  std::size_t router_ = 0;
  std::size_t fc1_ = 0;
  std::size_t fc2_ = 0;
  std::optional<MlpBlock> shared_;
};

}  // namespace trainsim
