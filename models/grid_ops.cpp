#include "models/grid_ops.hpp"

#include <string>

#include "models/split_layer_norm.hpp"

namespace trainsim {

using program::Stream;

Tensor GridOps::matmul(const Tensor& a, const Tensor& b, std::string_view name) {
  const std::string n(name);
  Tensor c;
  pipelined(
      [&](std::int64_t l) {
        return std::pair{backend_.broadcast(a, CommGroup::row, l, stream_of(CommGroup::row),
                                            n + ".row_broadcast"),
                         backend_.broadcast(b, CommGroup::column, l, stream_of(CommGroup::column),
                                            n + ".column_broadcast")};
      },
      [&](std::int64_t l, const std::pair<Tensor, Tensor>& panels) {
        if (l == 0) {
          c = backend_.matmul(panels.first, panels.second, false, false, n);
        } else {
          backend_.matmul_accumulate(panels.first, panels.second, false, false, c, n);
        }
      });
  return c;
}

Tensor GridOps::matmul_bt(const Tensor& a, const Tensor& b, std::string_view name) {
  const std::string n(name);
  Tensor out;
  PartialBuffers partials;
  pipelined(
      [&](std::int64_t l) {
        return backend_.broadcast(b, CommGroup::column, l, stream_of(CommGroup::column),
                                  n + ".column_broadcast");
      },
      [&](std::int64_t l, const Tensor& panel) {
        partials.reuse(backend_, l);
        Tensor partial = backend_.matmul(a, panel, false, true, n);
        backend_.reduce(partial, CommGroup::row, l, stream_of(CommGroup::row), n + ".row_reduce");
        // Only the root's buffer holds the sum: C_il lives on (i, l).
        if (l == cell_.column) out = partial;
        partials.hold(l, std::move(partial));
      });
  partials.drain(backend_);
  return out;
}

void GridOps::matmul_at_accumulate(const Tensor& a, const Tensor& b, Tensor& c,
                                   std::string_view name) {
  const std::string n(name);
  PartialBuffers partials;
  pipelined(
      [&](std::int64_t l) {
        return backend_.broadcast(a, CommGroup::row, l, stream_of(CommGroup::row),
                                  n + ".row_broadcast");
      },
      [&](std::int64_t l, const Tensor& panel) {
        partials.reuse(backend_, l);
        Tensor partial = backend_.matmul(panel, b, true, false, n);
        backend_.reduce(partial, CommGroup::column, l, stream_of(CommGroup::column),
                        n + ".column_reduce");
        if (l == cell_.row) backend_.accumulate(c, partial, n + ".accumulate");
        partials.hold(l, std::move(partial));
      });
  partials.drain(backend_);
}

void GridOps::PartialBuffers::reuse(Backend& backend, std::int64_t step) {
  Tensor& slot = slots_[static_cast<std::size_t>(step % 2)];
  if (!slot.defined()) return;
  backend.wait_for(Stream::compute, slot);
  slot.reset();
}

void GridOps::PartialBuffers::hold(std::int64_t step, Tensor partial) {
  slots_[static_cast<std::size_t>(step % 2)] = std::move(partial);
}

void GridOps::PartialBuffers::drain(Backend& backend) {
  for (Tensor& slot : slots_) {
    if (slot.defined()) backend.wait_for(Stream::compute, slot);
    slot.reset();
  }
}

Tensor GridOps::gather_vector(const Tensor& shard, Shape shape, std::string_view name) {
  return backend_.all_gather(shard, CommGroup::column, stream_of(CommGroup::column), name)
      .reshaped(shape);
}

void GridOps::scatter_gradient(const Tensor& partial, Tensor& shard_grad, std::string_view name) {
  // Row chunk i of the [q, n/q²] view is the shard device (i, j) owns.
  const Tensor chunks = partial.reshaped({1, side_, partial.numel() / side_});
  const Tensor mine =
      backend_.reduce_scatter(chunks, CommGroup::column, stream_of(CommGroup::column), name);
  backend_.accumulate(shard_grad, mine, std::string(name) + ".accumulate");
}

LayerNormResult GridOps::layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                    std::int64_t hidden, std::string_view name) {
  return split_layer_norm(backend_, CommGroup::row, x, gamma, beta, hidden, name);
}

Tensor GridOps::layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                    const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                    std::int64_t hidden, std::string_view name) {
  return split_layer_norm_backward(backend_, CommGroup::row, dy, x, gamma, stats, dgamma, dbeta,
                                   hidden, name);
}

}  // namespace trainsim
