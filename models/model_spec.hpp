#pragma once
// The transformer being trained with its exact parameter and FLOP counts: a pre-norm decoder
// as Megatron-LM builds GPT (LayerNorm, GeLU MLP, learned positions, biases, output layer tied to
// the word embedding) or the Llama family (RMSNorm, SwiGLU, RoPE, grouped-query attention, no
// biases, untied output layer; modern-models-reference §1).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/dtype.hpp"
#include "models/moe_spec.hpp"
#include "units/units.hpp"

namespace trainsim {

/// How the attention-core GEMMs (QK^T and P·V) are counted: the papers count them densely;
/// Megatron-Core's current counter halves them for the causal mask (parallelism-reference §0.3).
enum class AttentionFlops : std::uint8_t { dense, causal };

/// Which forward work is run a second time during the backward pass.
enum class Recompute : std::uint8_t { none, selective, full };

/// The MLP's activation: GeLU between two linears (h → f → h), or SwiGLU, silu(gate)·up with
/// gate and up one fused linear h → 2f and the down projection f → h.
enum class Activation : std::uint8_t { gelu, swiglu };
/// The normalisation before attention, MLP and the output layer: LayerNorm (gain and bias) or
/// RMSNorm (gain only).
enum class NormKind : std::uint8_t { layernorm, rmsnorm };
/// How positions enter: a learned table added to the embedding, or rotary embeddings applied to
/// queries and keys inside attention (no parameters).
enum class PositionKind : std::uint8_t { learned, rope };
/// The attention core: Megatron's unfused one (QKᵀ and P·V GEMMs around a fused softmax, the
/// b·a·s² scores in memory) or a fused FlashAttention-style kernel (no s² tensor, its own
/// recomputation of the scores in the backward, causal tiles skipped).
enum class AttentionKind : std::uint8_t { standard, flash };

constexpr std::string_view to_string(Activation a) {
  return a == Activation::gelu ? "gelu" : "swiglu";
}
constexpr std::string_view to_string(NormKind n) {
  return n == NormKind::layernorm ? "layernorm" : "rmsnorm";
}
constexpr std::string_view to_string(PositionKind p) {
  return p == PositionKind::learned ? "learned" : "rope";
}
constexpr std::string_view to_string(AttentionKind a) {
  return a == AttentionKind::standard ? "standard" : "flash";
}
/// Inverses of to_string; nullopt for an unknown name.
template <typename Enum>
constexpr std::optional<Enum> model_enum_from_string(std::string_view text) {
  constexpr std::array<Enum, 2> all{static_cast<Enum>(0), static_cast<Enum>(1)};
  for (Enum e : all) {
    if (to_string(e) == text) return e;
  }
  return std::nullopt;
}

/// Sliding-window attention on a layer pattern (GPT-OSS alternates window 128 and full; Mistral
/// windows every layer): layers l with l % every == 0 let query i see keys i − size < j ≤ i.
struct AttentionWindow {
  std::int64_t size = 0;
  std::int64_t every = 1;
  bool covers(std::int64_t layer) const { return layer % every == 0; }
};

struct ModelSpec {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t ffn = 0;       ///< MLP inner width f (4·hidden by default)
  std::int64_t seq_len = 0;   ///< s, tokens per sequence
  std::int64_t vocab = 0;     ///< V, as trained (padding is the caller's choice)
  DType dtype = DType::bf16;  ///< activation and weight dtype on the device
  AttentionFlops attention_flops = AttentionFlops::dense;
  /// Megatron pads the vocabulary to a multiple of this times the TP size (its
  /// --make-vocab-size-divisible-by, default 128; parallelism-reference §12.4).
  std::int64_t vocab_divisor = 128;
  /// Key/value heads g of grouped-query attention (g divides heads; nullopt: g = heads, MHA).
  std::optional<std::int64_t> kv_heads{};
  /// Head dimension d_h (nullopt: hidden / heads; Qwen3 and GPT-OSS have heads·d_h ≠ hidden).
  std::optional<std::int64_t> head_size{};
  Activation activation = Activation::gelu;
  NormKind norm = NormKind::layernorm;
  PositionKind position = PositionKind::learned;
  AttentionKind attention = AttentionKind::standard;
  /// Qwen3's QK-norm: an RMSNorm over d_h on every query and key head (one gain of d_h each for
  /// queries and keys per layer), after the QKV linear and before RoPE.
  bool qk_norm = false;
  /// Sliding-window layers (nullopt: every layer attends to all earlier keys). MFU's model
  /// FLOPs count them as full layers, as Megatron-Core and torchtitan do; the kernels run
  /// only the window.
  std::optional<AttentionWindow> attention_window{};
  double rope_theta = 10000.0;  ///< RoPE base (Llama 3: 500000)
  /// The output layer's weight is the word embedding (GPT) or a weight of its own (Llama).
  bool tied_embeddings = true;
  /// Biases on the QKV, projection and MLP linears (GPT) or none (Llama).
  bool bias = true;
  /// Dropout probabilities: on the embedding and the residual branches, and on the attention
  /// probabilities (Megatron's defaults 0.1; Llama trains with 0).
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  /// Mixture of experts in place of the MLP on the layers it covers (nullopt: dense).
  std::optional<MoeSpec> moe{};

  std::int64_t head_dim() const { return head_size.value_or(hidden / heads); }
  std::int64_t key_value_heads() const { return kv_heads.value_or(heads); }
  /// Width of the attention's inner activations: heads · d_h (= hidden for GPT).
  std::int64_t attention_width() const { return heads * head_dim(); }
  /// Columns of the fused QKV output: (heads + 2·kv_heads) · d_h.
  std::int64_t qkv_width() const { return (heads + 2 * key_value_heads()) * head_dim(); }
  /// Columns of the MLP's first linear: f (GeLU) or 2·f (SwiGLU's gate and up).
  std::int64_t fc1_width() const { return activation == Activation::swiglu ? 2 * ffn : ffn; }
  /// Parameters of one norm: gain and bias (LayerNorm) or gain (RMSNorm).
  std::int64_t norm_parameters() const { return norm == NormKind::layernorm ? 2 * hidden : hidden; }
  /// The vocabulary as the executor lays it out over `tensor_parallel` ranks.
  std::int64_t padded_vocab(std::int64_t tensor_parallel) const {
    const std::int64_t multiple = vocab_divisor * tensor_parallel;
    return (vocab + multiple - 1) / multiple * multiple;
  }

  /// What differs from the GPT layer Megatron-LM built first (the only layer 2D, 2.5D and 3D
  /// tensor parallelism run), e.g. "norm rmsnorm, kv_heads 8"; empty for a GPT layer.
  std::string non_gpt_features() const;
  bool gpt_layer() const { return non_gpt_features().empty(); }

  /// Parameters of one dense transformer layer: QKV, out-proj, FC1, FC2 (with biases when
  /// `bias`), two norms.
  std::int64_t parameters_per_layer() const;
  /// Parameters of layer `layer`: a dense layer's, or with MoE there the attention, norms,
  /// router, routed and shared experts.
  std::int64_t layer_parameters(std::int64_t layer) const;
  /// Whether layer `layer` runs the mixture of experts.
  bool moe_layer(std::int64_t layer) const { return moe && moe->covers(layer); }
  /// Parameters one token passes through (MoE: the router, k routed experts and the shared
  /// ones per MoE layer, as torchtitan counts them); every parameter for a dense model.
  std::int64_t active_parameters() const;
  /// Word embedding, the output layer's own weight when untied, the learned position table.
  std::int64_t embedding_parameters() const;
  /// Everything: layers, embeddings, final norm.
  std::int64_t parameters() const;

  /// Forward FLOPs of one dense transformer layer for a micro batch of `micro_batch` sequences
  /// (GEMMs only: 2 FLOPs per multiply-add).
  Flops layer_forward_flops(std::int64_t micro_batch) const;
  /// Forward FLOPs of layer `layer`: with MoE there the k routed and the shared experts per
  /// token in place of the MLP, as Megatron-Core's num_floating_point_operations counts them
  /// (dropless; the router's GEMM is not counted: router_forward_flops).
  Flops layer_forward_flops(std::int64_t micro_batch, std::int64_t layer) const;
  /// Forward FLOPs of all the layers (without the logits).
  Flops layers_forward_flops(std::int64_t micro_batch) const;
  /// Forward FLOPs of every MoE layer's router GEMM (h → E per token): run, but left out of
  /// MFU's model FLOPs by Megatron-Core; in hardware_flops.
  Flops router_forward_flops(std::int64_t micro_batch) const;
  /// Forward FLOPs of the attention core alone (QK^T and P·V) for `micro_batch` sequences.
  Flops attention_core_forward_flops(std::int64_t micro_batch) const;
  /// Forward FLOPs of the logit GEMM for `micro_batch` sequences (unpadded vocabulary, as
  /// the papers count it).
  Flops logit_forward_flops(std::int64_t micro_batch) const;

  /// Forward FLOPs of the whole model over `global_batch` sequences: layers (2·N per token
  /// plus the attention core) and logits. The numerator of MFU for inference.
  Flops forward_flops(std::int64_t global_batch) const;
  /// Model FLOPs of one iteration over `global_batch` sequences: forward + backward (= 3 x
  /// forward), no recomputation. The numerator of MFU.
  Flops model_flops(std::int64_t global_batch) const;
  /// FLOPs actually executed with the given recomputation (numerator of HFU), counted from
  /// first principles: full re-runs each layer's forward, selective re-runs the attention core.
  Flops hardware_flops(std::int64_t global_batch, Recompute recompute) const;
};

/// The closed forms printed in the papers, kept only to compare with our own counts.
namespace paper_formulas {
/// Narayanan et al. 2021, eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)).
double narayanan_parameters(const ModelSpec& m);
/// Korthikanti et al. 2022: 72 B s l h^2 (1 + s/(6h) + V/(12 h l)).
double korthikanti_model_flops(const ModelSpec& m, std::int64_t global_batch);
/// Korthikanti et al. 2022, selective recompute as printed: 72 B s l h^2 (1 + s/(3h) + V/(12 h l)).
double korthikanti_selective_hardware_flops(const ModelSpec& m, std::int64_t global_batch);
/// Narayanan et al. 2021, eq. 3 (full recompute): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
double narayanan_full_recompute_flops(const ModelSpec& m, std::int64_t global_batch);
}  // namespace paper_formulas

}  // namespace trainsim
