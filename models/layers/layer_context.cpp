#include "models/layers/layer_context.hpp"

#include <stdexcept>
#include <utility>

#include "models/errors.hpp"

namespace trainsim {

using program::MemoryCategory;
using program::Phase;

namespace {

// Without a training step that shards state, nothing needs to happen around the passes.
class NoHooks final : public ParameterHooks {
 public:
  void before_forward(std::int32_t) override {}
  void after_forward(std::int32_t) override {}
  void before_backward(std::int32_t) override {}
  void before_gradient(std::size_t) override {}
  void after_backward(std::int32_t) override {}
  void grad_ready(std::size_t) override {}
};

// The column block a 2D rank gathers of a vector parameter of full shape `full`.
Shape gathered_shape(Shape full, std::int64_t q) {
  return {1, full.batch * full.rows, full.cols / q};
}

}  // namespace

LayerContext::LayerContext(Backend& backend, const TransformerShape& shape,
                           TensorParallelPosition tp, const TransformerOptions& options)
    : backend_(backend), shape_(shape), tp_(tp), options_(options) {
  const std::int64_t t = tp.size;
  const std::int64_t q = tp.side();
  if (tp.cell) grid_.emplace(backend, *tp.cell, q);
  if (tp.cube) cube_.emplace(backend, *tp.cube, q);
  // 1D splits heads, ffn and vocabulary t ways; 2D splits heads and vocabulary q ways,
  // vectors of hidden and ffn q² ways and the micro batch q ways; 3D splits heads q ways,
  // weights' input dimension (hidden, ffn), the vocabulary and the micro batch q² ways.
  const std::int64_t split = tp.cell || tp.cube ? q : t;
  const std::int64_t square_split = tp.cell || tp.cube ? q * q : 1;
  const std::int64_t batch_split = tp.cube ? q * q : q;
  if (shape.heads % split != 0 || shape.ffn % (tp.cell || tp.cube ? q * q : t) != 0 ||
      shape.vocab % (tp.cube ? q * q : split) != 0 ||
      (!shape.head_size && shape.hidden % shape.heads != 0) ||
      shape.hidden % square_split != 0 || shape.micro_batch % batch_split != 0) {
    throw Infeasible("gpt: heads (" + std::to_string(shape.heads) + "), ffn (" +
                     std::to_string(shape.ffn) + "), padded vocabulary (" +
                     std::to_string(shape.vocab) + "), hidden (" + std::to_string(shape.hidden) +
                     ") and micro batch (" + std::to_string(shape.micro_batch) +
                     ") must be divisible as the TP split (size " + std::to_string(t) +
                     ") needs, and hidden by heads unless head_dim is given");
  }
  if (options.sequence_parallel &&
      (t < 2 || (shape.seq_len / options.context.size) % t != 0 || tp.cell || tp.cube)) {
    throw Infeasible("gpt: sequence parallelism needs 1D TP > 1 (got " + std::to_string(t) +
                     ") and seq_len (" + std::to_string(shape.seq_len) +
                     ") divisible by the TP size");
  }
}

std::size_t LayerContext::add_parameter(std::string name, Shape full_shape, Split one_d,
                                        Split on_cube, std::int32_t layer,
                                        bool sequence_parallel) {
  Parameter p;
  const Split split = cube_ ? on_cube : split_for(one_d, full_shape, grid_.has_value());
  p.shape = local_shape(full_shape, split, tp_.size, tp_.side(), options_.expert.size);
  if (!options_.shard_parameters) {
    p.value = backend_.allocate(p.shape, shape_.dtype, MemoryCategory::parameters, name);
  }
  // Megatron with bf16 keeps fp32 main gradients (accumulate_allreduce_grads_in_fp32).
  if (!options_.shard_gradients && !options_.forward_only) {
    p.grad = backend_.allocate(p.shape, DType::fp32, MemoryCategory::gradients, name + ".grad");
  }
  p.name = std::move(name);
  p.full_shape = full_shape;
  p.split = split;
  p.layer = layer;
  p.sequence_parallel = sequence_parallel;
  p.expert = split == Split::experts;
  parameters_.push_back(std::move(p));
  return parameters_.size() - 1;
}

Tensor& LayerContext::grad(std::size_t index) {
  Tensor& g = parameters_[index].grad;
  if (!g.defined()) hooks_->before_gradient(index);
  return g;
}

void LayerContext::begin_pass(ParameterHooks* hooks, std::int64_t micro_batch,
                              std::int64_t chunk) {
  static NoHooks none;
  if (hooks == nullptr && (options_.shard_gradients || options_.shard_parameters)) {
    throw std::invalid_argument("gpt: sharded gradients or parameters need ParameterHooks");
  }
  hooks_ = hooks != nullptr ? hooks : &none;
  micro_batch_ = static_cast<std::int32_t>(micro_batch);
  chunk_ = static_cast<std::int16_t>(chunk);
}

void LayerContext::set_tag(std::int32_t layer, Phase phase) {
  backend_.set_tag({layer, micro_batch_, chunk_, phase});
}

Tensor LayerContext::gather_sequence(const Tensor& x, const std::string& name) {
  if (!sequence_parallel()) return x;
  return backend_.all_gather(x, CommGroup::tensor, stream_of(CommGroup::tensor), name);
}

Tensor LayerContext::reduce_output(Tensor partial, const std::string& name) {
  if (tp_.size == 1) return partial;
  if (sequence_parallel()) {
    return backend_.reduce_scatter(partial, CommGroup::tensor, stream_of(CommGroup::tensor), name);
  }
  backend_.all_reduce({&partial, 1}, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                      name);
  return partial;
}

Tensor LayerContext::linear(const Tensor& x, std::size_t weight, LinearKind kind,
                            const std::string& name, Tensor* saved_input) {
  if (fp8(kind)) return fp8_linear(x, weight, kind, name, saved_input);
  if (saved_input != nullptr) *saved_input = x;
  if (grid_) {
    return kind == LinearKind::output ? grid_->matmul_bt(x, value(weight), name)
                                      : grid_->matmul(x, value(weight), name);
  }
  if (cube_) {
    return cube_->linear(x, value(weight), cube_input_side(kind), kind == LinearKind::output,
                         name);
  }
  if (kind == LinearKind::row) {
    if (ring_overlap(kind)) return ring_matmul_scatter(x, value(weight), name);
    Tensor partial = backend_.matmul(x, value(weight), false, false, name);
    return reduce_output(std::move(partial),
                         name + (sequence_parallel() ? ".reduce_scatter" : ".all_reduce"));
  }
  if (ring_overlap(kind)) return ring_gather_matmul(x, value(weight), name);
  // With SP the gathered [T, h] input is not kept: backward gathers it again.
  const Tensor in = gather_sequence(x, name + ".all_gather");
  return backend_.matmul(in, value(weight), false, kind == LinearKind::output, name);
}

Tensor LayerContext::linear_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                                     LinearKind kind, const std::string& name) {
  if (fp8(kind)) return fp8_linear_backward(dy, x_saved, weight, kind, name);
  if (grid_) {
    // Y = X·W: dX = dY·Wᵀ, dW = Xᵀ·dY. Logits Y = X·Eᵀ: dX = dY·E, dE = dYᵀ·X (§3.2).
    if (kind == LinearKind::output) {
      Tensor dx = grid_->matmul(dy, value(weight), name + ".dgrad");
      grid_->matmul_at_accumulate(dy, x_saved, grad(weight), name + ".wgrad");
      return dx;
    }
    Tensor dx = grid_->matmul_bt(dy, value(weight), name + ".dgrad");
    grid_->matmul_at_accumulate(x_saved, dy, grad(weight), name + ".wgrad");
    return dx;
  }
  if (cube_) {
    return cube_->linear_backward(dy, x_saved, value(weight), grad(weight), cube_input_side(kind),
                                  kind == LinearKind::output, name);
  }
  if (kind != LinearKind::row) {
    return column_backward(dy, x_saved, weight, kind == LinearKind::output, name);
  }
  // Row-parallel: g's backward is the identity; ḡ's (SP) is an all-gather.
  const Tensor d = gather_sequence(dy, name + ".dgrad.all_gather");
  Tensor dx = backend_.matmul(d, value(weight), false, true, name + ".dgrad");
  backend_.matmul_accumulate(x_saved, d, true, false, grad(weight), name + ".wgrad");
  return dx;
}

Tensor LayerContext::gather_saved_input(const Tensor& x_saved, const std::string& name) {
  // Megatron's LinearWithGradAccumulationAndAsyncCommunication: the input was saved
  // sequence-sharded; its all-gather runs on the TP stream while the dgrad GEMM computes.
  if (!sequence_parallel()) return x_saved;
  return backend_.all_gather(x_saved, CommGroup::tensor, stream_of(CommGroup::tensor),
                             name + ".input.all_gather");
}

Tensor LayerContext::reduce_input_grad(Tensor dx, const std::string& name) {
  // f's backward (all-reduce) or g's (reduce-scatter), overlapped with the wgrad GEMM.
  if (sequence_parallel()) {
    return backend_.reduce_scatter(dx, CommGroup::tensor, stream_of(CommGroup::tensor),
                                   name + ".dgrad.reduce_scatter");
  }
  if (tp_.size > 1) {
    backend_.all_reduce({&dx, 1}, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                        name + ".dgrad.all_reduce");
  }
  return dx;
}

Tensor LayerContext::column_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                                     bool transpose_w, const std::string& name) {
  Backend& b = backend_;
  const Tensor x = gather_saved_input(x_saved, name);
  Tensor dx =
      reduce_input_grad(b.matmul(dy, value(weight), false, !transpose_w, name + ".dgrad"), name);
  if (transpose_w) {
    b.matmul_accumulate(dy, x, true, false, grad(weight), name + ".wgrad");
  } else {
    b.matmul_accumulate(x, dy, true, false, grad(weight), name + ".wgrad");
  }
  return dx;
}

Tensor LayerContext::ring_gather_matmul(const Tensor& shard, const Tensor& w,
                                        const std::string& name) {
  Backend& b = backend_;
  const std::int64_t t = tp_.size;
  Tensor y = b.allocate({1, shard.shape().rows * t, w.shape().cols},
                        gemm_output_dtype(shard.dtype()), MemoryCategory::temporaries, name);
  Tensor current = shard;
  for (std::int64_t step = 0; step < t; ++step) {
    // The shard this GEMM reads travels on while it computes (none after the last).
    Tensor incoming;
    if (step + 1 < t) {
      incoming = b.ring_shift(current, CommGroup::tensor, stream_of(CommGroup::tensor),
                              name + ".ring_exchange");
    }
    b.matmul_rows(current, 0, 1, w, false, y, (tp_.rank - step + t) % t, t, name);
    current = std::move(incoming);
  }
  return y;
}

Tensor LayerContext::ring_matmul_scatter(const Tensor& x, const Tensor& w,
                                         const std::string& name) {
  Backend& b = backend_;
  const std::int64_t t = tp_.size;
  Tensor passed;  // the partial sum the previous rank passed on
  for (std::int64_t step = 0; step < t; ++step) {
    const std::int64_t rows_of = (tp_.rank - step - 1 + 2 * t) % t;
    Tensor partial = b.allocate({1, x.shape().rows / t, w.shape().cols},
                                gemm_output_dtype(x.dtype()), MemoryCategory::temporaries, name);
    b.matmul_rows(x, rows_of, t, w, false, partial, 0, 1, name);
    if (step > 0) {
      b.accumulate(partial, passed, name + ".ring_add");
      passed.reset();  // freed before the next step's buffer: two in flight, as TE's ring
    }
    if (step + 1 == t) return partial;
    passed = b.ring_shift(partial, CommGroup::tensor, stream_of(CommGroup::tensor),
                          name + ".ring_exchange");
  }
  throw std::logic_error("ring_matmul_scatter: a ring of one rank");
}

Fp8Tensor LayerContext::fp8_weight(std::size_t weight, const std::string& name) {
  const Fp8Recipe recipe = *options_.fp8;
  if (options_.shard_parameters) {
    return backend_.quantize_fp8(value(weight), recipe, MemoryCategory::temporaries,
                                 name + ".weight.fp8_cast");
  }
  const auto it = fp8_weights_.find(weight);
  if (it != fp8_weights_.end()) return it->second;
  // 2 bytes per parameter beside the bf16 weight (modern-models-reference §8.3), for the step.
  Fp8Tensor copy = backend_.quantize_fp8(value(weight), recipe, MemoryCategory::parameters,
                                         name + ".weight.fp8_cast");
  fp8_weights_.emplace(weight, copy);
  return copy;
}

Tensor LayerContext::fp8_linear(const Tensor& x, std::size_t weight, LinearKind kind,
                                const std::string& name, Tensor* saved_input) {
  Backend& b = backend_;
  const Fp8Recipe recipe = *options_.fp8;
  // TE casts the input where it is (with SP the sequence shard, whose FP8 rows are then
  // all-gathered: half the bytes of bf16) and keeps the columnwise copy for the wgrad GEMM.
  Fp8Tensor in = b.quantize_fp8(x, recipe, MemoryCategory::temporaries, name + ".fp8_cast");
  if (saved_input != nullptr) *saved_input = in.columnwise;
  in.columnwise.reset();
  const Fp8Tensor w = fp8_weight(weight, name);
  if (ring_overlap(kind)) {
    // The ring passes the FP8 rows (half the bytes of bf16), as TE's FP8 userbuffers do.
    Tensor y = kind == LinearKind::row ? ring_matmul_scatter(in.rowwise, w.rowwise, name)
                                       : ring_gather_matmul(in.rowwise, w.rowwise, name);
    in.rowwise.reset();
    return y;
  }
  if (kind == LinearKind::row) {
    Tensor partial = b.matmul(in.rowwise, w.rowwise, false, false, name);
    in.rowwise.reset();
    return reduce_output(std::move(partial),
                         name + (sequence_parallel() ? ".reduce_scatter" : ".all_reduce"));
  }
  const Tensor gathered = gather_sequence(in.rowwise, name + ".all_gather");
  in.rowwise.reset();
  return b.matmul(gathered, w.rowwise, false, false, name);
}

Tensor LayerContext::fp8_linear_backward(const Tensor& dy, const Tensor& x_saved,
                                         std::size_t weight, LinearKind kind,
                                         const std::string& name) {
  Backend& b = backend_;
  const Fp8Recipe recipe = *options_.fp8;
  const Fp8Tensor w = fp8_weight(weight, name);
  if (kind == LinearKind::row) {
    // dY (E5M2) cast once for the dgrad and wgrad GEMMs; ḡ's backward gathers it first (SP).
    const Tensor d = gather_sequence(dy, name + ".dgrad.all_gather");
    Fp8Tensor dq = b.quantize_fp8(d, recipe, MemoryCategory::temporaries, name + ".dgrad.fp8_cast");
    Tensor dx = b.matmul(dq.rowwise, w.columnwise, false, true, name + ".dgrad");
    dq.rowwise.reset();
    b.matmul_accumulate(x_saved, dq.columnwise, true, false, grad(weight), name + ".wgrad");
    return dx;
  }
  const Tensor x = gather_saved_input(x_saved, name);
  Fp8Tensor dq = b.quantize_fp8(dy, recipe, MemoryCategory::temporaries, name + ".dgrad.fp8_cast");
  Tensor dx =
      reduce_input_grad(b.matmul(dq.rowwise, w.columnwise, false, true, name + ".dgrad"), name);
  dq.rowwise.reset();
  b.matmul_accumulate(x, dq.columnwise, true, false, grad(weight), name + ".wgrad");
  return dx;
}

Tensor LayerContext::vector_value(std::size_t index, const std::string& name) {
  if (!grid_) return value(index);  // 1D, and 3D's [n/q] block (replicated over q² devices)
  return grid_->gather_vector(value(index),
                              gathered_shape(parameters_[index].full_shape, grid_->side()), name);
}

Tensor LayerContext::vector_grad(std::size_t index, const std::string& name) {
  // 3D: a partial over this device's rows, summed over the cube before it joins the main
  // gradient (ColossalAI all-reduces vector gradients in every backward pass).
  if (cube_) {
    return backend_.allocate(parameters_[index].shape, DType::fp32, MemoryCategory::temporaries,
                             name);
  }
  if (!grid_) return grad(index);
  return backend_.allocate(gathered_shape(parameters_[index].full_shape, grid_->side()),
                           DType::fp32, MemoryCategory::temporaries, name);
}

void LayerContext::vector_grad_done(std::size_t index, Tensor& partial, const std::string& name) {
  if (grid_) grid_->scatter_gradient(partial, grad(index), name + ".reduce_scatter");
  if (cube_) {
    const CubeSide side = parameters_[index].split == Split::cube_columns_swapped
                              ? CubeSide::swapped
                              : CubeSide::layer;
    cube_->reduce_vector_gradient(partial, grad(index), side, name + ".all_reduce");
  }
  ready(index);
}

std::int64_t LayerContext::vocab_begin() const {
  if (cube_) return tp_.cube->j * (shape_.vocab / cube_->side());
  return grid_ ? tp_.cell->column * (shape_.vocab / grid_->side())
               : tp_.rank * (shape_.vocab / tp_.size);
}

std::int64_t LayerContext::embedding_vocab_begin() const {
  if (cube_) {
    const std::int64_t q = cube_->side();
    return (tp_.cube->j * q + tp_.cube->i) * (shape_.vocab / (q * q));
  }
  return grid_ ? tp_.cell->row * (shape_.vocab / grid_->side()) : vocab_begin();
}

}  // namespace trainsim
