#pragma once
// The GPT model of the reference executor, written once over `Backend`: vocabulary-parallel
// token embedding + learned position embedding, pre-LN layers (attention, GeLU MLP) with
// Megatron 1D tensor parallelism (column/row splits, f/g operators), 2D SUMMA tensor
// parallelism (grid_ops.hpp) or 3D cube tensor parallelism (cube_ops.hpp), final LayerNorm, logits
// through the tied word embedding and vocabulary-parallel cross entropy (parallelism-reference
// §0.3, §1.3, §1.4, §3, §5).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/backend.hpp"
#include "models/cube_ops.hpp"
#include "models/grid_ops.hpp"
#include "models/model_spec.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

/// Sizes of the model as one TP rank lays it out. `vocab` is the padded vocabulary.
struct GptShape {
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

  /// The executor's shape for `model` with the vocabulary already padded for the TP size.
  static GptShape of(const ModelSpec& model, std::int64_t padded_vocab, std::int64_t micro_batch,
                     double hidden_dropout, double attention_dropout) {
    return GptShape{model.layers, model.hidden, model.heads, model.ffn,      model.seq_len,
                    padded_vocab, micro_batch,  model.dtype, hidden_dropout, attention_dropout};
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
struct GptOptions {
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
};

/// How a parameter is split over the TP group. 1D: replicated, rows or columns of t. 2D:
/// `blocks` is block (i, j) of a q x q blocking; `column_chunks` (vectors and the position
/// table, ColossalAI's [n/q²] shards) is flat chunk i of column block j. 3D, on cube device
/// (i, j, k): `cube_blocks` is row chunk k·q + i of q² chunks and column block j of q (the
/// weight of a linear whose input is layer-oriented, cube_ops.hpp); `cube_blocks_swapped` row
/// chunk j·q + i and column block k (a linear with swapped input, and the tied word
/// embedding); `cube_columns` column block k, all rows (vectors applied to layer-oriented
/// activations, the position table), `cube_columns_swapped` column block j.
enum class Split : std::uint8_t {
  replicated,
  rows,
  columns,
  blocks,
  column_chunks,
  cube_blocks,
  cube_blocks_swapped,
  cube_columns,
  cube_columns_swapped
};

/// The split of a parameter that 1D splits as `one_d`, on a 2D grid when `grid`: matrices
/// become grid blocks, everything else (vectors, the position table) column chunks. A 2D or
/// 3D split is returned as is.
Split split_for(Split one_d, Shape full, bool grid);

struct Parameter {
  std::string name;  ///< "layers.3.mlp.fc1.weight", "embedding.word", ...
  Shape full_shape;  ///< shape on a single device
  Split split = Split::replicated;
  std::int32_t layer = program::Tag::kNoLayer;
  Shape shape;   ///< this TP rank's part of full_shape
  Tensor value;  ///< model dtype (bf16), `shape`; undefined at rest with shard_parameters
  Tensor grad;   ///< fp32 main gradient, `shape`; undefined at rest with shard_gradients
  /// Used on the sequence shard (SP): each TP rank's gradient is partial and is all-reduced
  /// over the TP group once per step (Megatron's finalize_model_grads).
  bool sequence_parallel = false;
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

/// Tensors one transformer layer keeps for its backward pass (Korthikanti et al. §4.1).
struct LayerSaved {
  Tensor x;  ///< layer input (LN1 input); produced and marked by the previous layer
  Tensor ln1_y, ln1_stats, qkv, probs, attn_dropout_mask, probs_dropped, context;
  Tensor attn_residual_mask, x1, ln2_y, ln2_stats, fc1, gelu, mlp_residual_mask;
  /// Vector parameters the backward reads: their all-gathered column blocks (2D; undefined
  /// with 1D, see GptModel::saved_vector).
  Tensor ln1_gamma, ln2_gamma, fc1_bias;
};

/// What one micro batch's forward pass leaves for its backward pass.
struct ForwardState {
  TokenBatch batch;
  Tensor embedding_dropout_mask;
  std::vector<LayerSaved> layers;
  Tensor final_x, final_ln_y, final_ln_stats, final_gamma;
  Tensor softmax;  ///< fp32 [T, V/t]
  Tensor loss;     ///< [1, 1]: loss_scale · Σ token losses of this micro batch
  /// Without the head (a pipeline stage before the last): the last layer's output, which the
  /// stage sends to the next one.
  Tensor output;
  std::int64_t micro_batch_index = 0;
  std::int64_t chunk = 0;  ///< model chunk (interleaved pipeline)
};

class GptModel {
 public:
  /// Allocates this rank's parameter shards and fp32 main gradients (persistent memory).
  GptModel(Backend& backend, const GptShape& shape, TensorParallelPosition tp,
           GptOptions options = {});

  const GptShape& shape() const { return shape_; }
  const GptOptions& options() const { return options_; }
  TensorParallelPosition tensor_parallel() const { return tp_; }
  /// Labels this rank's loss reads per micro batch (2D: its batch block's tokens).
  std::int64_t label_tokens() const { return shape_.seq_len * local_micro_batch(); }
  /// In registration order: word and position embedding, layers, final LayerNorm.
  std::span<Parameter> parameters() { return parameters_; }
  std::span<const Parameter> parameters() const { return parameters_; }

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
  Shape boundary_shape() const {
    const std::int64_t tokens = shape_.seq_len * local_micro_batch();
    const std::int64_t hidden = grid_ || cube_ ? shape_.hidden / tp_.side() : shape_.hidden;
    return {1, sequence_parallel() ? tokens / tp_.size : tokens, hidden};
  }
  /// Index of the tied word embedding in parameters() (on the first and the last stage).
  std::size_t word_embedding_index() const { return word_embedding_; }
  /// Whether another rank holds parameter `index` with the same gradient and counts it in the
  /// global gradient norm instead of this one (Megatron's clip_grad_norm_fp32 keeps what
  /// param_is_not_shared and param_is_not_tensor_parallel_duplicate keep): a parameter 1D
  /// replicates over TP (LayerNorm gains and biases, row-parallel biases, the position table)
  /// on a TP rank other than 0; a 3D vector block on a cube device other than the first of
  /// the q² that share it (cube_columns: i = j = 0; swapped: i = k = 0); the last stage's copy
  /// of the tied word embedding. 2D/2.5D grid cells hold distinct shards.
  bool duplicate_in_norm(std::size_t index) const;

 private:
  struct LayerParams {
    std::size_t ln1_gamma, ln1_beta, qkv_weight, qkv_bias, proj_weight, proj_bias;
    std::size_t ln2_gamma, ln2_beta, fc1_weight, fc1_bias, fc2_weight, fc2_bias;
  };

  enum class LinearKind : std::uint8_t { column, row, output };

  /// `split` as 1D splits it (2D derives its split from it); `cube` the split on a 3D cube.
  std::size_t add_parameter(std::string name, Shape full_shape, Split split, Split cube,
                            std::int32_t layer, bool sequence_parallel = false);
  // Hooks where the tensor-parallel schemes differ; each runs the 1D (Megatron) or the 2D
  // (grid_ops) form.
  /// Word embedding of the micro batch's tokens, reduced to this rank's activation block.
  Tensor embed_tokens(const Tensor& tokens);
  /// y = x·W of a column- or row-parallel linear (1D), or SUMMA (2D).
  Tensor linear(const Tensor& x, std::size_t weight, LinearKind kind, const char* name);
  /// Its backward: returns dx, accumulates the weight gradient.
  Tensor linear_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                         LinearKind kind, const char* name);
  LayerNormResult norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const char* name);
  /// LayerNorm backward ("NAME.backward"); reports the gradients of parameters
  /// `gamma_index`, `beta_index` ready.
  Tensor norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma, const Tensor& stats,
                       std::size_t gamma_index, std::size_t beta_index, const char* name);
  /// A vector parameter as the layer uses it: its value (1D) or its gathered column block.
  Tensor vector_value(std::size_t index, const std::string& name);
  /// Where a vector parameter's gradient accumulates: the main gradient (1D) or a zeroed
  /// fp32 buffer of the gathered block (2D) ...
  Tensor vector_grad(std::size_t index, const std::string& name);
  /// ... which this reduce-scatters into the main gradient (2D; collective "NAME.reduce_scatter");
  /// then reports it ready.
  /// 3D: all-reduces the partial over the vector's batch group ("NAME.all_reduce") and adds
  /// it to the main gradient.
  void vector_grad_done(std::size_t index, Tensor& grad, const std::string& name);
  /// 3D: orientation of the input of a linear (cube_ops.hpp): QKV, FC1 and the output layer
  /// read layer-oriented activations, out-proj and FC2 the swapped outputs of QKV and FC1.
  static CubeSide cube_input_side(LinearKind kind) {
    return kind == LinearKind::row ? CubeSide::swapped : CubeSide::layer;
  }
  /// Token and position embedding (and its dropout) of the micro batch: the first layer's input.
  Tensor embed(TokenBatch& batch, ForwardState& state, bool keep);
  /// Final LayerNorm, logits and loss from the last layer's output `x`.
  ForwardState forward_head(TokenBatch batch, Tensor x, ForwardState state, double loss_scale,
                            bool keep);
  /// Backward of the loss, logits and final LayerNorm: the gradient of the last layer's output.
  Tensor backward_head(ForwardState& state, double loss_scale);
  /// Backward of the embedding from the gradient of the first layer's input.
  void backward_embedding(ForwardState& state, Tensor dx);
  /// Tag (global layer index) of local layer `l`.
  std::int32_t layer_tag(std::size_t l) const {
    const auto local = static_cast<std::int64_t>(l);
    return static_cast<std::int32_t>(first_layer_ + local / chunk_layers_ * chunk_stride_ +
                                     local % chunk_layers_);
  }
  /// The embedding belongs to the first stage's chunk 0, the head to the last stage's last chunk.
  bool has_embedding(std::int64_t chunk) const { return options_.part.embedding && chunk == 0; }
  bool has_head(std::int64_t chunk) const {
    return options_.part.head && chunk == options_.part.chunks - 1;
  }
  /// One layer's forward; `keep` marks its tensors saved for backward (false: the forward
  /// of a fully recomputed layer, whose tensors die with `saved`).
  Tensor layer_forward(std::size_t layer, const Tensor& x, LayerSaved& saved, bool keep);
  /// QKᵀ, softmax, dropout, P·V from saved.qkv; fills probs, masks when `keep`.
  Tensor attention_core(LayerSaved& saved, bool keep);
  Tensor layer_backward(std::size_t layer, Tensor dy, LayerSaved saved);
  /// Input of a column-parallel linear: the sequence shard gathered (SP) or `x` itself.
  Tensor gather_sequence(const Tensor& x, const char* name);
  /// Output of a row-parallel linear: reduce-scattered (SP) or all-reduced over TP.
  Tensor reduce_output(Tensor partial, const char* name);
  /// Backward of a column-parallel linear y = x·W (+ bias handled by the caller): re-gathers
  /// the sequence-sharded input (SP) for the weight gradient, dgrad, reduce-scatters (SP) or
  /// all-reduces dX overlapped with the wgrad GEMM. `transpose_w`: y = x·Wᵀ (tied output).
  /// The caller reports the weight's gradient ready (the tied one gets more later).
  Tensor column_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                         bool transpose_w, const char* name);
  void mark(const Tensor& t, bool keep) {
    if (keep && t.defined()) backend_.mark_saved(t);
  }
  /// Inference frees each activation once its last consumer ran (training keeps it in the
  /// layer's LayerSaved for the backward pass or the end of a recomputed layer).
  void consumed(std::initializer_list<Tensor*> tensors) {
    if (!options_.forward_only) return;
    for (Tensor* t : tensors)
      t->reset();
  }
  bool sequence_parallel() const { return options_.sequence_parallel; }
  std::int64_t first_position() const {
    return sequence_parallel() ? tp_.rank * (shape_.seq_len / tp_.size) : 0;
  }
  void set_tag(std::int32_t layer, program::Phase phase);
  void ready(std::size_t index);
  /// Sets `hooks_` for one pass (no hooks: ones that do nothing); sharded state needs hooks.
  void attach(ParameterHooks* hooks);
  const Tensor& value(std::size_t index) const { return parameters_[index].value; }
  /// The gradient to accumulate into; the hooks provide it first if it is undefined.
  Tensor& grad(std::size_t index);
  /// Sequences of this rank's activation block (b / q with 2D, b / q² with 3D).
  std::int64_t local_micro_batch() const {
    return shape_.micro_batch / (cube_ ? tp_.side() * tp_.side() : tp_.side());
  }
  /// Collectives of the vocabulary-parallel loss run over the TP group (1D), the row (2D) or
  /// the input group (3D: the logits' vocabulary block is j).
  CommGroup vocab_group() const {
    if (cube_) return CommGroup::input;
    return grid_ ? CommGroup::row : CommGroup::tensor;
  }
  bool vocab_split() const { return grid_ || cube_ ? true : tp_.size > 1; }
  /// First vocabulary id of this rank's logits: TP rank (1D), column block j (2D) or
  /// vocabulary block j (3D).
  std::int64_t vocab_begin() const {
    if (cube_) return tp_.cube->j * (shape_.vocab / cube_->side());
    return grid_ ? tp_.cell->column * (shape_.vocab / grid_->side())
                 : tp_.rank * (shape_.vocab / tp_.size);
  }
  /// First vocabulary id of this rank's embedding rows: TP rank (1D), row block i (2D), or
  /// row chunk j·q + i of q² (3D).
  std::int64_t embedding_vocab_begin() const {
    if (cube_) {
      const std::int64_t q = cube_->side();
      return (tp_.cube->j * q + tp_.cube->i) * (shape_.vocab / (q * q));
    }
    return grid_ ? tp_.cell->row * (shape_.vocab / grid_->side()) : vocab_begin();
  }
  /// What the backward keeps of a vector parameter used by the forward: its gathered column
  /// block (2D, marked saved when `keep`); nothing with 1D and 3D, whose backward reads the
  /// parameter itself (with ZeRO-3 regathered before the backward, not held from the forward).
  Tensor saved_vector(const Tensor& used, bool keep) {
    if (!grid_) return {};
    mark(used, keep);
    return used;
  }
  /// The vector parameter `index` as the backward reads it: the saved gathered block (2D) or
  /// the parameter's value (1D).
  const Tensor& backward_vector(const Tensor& saved, std::size_t index) const {
    return saved.defined() ? saved : value(index);
  }

  Backend& backend_;
  GptShape shape_;
  TensorParallelPosition tp_;
  GptOptions options_;
  std::optional<GridOps> grid_;  // 2D
  std::optional<CubeOps> cube_;  // 3D
  AttentionShape attention_;
  std::vector<Parameter> parameters_;
  std::size_t word_embedding_ = 0;
  std::size_t position_embedding_ = 0;
  std::vector<LayerParams> layer_params_;
  std::size_t final_gamma_ = 0;
  std::size_t final_beta_ = 0;
  std::int64_t first_layer_ = 0;     // global index of layer_params_[0]
  std::int64_t chunk_layers_ = 1;    // layers per chunk
  std::int64_t chunk_stride_ = 0;    // global index distance between chunks
  std::int16_t chunk_ = 0;           // chunk of the pass in progress (tags)
  std::int32_t micro_batch_ = 0;     // tag of the pass in progress
  ParameterHooks* hooks_ = nullptr;  // set by attach() for each pass
};

}  // namespace trainsim
