#pragma once
// Megatron's rank order: tensor-parallel rank varies fastest, then context-parallel, then
// data-parallel, then pipeline stage (parallelism-reference §11.4; Megatron-Core's default
// "tp-cp-ep-dp-pp"), so a TP group sits inside one node and a CP ring next to it. With 2D
// and 2.5D the TP block is a SUMMA grid laid out by the plan's grid order (tensor_grid.hpp),
// with 3D a cube (tensor_cube.hpp).

#include <cstdint>
#include <optional>
#include <vector>

#include "models/backend.hpp"
#include "models/parallel_plan.hpp"
#include "models/tensor_cube.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

struct RankCoordinates {
  std::int64_t tp = 0;
  std::int64_t dp = 0;
  std::int64_t pp = 0;
  std::int64_t cp = 0;  ///< context-parallel rank
};

class RankLayout {
 public:
  explicit RankLayout(const ParallelPlan& plan)
      : tp_(plan.tensor.size),
        cp_(plan.context.size),
        dp_(plan.data.size),
        pp_(plan.pipeline.size),
        ep_(plan.expert.size) {
    if (plan.tensor.kind == TensorKind::three_d) {
      cube_.emplace(plan.tensor);
    } else if (plan.tensor.kind != TensorKind::one_d) {
      grid_.emplace(plan.tensor);
    }
  }

  std::int64_t world_size() const { return tp_ * cp_ * dp_ * pp_; }
  std::int64_t tp_size() const { return tp_; }
  std::int64_t cp_size() const { return cp_; }
  std::int64_t dp_size() const { return dp_; }
  std::int64_t pp_size() const { return pp_; }

  RankCoordinates coordinates(std::int64_t rank) const {
    return {rank % tp_, (rank / (tp_ * cp_)) % dp_, rank / (tp_ * cp_ * dp_), (rank / tp_) % cp_};
  }
  std::int64_t rank_of(RankCoordinates c) const {
    return c.tp + tp_ * (c.cp + cp_ * (c.dp + dp_ * c.pp));
  }

  /// Ranks sharing `rank`'s CP, DP and PP coordinates, in TP order.
  std::vector<std::int64_t> tp_group(std::int64_t rank) const;
  /// Ranks sharing `rank`'s TP, CP and PP coordinates, in DP order.
  std::vector<std::int64_t> dp_group(std::int64_t rank) const;
  /// Ranks sharing `rank`'s TP, CP and DP coordinates, in stage order.
  std::vector<std::int64_t> pp_group(std::int64_t rank) const;
  /// Ranks sharing `rank`'s TP, DP and PP coordinates, in CP order: the attention ring.
  std::vector<std::int64_t> cp_group(std::int64_t rank) const;

  /// Expert parallelism (Megatron-Core's MoE parallel folding, expert TP 1): a stage's
  /// t·c·d ranks in Megatron order (TP fastest, then CP, then DP) cut into consecutive blocks
  /// of `expert.size`, each an expert-parallel group; the ranks at the same place of every
  /// block form an expert-data-parallel group, which sums the gradients of the same experts.
  std::int64_t ep_size() const { return ep_; }
  std::int64_t expert_data_size() const { return tp_ * cp_ * dp_ / ep_; }
  /// `rank`'s expert-parallel group, in block order.
  std::vector<std::int64_t> expert_group(std::int64_t rank) const;
  /// `rank`'s expert-data-parallel group, in block order.
  std::vector<std::int64_t> expert_data_group(std::int64_t rank) const;
  /// `rank`'s position in its expert-parallel group (which experts it holds).
  std::int64_t expert_position(std::int64_t rank) const { return stage_index(rank) % ep_; }
  /// `rank`'s position in its expert-data-parallel group.
  std::int64_t expert_data_position(std::int64_t rank) const { return stage_index(rank) / ep_; }

  /// The SUMMA grid of the TP block (2D, 2.5D), or nullopt (1D).
  const std::optional<TensorGrid>& grid() const { return grid_; }
  /// `rank`'s cell on the grid; requires a grid.
  GridCell cell(std::int64_t rank) const { return grid_->cell(coordinates(rank).tp); }
  /// Ranks of `rank`'s grid row (same row, depth, DP and PP), in column order; requires a grid.
  std::vector<std::int64_t> row_group(std::int64_t rank) const;
  /// Ranks of `rank`'s grid column, in row order; requires a grid.
  std::vector<std::int64_t> column_group(std::int64_t rank) const;
  /// Ranks holding the same parameter shard as `rank`, whose gradients are summed each step:
  /// the DP group (1D, 2D), with context parallelism the CP ranks of every DP replica
  /// (Megatron's data-parallel group with CP: each CP rank's gradients cover its own tokens),
  /// or with 2.5D the depth layers of every DP replica (the depth axis splits the batch, so it
  /// is data parallelism; parallelism-reference §4.2). Ordered by DP index, then CP or depth.
  std::vector<std::int64_t> gradient_group(std::int64_t rank) const;
  /// Megatron's model-parallel group, over which the optimizer step sums the gradient norm and
  /// takes the maximum of the fp16 overflow flag: the ranks holding one copy of the model, i.e.
  /// the TP blocks of every pipeline stage with `rank`'s DP and CP index (2.5D: and its depth
  /// layer, whose grids are copies like DP replicas); with `sharded` gradients (the distributed
  /// optimizer, ZeRO 2 and 3: each rank of the gradient group holds a distinct shard) every
  /// rank (the distributed optimizer's model-parallel group is the world). Ascending rank order.
  std::vector<std::int64_t> model_group(std::int64_t rank, bool sharded) const;
  /// The cube of the TP block (3D), or nullopt.
  const std::optional<TensorCube>& cube() const { return cube_; }
  /// `rank`'s cell on the cube; requires a cube.
  CubeCell cube_cell(std::int64_t rank) const { return cube_->cell(coordinates(rank).tp); }
  /// Ranks of `rank`'s cube group `group` (input, weight, output, input_weight,
  /// output_weight), in the order of the varying coordinates with the last one named fastest:
  /// input_weight is ordered by i·q + j, output_weight by i·q + k; requires a cube.
  std::vector<std::int64_t> cube_group(std::int64_t rank, CommGroup group) const;
  /// True for the ranks that form the TP block of DP replica 0 and pipeline stage 0 whose
  /// programs a representative replay records (a whole grid of depth 0, or the whole cube).
  bool in_first_block(std::int64_t rank) const;

  /// Size of gradient_group: DP x CP x depth.
  std::int64_t gradient_group_size() const { return dp_ * cp_ * (grid_ ? grid_->depth() : 1); }
  /// `rank`'s position in its gradient_group.
  std::int64_t gradient_group_position(std::int64_t rank) const {
    const RankCoordinates c = coordinates(rank);
    return (c.dp * cp_ + c.cp) * (grid_ ? grid_->depth() : 1) + (grid_ ? cell(rank).depth : 0);
  }

 private:
  /// `rank`'s index among its stage's ranks in Megatron order: tp + t·(cp + c·dp).
  std::int64_t stage_index(std::int64_t rank) const { return rank % (tp_ * cp_ * dp_); }
  /// The stage's rank at index `index` (stage_index's inverse).
  std::int64_t at_stage_index(std::int64_t rank, std::int64_t index) const {
    return rank - stage_index(rank) + index;
  }

  /// The ranks that differ from `rank` only in the coordinate `axis` (0 .. size-1).
  std::vector<std::int64_t> group_along(std::int64_t rank, std::int64_t RankCoordinates::*axis,
                                        std::int64_t size) const;

  /// The ranks whose cells differ from `rank`'s only in `axis` (0 .. grid side - 1).
  std::vector<std::int64_t> grid_line(std::int64_t rank, std::int64_t GridCell::*axis) const;

  std::int64_t tp_;
  std::int64_t cp_;
  std::int64_t dp_;
  std::int64_t pp_;
  std::int64_t ep_;
  std::optional<TensorGrid> grid_;
  std::optional<TensorCube> cube_;
};

}  // namespace trainsim
