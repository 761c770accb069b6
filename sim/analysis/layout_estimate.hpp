#pragma once
// The cheap estimate of a layout's iteration time and peak memory that `trainsim plan` ranks
// the whole space by before it replays the best few in full (layout_search). One job: turn a
// few replays of reduced Programs into estimates for every layout.
//
// The reduced Program of a layout keeps its tensor block, data-parallel size, ZeRO stage,
// recomputation and micro batch, but runs l layers on one pipeline stage with m micro
// batches per replica, for l, m in {1, 2} (four replays: `ReducedKey` identifies them, and
// layouts that differ only in pipeline size and schedule share them). The four times fit
// T(l, m) = a + b·l + c·m + e·l·m exactly: c + e·l is the forward and backward of one micro
// batch through l layers with the embedding and head, a + b·l what happens once per
// iteration (the data-parallel reduction's exposed part, the optimizer step). Then for p
// stages of L/p layers and m micro batches:
//   T ≈ a + b·L/p + m·(c + e·L/p) + B·e·L/p,  B = p − 1 (gpipe, 1f1b) or (p − 1)/v
//   (interleaved; breadth-first and layered when m >= p, else p − 1: each chunk loop drains),
// the bubble of parallelism-reference §7 in micro-batch times of the stage's layers. The
// slowest stage is charged the embedding and the head on every micro batch. Pipelines add
// 2·(m·v + p − 1) blocking stage-boundary transfers of mb·s·h/t elements, across nodes at
// the node's NIC bandwidth shared by its GPUs (within a node at the GPU's fabric bandwidth).
// a + b·l and c + e·l are each at least the busiest GPU's compute-stream time's (its kernels
// fit exactly); ZeRO 2 and 3 pipelines pay the data-parallel part of a micro batch (beyond
// compute_layout's fit) once per run of a chunk's passes (data_parallel_rounds), not per m.
// tests/sim/test_layout_search.cpp bounds |T − replay| / replay on a set of layouts.
//
// Peak memory: what each run holds outside communication buffers at its fullest instant
// (weights, gradients, optimizer state, activations, temporaries) fits N(l, m) the same way;
// the buffers do not grow with depth (double-buffered buckets, one-ahead gathers), so the
// peak is N plus C, what the two-layer runs' peaks add to their N: N(L, m) + C with one
// stage. A pipeline splits the run's ends. The first stage holds the embedding and its layers
// in flight (A per layer and micro batch: the activations at N's instant of l = 2 minus
// l = 1): 1f1b min(p, m) micro batches, gpipe, breadth-first and layered m, interleaved
// Megatron's warm-up 2(p − 1) + (v − 1)p + 1 chunk passes (at most m·v) of L/(p·v) layers.
// The last stage holds the output layer, its layers in flight (1f1b one micro batch,
// interleaved (v − 1)p + 1 chunk passes, the others m) and the head's saved fp32 softmax
// (b·s·V/t) of each micro batch whose backward it has not run: one (1f1b, interleaved) or m.
// Untied, each end holds one vocabulary matrix where the run held two. The peak is the larger
// end's. `model_state_floor` is a closed-form lower bound (weights, fp32 gradients and Adam
// state of the stage's layers, sharded as the ZeRO stage says, nothing else) used to skip the
// replays of layouts that cannot fit at all.

#include <array>
#include <cstdint>
#include <string>

#include "models/build_program.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "models/program.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/analysis/program_shelf.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// What the estimate gives for one layout.
struct LayoutEstimate {
  Time iteration;
  Time bubble;  ///< B·e·L/p: the pipeline's idle time in the estimate
  Bytes peak;
};

/// The reduced layout whose replays serve `layout`: one stage, the rest kept (p = 1 layered
/// keeps its schedule, one layer per chunk; every other schedule becomes plain accumulation).
Layout reduced_layout(const Layout& layout);

/// A key naming the reduced layout (describe() of it): layouts with equal keys share replays.
std::string reduced_key(const Layout& layout);

/// The reduced layout of the compute alone: reduced_layout without data parallelism (d = 1,
/// ZeRO 0), replayed on the tensor block's GPUs only, so cheap even where d is large; with
/// experts, the fewest data ranks their groups need (e / gcd(e, t·c)), so that the
/// all-to-all stays in it.
Layout compute_layout(const Layout& layout);

/// A lower bound on the bytes one GPU of `layout` holds (see above).
Bytes model_state_floor(const ModelSpec& model, const Layout& layout);

/// The pipeline's largest stage (the first of them): 0 with even stages, a middle one with
/// lighter ends. The estimate extrapolates to it and charges it the embedding and the head.
std::int64_t largest_stage(const ModelSpec& model, const ParallelPlan& plan);
/// Its layers: L/p, or with uneven stages the middle ones'.
std::int64_t largest_stage_layers(const ModelSpec& model, const ParallelPlan& plan);

/// Parameters a GPU of pipeline stage `stage` holds, for the closed forms above.
struct StageParameters {
  double dense = 0.0;        ///< attention, norms, dense MLPs, router, shared experts: before TP
  double experts = 0.0;      ///< routed experts of the stage's MoE layers, already over EP
  double expert_data = 1.0;  ///< GPUs the experts' optimizer state is sharded over (t·c·d / e)
};
StageParameters stage_parameters(const ModelSpec& model, const Layout& layout, std::int64_t stage);

/// The reduced layout's Program with `layers` layers on its one stage and `micro_batches` micro
/// batches per replica (representative ranks, for nodes of `gpus_per_node` GPUs: 0, any):
/// what the estimate's replays and the traffic floor read.
/// `scope` first_rank: rank 0's alone (KernelFloor's sums).
program::Program reduced_program(const ModelSpec& model, const Layout& reduced, std::int64_t layers,
                                 std::int64_t micro_batches, std::int64_t gpus_per_node = 0,
                                 ProgramScope scope = ProgramScope::representative);

/// f(l, m) = a + b·l + c·m + e·l·m, fitted exactly to its values at l, m in {1, 2}.
struct Bilinear {
  double a = 0, b = 0, c = 0, e = 0;
  static Bilinear fit(double f11, double f12, double f21, double f22);
  double at(double l, double m) const { return a + b * l + c * m + e * l * m; }
  auto operator<=>(const Bilinear&) const = default;
};

/// A floor on an iteration of `plan` with `micro_batches` micro batches per replica, from
/// fits taken at the largest stage's `stage_layers` layers: `once` per iteration (the optimizer
/// step at d = 1: divided by DP × CP where ZeRO shards it), `per_micro_batch` per micro batch,
/// and with a pipeline the bubble's micro batches of `per_layer` (one layer, one micro batch)
/// times the stage's layers.
Time iteration_floor(const ParallelPlan& plan, std::int64_t micro_batches, double stage_layers,
                     double once, double per_micro_batch, double per_layer);

/// Runs of passes of one chunk in one direction, per chunk: how often ZeRO 2 and 3 reduce
/// (and gather) a chunk in an iteration. 1F1B and interleaved alternate forward and backward
/// passes in their steady state (m); gpipe, breadth-first and layered run every micro batch
/// through a chunk at once (1).
std::int64_t data_parallel_rounds(const PipelineParallel& pp, std::int64_t micro_batches);

/// What a pipeline's runs of passes hold at full size with ZeRO 2 and 3 (bytes per GPU).
struct RunBuffers {
  double gradients = 0;
  double weights = 0;
};
RunBuffers run_buffers(const ModelSpec& model, const Layout& layout, std::int64_t micro_batches);

/// What one reduced run holds (bytes): its peak, the most live outside communication buffers
/// at an instant, and the activations live at that instant.
struct RunMemory {
  double peak = 0;
  double held = 0;
  double activations = 0;
};

/// The estimate's peak memory (see above), fitted on a reduced layout's four runs.
class MemoryFit {
 public:
  MemoryFit() = default;
  /// `runs`: (l, m) = (1,1), (1,2), (2,1), (2,2).
  MemoryFit(const ModelSpec& model, const Layout& reduced, const std::array<RunMemory, 4>& runs);

  /// The peak of `layout` (whose reduced_layout was fitted) at `micro_batches` per replica.
  Bytes peak(const ModelSpec& model, const Layout& layout, std::int64_t micro_batches) const;

  /// Fitted on compute_layout(layout): the d = 1 peak less the bytes ZeRO shards away (weights,
  /// fp32 gradients and Adam state of the stage's layers and the embedding, each times 1 − 1/d,
  /// counted generously so that it stays an underestimate of the full estimate's peak).
  Bytes sharded_floor(const ModelSpec& model, const Layout& layout,
                      std::int64_t global_batch) const;

 private:
  double pipeline_peak(const ParallelPlan& plan, std::int64_t micro_batches,
                       std::int64_t stage_layers, const RunBuffers& run) const;

  Bilinear held_bytes_;    ///< the most live outside communication buffers
  double comm_bytes_ = 0;  ///< what the peak adds to it (communication buffers)
  double activation_bytes_per_layer_ = 0;
  double head_activation_bytes_ = 0;        ///< one micro batch's
  double activations_one_micro_batch_ = 0;  ///< at the fullest instant of l = 1, m = 1
  double vocab_state_bytes_ = 0;            ///< one vocabulary matrix's weights and state, untied
};

/// The four replays of one reduced layout, fitted.
class ReducedFit {
 public:
  /// Replays `reduced` (one stage) with l, m in {1, 2}. Throws Infeasible when the executor
  /// rejects a reduced Program (it accepts them whenever it accepts the layout).
  /// `shelf`: where the traffic floor left the reduced layout's Programs (taken from it), or
  /// null.
  ReducedFit(const ModelSpec& model, const Layout& reduced, const hw::HardwareProfile& hardware,
             ProgramShelf* shelf = nullptr);

  /// The estimate for `layout` (whose reduced_layout is the one fitted) at `global_batch`.
  /// `compute`, the fit of compute_layout(layout), tells the data-parallel part of a micro
  /// batch, which ZeRO 2 and 3 pipelines pay once per run of passes, not per micro batch.
  LayoutEstimate estimate(const ModelSpec& model, const Layout& layout, std::int64_t global_batch,
                          const ReducedFit* compute = nullptr) const;

  /// Fitted on compute_layout(layout) (d = 1, ZeRO 0): `iteration` is the micro batches and
  /// the bubble, plus the once-per-iteration part a + b·L/p (the optimizer step at d = 1)
  /// divided by d when ZeRO shards the optimizer; data parallelism only adds communication
  /// to that, so a layout's estimate is (up to the fits' extrapolation) at least this: the
  /// search's lower bound. `peak` is the d = 1 peak less the bytes ZeRO shards away
  /// (weights, fp32 gradients and Adam state of the stage's layers and the embedding, each
  /// times 1 − 1/d, counted generously so that the peak stays an underestimate of
  /// estimate()'s): the search prunes on it before fitting the full reduced layout.
  LayoutEstimate compute_floor(const ModelSpec& model, const Layout& layout,
                               std::int64_t global_batch) const;

 private:
  double bubble_s(const ParallelPlan& plan, std::int64_t micro_batches, double stage_layers) const;

  /// Once per iteration (a + b·l) and per micro batch (c + e·l), each at least the compute
  /// stream's.
  double once_s(double layers) const;
  double per_micro_batch_s(double layers) const;

  Bilinear time_s_;
  Bilinear busy_s_;        ///< the busiest GPU's compute-stream time
  MemoryFit memory_;
  double transfer_s_ = 0;  ///< one stage-boundary transfer of a micro batch
};

}  // namespace trainsim::sim
