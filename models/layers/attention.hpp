#pragma once
// Self-attention as Megatron's ParallelAttention runs it: fused QKV (column-parallel, with
// bias), the attention core (QKᵀ/√d, causal softmax, dropout, P·V) on this rank's heads, the
// output projection (row-parallel; its bias is applied by the layer's bias-dropout-add). With
// 2D every linear is a SUMMA product and the core holds heads block j of batch block i; with
// 3D the core holds the heads of the cube's weight block (parallelism-reference §1.3, §3, §5).
// The Llama family's variant (1D): grouped-query heads (each rank holds kv_heads / t whole
// groups), a free head dimension, rotary embeddings on queries and keys after the QKV linear,
// no biases, no attention dropout (modern-models-reference §1.1). With flash attention the core
// is one fused kernel: no s² tensor, only the rows' log-sum-exp kept beside its output; with
// context parallelism a ring of such kernels over the CP group's keys and values.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "models/layers/layer_context.hpp"
#include "models/layers/norm.hpp"

namespace trainsim {

/// What the attention block keeps for its backward pass (Korthikanti et al. §4.1); its input
/// is the norm's output (NormSaved::y).
struct AttentionSaved {
  Tensor qkv, probs, dropout_mask, probs_dropped, context;
  Tensor lse;  ///< flash attention: the rows' log-sum-exp (fp32), instead of the probabilities
  Tensor qkv_before_norm, qk_stats;  ///< QK-norm: its input and the heads' reciprocal RMS
  /// What the QKV and projection linears' backward read of their inputs (LayerContext::linear):
  /// the norm's output and the core's output, or with FP8 their FP8 copies.
  Tensor qkv_input, proj_input;
};

class AttentionBlock {
 public:
  AttentionBlock() = default;
  /// Registers PREFIX.qkv.{weight,bias} and PREFIX.proj.{weight,bias} of `layer`; the
  /// projection's bias is partial per TP rank on the sequence shard when `sequence_parallel`.
  static AttentionBlock add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                            bool sequence_parallel);

  /// The projection's output before its bias (reduced over TP: all-reduced, or
  /// reduce-scattered to the sequence shard with SP) from the norm's output `in`, which it
  /// consumes (inference). `keep` marks what the backward reads saved; selective
  /// recomputation keeps the core's tensors only until the projection.
  Tensor forward(LayerContext& c, NormSaved& in, AttentionSaved& saved, bool keep);
  /// The gradient of the norm's output from the gradient of the projection's output; frees
  /// `saved` and `in.y` as it goes. Selective recomputation re-runs the core first (tagged
  /// `layer`, Phase::recompute).
  Tensor backward(LayerContext& c, Tensor dproj, NormSaved& in, AttentionSaved& saved,
                  std::int32_t layer);

  /// The projection's bias, added by the layer's bias-dropout-add (none without biases).
  std::optional<std::size_t> output_bias() const { return proj_bias_; }

 private:
  /// QKᵀ, softmax, dropout, P·V from saved.qkv; fills probs and masks (flash: the LSE) when
  /// `keep`.
  Tensor core(LayerContext& c, AttentionSaved& saved, bool keep);
  /// The core's backward from the context's gradient into a new dQKV; frees what the core
  /// kept.
  Tensor core_backward(LayerContext& c, Tensor dcontext, AttentionSaved& saved);
  /// Context parallelism's ring (Transformer Engine's KV P2P): c flash blocks, each against the
  /// keys and values the previous ring member passed on, merged by log-sum-exp.
  FlashAttentionResult ring_attention(LayerContext& c, const Tensor& qkv);
  /// Its backward: the blocks again, dQ accumulated here, each block's dK/dV passed around the
  /// ring with the block until it is back with its owner.
  Tensor ring_attention_backward(LayerContext& c, const Tensor& dout, const Tensor& qkv,
                                 const Tensor& out, const Tensor& lse);

  std::size_t qkv_weight_ = 0;
  std::optional<std::size_t> qkv_bias_;
  std::size_t proj_weight_ = 0;
  std::optional<std::size_t> proj_bias_;
  AttentionShape shape_;
  std::optional<double> rope_theta_;  ///< rotary embeddings' base, with RoPE
  bool flash_ = false;
  std::optional<std::size_t> q_norm_;  ///< QK-norm's gains (Qwen3)
  std::optional<std::size_t> k_norm_;
};

}  // namespace trainsim
