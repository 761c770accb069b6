#pragma once
// The operations of 2D tensor parallelism on one device (i, j) of a q x q grid, written over
// `Backend` (parallelism-reference §3): the three SUMMA products (panel broadcasts along rows
// and columns, partial-product reductions, double-buffered so the next panels travel while
// the current GEMM runs), LayerNorm over a hidden dimension split along the row, and the
// ColossalAI handling of vectors (biases, LayerNorm gains, position table) stored as [n/q²]
// shards that are all-gathered over the column before use and whose gradients are
// reduce-scattered back. 2.5D runs the same operations inside each depth layer's grid.
// Row collectives run on Stream::tp and column collectives on Stream::tp_column: the row and
// column process groups are separate NCCL communicators, each with its own stream, so a
// step's row and column broadcasts travel at the same time. Partial products are
// double-buffered as in ColossalAI, which bounds how far compute runs ahead of the reductions.

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "models/backend.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

class GridOps {
 public:
  /// Operations of device `cell` on a grid of side `side` whose row and column communicators
  /// are bound on `backend` (CommGroup::row, CommGroup::column).
  GridOps(Backend& backend, GridCell cell, std::int64_t side)
      : backend_(backend), cell_(cell), side_(side) {}

  GridCell cell() const { return cell_; }
  std::int64_t side() const { return side_; }

  /// C = A·B: this device's block C_ij = Σ_l A_il · B_lj (Optimus SUMMA_AB, ColossalAI
  /// Matmul_AB_2D): q steps, each broadcasting A_il along the row and B_lj along the column.
  Tensor matmul(const Tensor& a, const Tensor& b, std::string_view name);
  /// C = A·Bᵀ: C_il = Σ_j A_ij · B_ljᵀ (Matmul_ABT_2D): step l broadcasts B_lj along the
  /// column and reduces the partial product along the row to (i, l).
  Tensor matmul_bt(const Tensor& a, const Tensor& b, std::string_view name);
  /// c += Aᵀ·B: c_lj += Σ_i A_ilᵀ · B_ij (Matmul_ATB_2D, the weight gradient): step l
  /// broadcasts A_il along the row and reduces the partial product along the column to
  /// (l, j), which adds it to `c`.
  void matmul_at_accumulate(const Tensor& a, const Tensor& b, Tensor& c, std::string_view name);

  /// This column's block of a vector parameter, `shape` (q x the shard's elements), from
  /// this device's shard: all-gather over the column (ColossalAI all_gather_tensor_2d).
  Tensor gather_vector(const Tensor& shard, Shape shape, std::string_view name);
  /// shard_grad += this device's chunk of the column sum of `partial` (the gradient of
  /// gather_vector: reduce-scatter over the column).
  void scatter_gradient(const Tensor& partial, Tensor& shard_grad, std::string_view name);

  /// LayerNorm of [T/q, h/q] rows whose hidden dimension `hidden` spans the row group:
  /// mean and variance (two passes) all-reduced over the row.
  LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             std::int64_t hidden, std::string_view name);
  /// Its backward: one all-reduce over the row of the two [T/q] sums the gradient needs;
  /// dgamma and dbeta get this device's partial (column-block) sums.
  Tensor layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                             const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                             std::int64_t hidden, std::string_view name);

 private:
  /// Runs step(l, panel(l)) for l = 0 .. q-1, issuing panel(l + 1) before step l so the
  /// next broadcast travels while step l computes (ColossalAI's double buffering).
  template <typename Panel, typename Step>
  void pipelined(Panel panel, Step step) {
    auto next = panel(0);
    for (std::int64_t l = 0; l < side_; ++l) {
      const auto current = std::move(next);
      if (l + 1 < side_) next = panel(l + 1);
      step(l, current);
    }
  }

  /// ColossalAI's two partial-product buffers (C_list in Matmul_ABT_2D and Matmul_ATB_2D):
  /// step l's GEMM overwrites the buffer of step l - 2, so it waits until that step's
  /// reduction has sent it, and the products wait for every reduction at the end. Without
  /// this the compute stream would run ahead of the reductions with a new [T/q, n/q] buffer
  /// per step (q of them for the logits).
  class PartialBuffers {
   public:
    /// Before step `step`'s GEMM: the compute stream waits for the reduction of step - 2,
    /// whose buffer is then released.
    void reuse(Backend& backend, std::int64_t step);
    /// Keeps step `step`'s partial (being reduced) until its buffer is reused.
    void hold(std::int64_t step, Tensor partial);
    /// After the last step: the compute stream waits for every reduction in flight.
    void drain(Backend& backend);

   private:
    std::array<Tensor, 2> slots_;
  };

  Backend& backend_;
  GridCell cell_;
  std::int64_t side_;
};

}  // namespace trainsim
