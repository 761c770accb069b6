#pragma once
// The transformer being trained (GPT, pre-LN, learned position embedding, output layer tied
// to the word embedding, as in Megatron-LM) with its exact parameter and FLOP counts.

#include <cstdint>

#include "models/dtype.hpp"
#include "units/units.hpp"

namespace trainsim {

/// How the attention-core GEMMs (QK^T and P·V) are counted: the papers count them densely;
/// Megatron-Core's current counter halves them for the causal mask (parallelism-reference §0.3).
enum class AttentionFlops : std::uint8_t { dense, causal };

/// Which forward work is run a second time during the backward pass.
enum class Recompute : std::uint8_t { none, selective, full };

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

  std::int64_t head_dim() const { return hidden / heads; }
  /// The vocabulary as the executor lays it out over `tensor_parallel` ranks.
  std::int64_t padded_vocab(std::int64_t tensor_parallel) const {
    const std::int64_t multiple = vocab_divisor * tensor_parallel;
    return (vocab + multiple - 1) / multiple * multiple;
  }

  /// Parameters of one transformer layer: QKV, out-proj, FC1, FC2 with biases, two LayerNorms.
  std::int64_t parameters_per_layer() const;
  /// Word embedding (tied with the output layer) and learned position embedding.
  std::int64_t embedding_parameters() const;
  /// Everything: layers, embeddings, final LayerNorm.
  std::int64_t parameters() const;

  /// Forward FLOPs of one transformer layer for a micro batch of `micro_batch` sequences
  /// (GEMMs only: 2 FLOPs per multiply-add).
  Flops layer_forward_flops(std::int64_t micro_batch) const;
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
