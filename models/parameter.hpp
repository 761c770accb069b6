#pragma once
// A model parameter as one tensor-parallel rank holds it (its split of the full shape), and
// the hooks a training step places around the passes' use of parameters.

#include <cstddef>
#include <cstdint>
#include <string>

#include "models/program.hpp"
#include "models/tensor.hpp"

namespace trainsim {

/// How a parameter is split over the TP group. 1D: replicated, rows or columns of t. 2D:
/// `blocks` is block (i, j) of a q x q blocking; `column_chunks` (vectors and the position
/// table, ColossalAI's [n/q²] shards) is flat chunk i of column block j. 3D, on cube device
/// (i, j, k): `cube_blocks` is row chunk k·q + i of q² chunks and column block j of q (the
/// weight of a linear whose input is layer-oriented, cube_ops.hpp); `cube_blocks_swapped` row
/// chunk j·q + i and column block k (a linear with swapped input, and the tied word
/// embedding); `cube_columns` column block k, all rows (vectors applied to layer-oriented
/// activations, the position table), `cube_columns_swapped` column block j. `gated_columns`
/// (1D, SwiGLU's fused gate and up): the columns are two halves [gate | up], each split t ways;
/// rank r holds [gate block r | up block r], so its SwiGLU pairs what one device pairs.
/// `experts` (a MoE layer's stacked expert weights [E, K, N]): block r of E/EP whole experts on
/// expert-parallel rank r, whatever its TP rank.
enum class Split : std::uint8_t {
  replicated,
  rows,
  columns,
  gated_columns,
  blocks,
  column_chunks,
  cube_blocks,
  cube_blocks_swapped,
  cube_columns,
  cube_columns_swapped,
  experts
};

/// The split of a parameter that 1D splits as `one_d`, on a 2D grid when `grid`: matrices
/// become grid blocks, everything else (vectors, the position table) column chunks. A 2D or
/// 3D split is returned as is.
Split split_for(Split one_d, Shape full, bool grid);

/// The shard of `full` that one TP rank of `tp` ranks holds under `split` (`q` the 2D grid
/// side or the 3D cube edge; `ep` the expert-parallel size).
Shape local_shape(Shape full, Split split, std::int64_t tp, std::int64_t q, std::int64_t ep = 1);

struct Parameter {
  std::string name;  ///< "layers.3.mlp.fc1.weight", "embedding.word", ...
  Shape full_shape;  ///< shape on a single device
  Split split = Split::replicated;
  std::int32_t layer = program::Tag::kNoLayer;
  Shape shape;   ///< this TP rank's part of full_shape
  Tensor value;  ///< model dtype (bf16), `shape`; undefined at rest with shard_parameters
  Tensor grad;   ///< fp32 main gradient, `shape`; undefined at rest with shard_gradients
  /// Each TP rank's gradient is partial and is all-reduced over the TP group once per step
  /// (Megatron's finalize_model_grads): a vector used on the sequence shard (SP), or a
  /// replicated gain used on this rank's heads only (QK-norm).
  bool sequence_parallel = false;
  /// A routed expert's weight: its gradient is summed over the expert-data-parallel group
  /// (CommGroup::expert_data), not the data-parallel one.
  bool expert = false;
  /// Model chunk (ModelPart::chunks) whose passes use it: gradient buckets do not mix chunks.
  std::int32_t chunk = 0;
};

/// Told around the model's use of its parameters, so that a training step can gather sharded
/// parameters, provide gradient buffers and reduce gradients once final (Megatron's grad
/// hooks; FSDP's and DeepSpeed ZeRO-3's pre-forward and pre-backward hooks). `layer` is a
/// layer index, or Tag::kNoLayer for the parameters outside the layers (embeddings, final
/// LayerNorm; the output layer uses the tied word embedding): those are used from the start of
/// the forward pass to its end and from the start of the backward pass to its end.
class ParameterHooks {
 public:
  virtual ~ParameterHooks() = default;
  /// Before the forward pass first reads `layer`'s parameter values.
  virtual void before_forward(std::int32_t layer) = 0;
  /// After the forward pass last reads them.
  virtual void after_forward(std::int32_t layer) = 0;
  /// Before `layer`'s backward (and its recomputation) reads the values.
  virtual void before_backward(std::int32_t layer) = 0;
  /// Before the backward pass writes an undefined gradient (it must be defined after).
  virtual void before_gradient(std::size_t parameter_index) = 0;
  /// After `layer`'s backward.
  virtual void after_backward(std::int32_t layer) = 0;
  /// The gradient of a parameter is final for this micro batch.
  virtual void grad_ready(std::size_t parameter_index) = 0;
};

}  // namespace trainsim
