#pragma once
// The transformer of the reference executor, written once over `Backend`: the embedding, the
// layers and the output head (models/layers/), strung together for one rank's part of the
// model (its tensor-parallel position and pipeline stage). The blocks run Megatron 1D tensor
// parallelism (column/row splits, f/g operators, sequence parallelism), 2D SUMMA tensor
// parallelism (grid_ops.hpp) or 3D cube tensor parallelism (cube_ops.hpp) through their
// LayerContext (parallelism-reference §0.3, §1.3, §1.4, §3, §5).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "models/backend.hpp"
#include "models/layers/embedding.hpp"
#include "models/layers/layer_context.hpp"
#include "models/layers/output_head.hpp"
#include "models/layers/transformer_layer.hpp"
#include "models/parameter.hpp"
#include "models/transformer_options.hpp"

namespace trainsim {

/// What one micro batch's forward pass leaves for its backward pass.
struct ForwardState {
  TokenBatch batch;
  Tensor embedding_dropout_mask;
  std::vector<LayerSaved> layers;
  HeadSaved head;
  Tensor loss;  ///< [1, 1]: loss_scale · Σ token losses of this micro batch
  /// Without the head (a pipeline stage before the last): the last layer's output, which the
  /// stage sends to the next one.
  Tensor output;
  std::int64_t micro_batch_index = 0;
  std::int64_t chunk = 0;  ///< model chunk (interleaved pipeline)
};

class TransformerModel {
 public:
  /// Allocates this rank's parameter shards and fp32 main gradients (persistent memory).
  TransformerModel(Backend& backend, const TransformerShape& shape, TensorParallelPosition tp,
                   TransformerOptions options = {});

  const TransformerShape& shape() const { return context_.shape(); }
  const TransformerOptions& options() const { return context_.options(); }
  TensorParallelPosition tensor_parallel() const { return context_.tp(); }
  /// Labels this rank's loss reads per micro batch (2D: its batch block's tokens).
  std::int64_t label_tokens() const {
    return context_.local_seq_len() * context_.local_micro_batch();
  }
  /// Token ids this rank's embedding reads per micro batch (2D: the whole micro batch's).
  std::int64_t input_tokens() const { return context_.local_seq_len() * shape().micro_batch; }
  /// In registration order: word and position embedding, layers, final norm.
  std::span<Parameter> parameters() { return context_.parameters(); }
  std::span<const Parameter> parameters() const { return context_.parameters(); }

  /// A new step begins (run_iteration, run_inference): FP8 weight copies, kept across the
  /// previous step's micro batches, are cast again from the updated weights.
  void begin_step() { context_.begin_step(); }

  /// Forward of one micro batch. `loss_scale` multiplies the summed token losses (1 / tokens
  /// in the global batch gives the global mean once summed over micro batches and replicas).
  /// `hooks` may be null unless parameters are sharded. With model chunks it runs chunk
  /// `chunk`'s layers. Without the embedding (a later
  /// pipeline stage) the first layer reads `input` (boundary_shape(), kept for backward) and
  /// `batch` holds the labels only, or nothing before the last stage; without the head the
  /// state's `output` is the last layer's output and there is no loss.
  ForwardState forward(TokenBatch batch, double loss_scale, std::int64_t micro_batch_index,
                       ParameterHooks* hooks = nullptr, Tensor input = {}, std::int64_t chunk = 0);
  /// Backward of one micro batch; accumulates into the main gradients and frees the saved
  /// tensors as it goes. `hooks` may be null unless gradients or parameters are sharded.
  /// The pass runs the state's chunk. Without the head it starts from `output_grad`, the gradient
  /// of the state's output; without the embedding it returns the gradient of the forward's `input`
  /// (else undefined).
  Tensor backward(ForwardState state, double loss_scale, ParameterHooks* hooks,
                  Tensor output_grad = {});
  /// Shape of this rank's part of the tensor between pipeline stages, the layout of a layer's
  /// input: 1D [s·b, h] (the same on every TP rank), with sequence parallelism the rank's
  /// sequence shard [s·b/t, h]; 2D/2.5D batch block i, hidden block j [s·b/q, h/q]; 3D batch
  /// block i, sub-block j, hidden block k [s·b/q², h/q]. A 2D/3D shard goes to the rank on the
  /// same cell of the next stage, as ColossalAI's pipelines send it (no scatter/gather).
  Shape boundary_shape() const;
  /// Index of the word embedding in parameters() (on the first stage, and on the last when the
  /// output layer is tied to it).
  std::size_t word_embedding_index() const { return *embedding_.word(); }
  /// Whether this stage shares the tied word embedding with another (Megatron's embedding
  /// group: the first stage and the last, each holding a copy, sum its gradient).
  bool shares_word_embedding() const {
    const ModelPart& part = options().part;
    return shape().layer.tied_embeddings && part.embedding != part.head;
  }
  /// Whether another rank holds parameter `index` with the same gradient and counts it in the
  /// global gradient norm instead of this one (Megatron's clip_grad_norm_fp32 keeps what
  /// param_is_not_shared and param_is_not_tensor_parallel_duplicate keep): a parameter 1D
  /// replicates over TP (norm gains and biases, row-parallel biases, the position table)
  /// on a TP rank other than 0; a 3D vector block on a cube device other than the first of
  /// the q² that share it (cube_columns: i = j = 0; swapped: i = k = 0); the last stage's copy
  /// of the tied word embedding. 2D/2.5D grid cells hold distinct shards.
  bool duplicate_in_norm(std::size_t index) const;

 private:
  /// Tag (global layer index) of local layer `l`.
  std::int32_t layer_tag(std::size_t l) const {
    const auto local = static_cast<std::int64_t>(l);
    return static_cast<std::int32_t>(first_layer_ + local / chunk_layers_ * chunk_stride_ +
                                     local % chunk_layers_);
  }
  /// The embedding belongs to the first stage's chunk 0, the head to the last stage's last chunk.
  bool has_embedding(std::int64_t chunk) const { return options().part.embedding && chunk == 0; }
  bool has_head(std::int64_t chunk) const {
    return options().part.head && chunk == options().part.chunks - 1;
  }

  LayerContext context_;
  std::int64_t first_layer_ = 0;   // global index of layers_[0]
  std::int64_t chunk_layers_ = 1;  // layers per chunk
  std::int64_t chunk_stride_ = 0;  // global index distance between chunks
  Embedding embedding_;
  std::vector<TransformerLayer> layers_;
  OutputHead head_;
};

}  // namespace trainsim
