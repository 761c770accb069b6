#pragma once
// What every block of one rank's transformer shares: the backend, the rank's tensor-parallel
// position and the model's options, the parameter table, the hooks and tags of the pass in
// progress, and the parallel forms the blocks are written against: a linear layer and a vector
// parameter under Megatron's 1D split (column/row, f/g, sequence parallelism), on a 2D SUMMA
// grid (grid_ops.hpp) or on a 3D cube (cube_ops.hpp). A block says "a column-parallel linear"
// and the context runs the form of this rank's TP kind.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/backend.hpp"
#include "models/cube_ops.hpp"
#include "models/grid_ops.hpp"
#include "models/parameter.hpp"
#include "models/transformer_options.hpp"

namespace trainsim {

/// A linear layer's place in Megatron's 1D split: column-parallel (its output split over the
/// TP group), row-parallel (its input split, output reduced) or the output layer (logits
/// through the tied word embedding, y = x·Eᵀ, column-parallel over the vocabulary).
enum class LinearKind : std::uint8_t { column, row, output };

class LayerContext {
 public:
  LayerContext(Backend& backend, const TransformerShape& shape, TensorParallelPosition tp,
               const TransformerOptions& options);

  Backend& backend() { return backend_; }
  const TransformerShape& shape() const { return shape_; }
  const TransformerOptions& options() const { return options_; }
  const TensorParallelPosition& tp() const { return tp_; }
  /// The 2D grid's ops (nullptr without a grid) and the 3D cube's (nullptr without a cube).
  GridOps* grid() { return grid_ ? &*grid_ : nullptr; }
  CubeOps* cube() { return cube_ ? &*cube_ : nullptr; }
  bool sequence_parallel() const { return options_.sequence_parallel; }

  // --- parameters ----------------------------------------------------------------------------
  /// Registers a parameter of `full_shape`: `one_d` is its 1D split (2D derives its split
  /// from it), `on_cube` its split on a 3D cube; allocates this rank's shard and its fp32 main
  /// gradient unless sharded. Returns its index in parameters().
  std::size_t add_parameter(std::string name, Shape full_shape, Split one_d, Split on_cube,
                            std::int32_t layer, bool sequence_parallel = false);
  std::vector<Parameter>& parameters() { return parameters_; }
  const std::vector<Parameter>& parameters() const { return parameters_; }
  const Tensor& value(std::size_t index) const { return parameters_[index].value; }
  /// The gradient to accumulate into; the hooks provide it first if it is undefined.
  Tensor& grad(std::size_t index);
  /// The gradient of parameter `index` is final for this micro batch.
  void ready(std::size_t index) { hooks_->grad_ready(index); }

  // --- the pass in progress ------------------------------------------------------------------
  /// Starts a forward or backward pass of micro batch `micro_batch`, model chunk `chunk`, told
  /// to `hooks` (null: hooks that do nothing; sharded state needs hooks).
  void begin_pass(ParameterHooks* hooks, std::int64_t micro_batch, std::int64_t chunk);
  void end_pass() { hooks_ = nullptr; }
  /// A new step: the FP8 weight copies of the last one are dropped (cast again on first use).
  void begin_step() { fp8_weights_.clear(); }
  ParameterHooks& hooks() { return *hooks_; }
  /// The micro batch of the pass in progress.
  std::int32_t micro_batch() const { return micro_batch_; }
  /// Tags the ops issued from now on with `layer` (a global index, or Tag::kNoLayer) and `phase`.
  void set_tag(std::int32_t layer, program::Phase phase);

  // --- activations ---------------------------------------------------------------------------
  void mark(const Tensor& t, bool keep) {
    if (keep && t.defined()) backend_.mark_saved(t);
  }
  /// Inference frees each activation once its last consumer ran (training keeps it for the
  /// backward pass or to the end of a recomputed layer).
  void consumed(std::initializer_list<Tensor*> tensors) {
    if (!options_.forward_only) return;
    for (Tensor* t : tensors)
      t->reset();
  }
  /// Sequences of this rank's activation block (b / q with 2D, b / q² with 3D).
  std::int64_t local_micro_batch() const {
    return shape_.micro_batch / (cube_ ? tp_.side() * tp_.side() : tp_.side());
  }
  /// Tokens of each sequence this rank holds: seq_len, or its 1/c share with context
  /// parallelism (two chunks: AttentionShape::position).
  std::int64_t local_seq_len() const { return shape_.seq_len / options_.context.size; }
  /// Position of this rank's first token in its sequence shard (SP), else 0 (learned positions
  /// only, which context parallelism does not run).
  std::int64_t first_position() const {
    return sequence_parallel() ? tp_.rank * (local_seq_len() / tp_.size) : 0;
  }

  // --- linear layers -------------------------------------------------------------------------
  /// y = x·W of a column- or row-parallel linear (1D, with f/g or SP's g/ḡ), SUMMA (2D) or
  /// Linear3D (3D). `saved_input`, when given, receives what the backward reads of x: x itself,
  /// or with FP8 its FP8 copy (columnwise; with SP the sequence shard), which the caller keeps
  /// in place of x.
  Tensor linear(const Tensor& x, std::size_t weight, LinearKind kind, const std::string& name,
                Tensor* saved_input = nullptr);
  /// Its backward from what `linear` gave as saved_input: returns dx, accumulates the weight
  /// gradient (the caller reports it ready).
  Tensor linear_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                         LinearKind kind, const std::string& name);
  /// Whether this linear runs its GEMMs in FP8 (Transformer Engine's layers: 1D, not the
  /// output layer, which Megatron keeps in bf16).
  bool fp8(LinearKind kind) const {
    return options_.fp8.has_value() && !grid_ && !cube_ && kind != LinearKind::output;
  }
  /// Parameter `weight` in FP8: cast once per step and kept (TE's weight cache across the
  /// micro batches), or with ZeRO-3 cast from each gathered copy.
  Fp8Tensor fp8_weight(std::size_t weight, const std::string& name);
  /// Input of a column-parallel linear: the sequence shard gathered (SP) or `x` itself.
  Tensor gather_sequence(const Tensor& x, const std::string& name);
  /// Output of a row-parallel linear: reduce-scattered (SP) or all-reduced over TP.
  Tensor reduce_output(Tensor partial, const std::string& name);

  // --- vector parameters (norm gains, biases) ------------------------------------------------
  /// A vector parameter as the layer uses it: its value (1D) or its gathered column block (2D).
  Tensor vector_value(std::size_t index, const std::string& name);
  /// Where a vector parameter's gradient accumulates: the main gradient (1D) or a zeroed
  /// fp32 buffer of the gathered block (2D) ...
  Tensor vector_grad(std::size_t index, const std::string& name);
  /// ... which this reduce-scatters into the main gradient (2D; collective
  /// "NAME.reduce_scatter"); 3D: all-reduces the partial over the vector's batch group
  /// ("NAME.all_reduce") and adds it to the main gradient. Then reports it ready.
  void vector_grad_done(std::size_t index, Tensor& grad, const std::string& name);
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

  // --- the vocabulary-parallel embedding and loss --------------------------------------------
  /// Collectives of the vocabulary-parallel loss run over the TP group (1D), the row (2D) or
  /// the input group (3D: the logits' vocabulary block is j).
  CommGroup vocab_group() const {
    if (cube_) return CommGroup::input;
    return grid_ ? CommGroup::row : CommGroup::tensor;
  }
  bool vocab_split() const { return grid_ || cube_ ? true : tp_.size > 1; }
  /// First vocabulary id of this rank's logits: TP rank (1D), column block j (2D) or
  /// vocabulary block j (3D).
  std::int64_t vocab_begin() const;
  /// First vocabulary id of this rank's embedding rows: TP rank (1D), row block i (2D), or
  /// row chunk j·q + i of q² (3D).
  std::int64_t embedding_vocab_begin() const;

 private:
  /// Backward of a column-parallel linear y = x·W (+ bias handled by the caller): re-gathers
  /// the sequence-sharded input (SP) for the weight gradient, dgrad, reduce-scatters (SP) or
  /// all-reduces dX overlapped with the wgrad GEMM. `transpose_w`: y = x·Wᵀ (tied output).
  Tensor column_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                         bool transpose_w, const std::string& name);
  /// A column-parallel linear's saved input as its wgrad reads it: all-gathered (SP) or itself.
  Tensor gather_saved_input(const Tensor& x_saved, const std::string& name);
  /// A column-parallel linear's input gradient reduced over TP: reduce-scattered (SP) or
  /// all-reduced.
  Tensor reduce_input_grad(Tensor dx, const std::string& name);
  /// Whether this linear's sequence gather or scatter runs as a ring exchange under its GEMMs
  /// (TransformerOptions::tp_comm_overlap: the layers' 1D column and row linears with SP).
  bool ring_overlap(LinearKind kind) const {
    return options_.tp_comm_overlap && !grid_ && !cube_ && sequence_parallel() && tp_.size > 1 &&
           kind != LinearKind::output;
  }
  /// Column-parallel y = gather(shard)·W as Transformer Engine's ring-exchange all-gather +
  /// GEMM: the rank's own shard first, then each shard from the previous rank, passed on to
  /// the next while its GEMM computes; each GEMM writes its shard's rows of y.
  Tensor ring_gather_matmul(const Tensor& shard, const Tensor& w, const std::string& name);
  /// Row-parallel y = reduce_scatter(x·W) as the GEMM + reduce-scatter ring: at step s the rank
  /// computes the rows of rank (r − s − 1) mod t, adds the partial sum the previous rank passed
  /// on, and passes it to the next while the next rows compute; the last rows are its own.
  Tensor ring_matmul_scatter(const Tensor& x, const Tensor& w, const std::string& name);
  /// The FP8 forms of linear and linear_backward (1D column and row linears).
  Tensor fp8_linear(const Tensor& x, std::size_t weight, LinearKind kind, const std::string& name,
                    Tensor* saved_input);
  Tensor fp8_linear_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                             LinearKind kind, const std::string& name);
  /// 3D: orientation of the input of a linear (cube_ops.hpp): QKV, FC1 and the output layer
  /// read layer-oriented activations, out-proj and FC2 the swapped outputs of QKV and FC1.
  static CubeSide cube_input_side(LinearKind kind) {
    return kind == LinearKind::row ? CubeSide::swapped : CubeSide::layer;
  }

  Backend& backend_;
  TransformerShape shape_;
  TensorParallelPosition tp_;
  TransformerOptions options_;
  std::optional<GridOps> grid_;  // 2D
  std::optional<CubeOps> cube_;  // 3D
  std::vector<Parameter> parameters_;
  std::map<std::size_t, Fp8Tensor> fp8_weights_;  // FP8: each weight's copies for the step
  std::int16_t chunk_ = 0;           // chunk of the pass in progress (tags)
  std::int32_t micro_batch_ = 0;     // tag of the pass in progress
  ParameterHooks* hooks_ = nullptr;  // set by begin_pass() for each pass
};

}  // namespace trainsim
