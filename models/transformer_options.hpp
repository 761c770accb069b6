#pragma once
// What one rank's transformer is built from: its sizes (TransformerShape), its place in the
// tensor-parallel group, the part of the model its pipeline stage holds and how the layers run
// beyond the TP split (TransformerOptions).

#include <cstdint>
#include <optional>

#include "models/dtype.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "models/tensor_cube.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

/// The blocks a layer is built from (Megatron-Core's layer spec), chosen once from the model.
struct LayerSpec {
  NormKind norm = NormKind::layernorm;
  Activation activation = Activation::gelu;
  PositionKind position = PositionKind::learned;
  AttentionKind attention = AttentionKind::standard;
  bool qk_norm = false;  ///< RMSNorm on each query and key head
  std::optional<AttentionWindow> attention_window{};
  double rope_theta = 10000.0;
  bool bias = true;             ///< on the QKV, projection and MLP linears
  bool tied_embeddings = true;  ///< the output layer uses the word embedding
  std::optional<MoeSpec> moe{};  ///< experts in place of the MLP on the layers it covers

  static LayerSpec of(const ModelSpec& m) {
    return {
        m.norm,       m.activation, m.position,        m.attention, m.qk_norm, m.attention_window,
        m.rope_theta, m.bias,       m.tied_embeddings, m.moe};
  }
};

/// Sizes of the model as one TP rank lays it out. `vocab` is the padded vocabulary.
struct TransformerShape {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t ffn = 0;
  std::int64_t seq_len = 0;
  std::int64_t vocab = 0;          ///< padded, divisible by the vocabulary shards
  std::int64_t micro_batch = 0;    ///< sequences per micro batch (2.5D: of one depth layer)
  DType dtype = DType::bf16;       ///< parameters and activations
  double hidden_dropout = 0.1;     ///< after attention, after the MLP and on the embedding
  double attention_dropout = 0.1;  ///< on the softmax output
  std::optional<std::int64_t> kv_heads{};   ///< nullopt: heads
  std::optional<std::int64_t> head_size{};  ///< nullopt: hidden / heads
  LayerSpec layer{};

  std::int64_t key_value_heads() const { return kv_heads.value_or(heads); }
  std::int64_t head_dim() const { return head_size.value_or(hidden / heads); }

  /// The executor's shape for `model` with the vocabulary already padded for the TP size.
  static TransformerShape of(const ModelSpec& model, std::int64_t padded_vocab,
                             std::int64_t micro_batch, double hidden_dropout,
                             double attention_dropout) {
    return TransformerShape{model.layers,    model.hidden,       model.heads,
                            model.ffn,       model.seq_len,      padded_vocab,
                            micro_batch,     model.dtype,        hidden_dropout,
                            attention_dropout, model.kv_heads,   model.head_size,
                            LayerSpec::of(model)};
  }
};

/// This rank's place in its tensor-parallel group.
struct TensorParallelPosition {
  TensorParallelPosition() = default;
  TensorParallelPosition(std::int64_t rank_in, std::int64_t size_in,
                         std::optional<GridCell> cell_in = std::nullopt,
                         std::optional<CubeCell> cube_in = std::nullopt)
      : rank(rank_in), size(size_in), cell(cell_in), cube(cube_in) {}

  std::int64_t rank = 0;
  std::int64_t size = 1;  ///< 1D: t; 2D: q² (the grid of one depth layer with 2.5D); 3D: q³
  /// 2D: this rank's cell on the q x q SUMMA grid (depth ignored); nullopt otherwise.
  std::optional<GridCell> cell;
  /// 3D: this rank's cell on the q x q x q cube; nullopt otherwise.
  std::optional<CubeCell> cube;

  /// Grid side q (2D) or cube edge q (3D), 1 for 1D.
  std::int64_t side() const {
    std::int64_t q = 1;
    while (cell && (q + 1) * (q + 1) <= size)
      ++q;
    while (cube && (q + 1) * (q + 1) * (q + 1) <= size)
      ++q;
    return q;
  }
};

/// This rank's place in its context-parallel ring (Megatron's CP): its share of each sequence
/// (AttentionShape::position) and the world ranks it passes keys and values to and takes them
/// from.
struct ContextParallelPosition {
  std::int64_t rank = 0;
  std::int64_t size = 1;
  std::int64_t next = 0;      ///< world rank of CP rank (rank + 1) mod size
  std::int64_t previous = 0;  ///< world rank of CP rank (rank − 1) mod size
};

/// This rank's place in its expert-parallel group: it holds experts [rank·E/size,
/// (rank + 1)·E/size) of every MoE layer.
struct ExpertParallelPosition {
  std::int64_t rank = 0;
  std::int64_t size = 1;
};

/// The part of the model one pipeline stage holds (parallelism-reference §7.1): layers
/// [first_layer, first_layer + layers) under their global names and tags, the embedding on
/// the first stage, the final LayerNorm, the output layer and the loss on the last. A stage
/// with the head but not the embedding holds its own copy of the tied word embedding (Megatron's
/// embedding group: its gradient is summed with the first stage's before the optimizer step).
struct ModelPart {
  std::int64_t first_layer = 0;
  std::int64_t layers = -1;  ///< per chunk; -1: through the model's last layer
  bool embedding = true;     ///< token and position embedding (first stage, chunk 0)
  bool head = true;  ///< final LayerNorm, logits through the word embedding, loss (last chunk)
  /// Model chunks (interleaved schedule, §7.4): chunk c holds layers [first_layer +
  /// c·chunk_stride, ... + layers), Megatron's virtual stage c·p + s.
  std::int64_t chunks = 1;
  std::int64_t chunk_stride = 0;
};

/// How the layers run beyond the TP split.
struct TransformerOptions {
  /// LayerNorms, dropouts and residuals on the sequence shard [s/t·b, h] (needs TP > 1 and
  /// seq_len divisible by TP).
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  /// No persistent full gradients (ZeRO-2 and 3): the training step's hooks define each
  /// Parameter::grad before the layer's backward writes it and drop it after the reduction.
  bool shard_gradients = false;
  /// No persistent full parameters (ZeRO-3): the hooks define each Parameter::value before
  /// the layer's forward or backward uses it and drop it afterwards.
  bool shard_parameters = false;
  /// Inference (eval mode): no gradient buffers, no dropout on the embedding and attention
  /// probabilities, nothing marked saved and every activation freed once its consumers ran;
  /// forward() returns only the loss and backward() must not be called. The fused
  /// bias-dropout-add kernels run as Megatron's inference variant does (their mask is freed at
  /// once).
  bool forward_only = false;
  /// Pipeline parallelism: the layers, embedding and head this rank holds (default: all).
  ModelPart part{};
  /// Context parallelism: this rank holds 1/size of each sequence's tokens (default: all).
  ContextParallelPosition context{};
  /// Expert parallelism: the experts this rank holds (default: all).
  ExpertParallelPosition expert{};
  /// FP8 GEMMs in the layers' linears (Transformer Engine, 1D), with this scaling recipe.
  std::optional<Fp8Recipe> fp8{};
  /// Transformer Engine's TP communication overlap (Megatron's --tp-comm-overlap; 1D with
  /// sequence parallelism): the layers' column-parallel linears gather their input and the
  /// row-parallel ones reduce-scatter their output by a ring exchange, shard by shard, while
  /// the GEMM of another shard computes.
  bool tp_comm_overlap = false;
};

}  // namespace trainsim
