#include "sim/analysis/layout_space.hpp"

#include <fmt/format.h>

#include "models/build_program.hpp"
#include "models/errors.hpp"

namespace trainsim::sim {
namespace {

/// The divisors of `n`, ascending. By pairs k, n / k up to √n: the innermost loop of the
/// enumeration asks for those of a global batch of up to ~10^4 sequences once per outer
/// combination, and trying every k up to n took most of a 16 384-GPU enumeration.
std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> low;
  std::vector<std::int64_t> high;
  for (std::int64_t k = 1; k * k <= n; ++k) {
    if (n % k != 0) continue;
    low.push_back(k);
    if (k != n / k) high.push_back(n / k);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

/// The tensor blocks of `size` GPUs: 1D with and without SP, and the grid kinds whose shape
/// makes exactly `size` (every 2.5D split q²·d with q, d >= 2).
std::vector<TensorParallel> tensor_blocks(std::int64_t size, bool grids, bool comm_overlap) {
  std::vector<TensorParallel> out;
  out.push_back({TensorKind::one_d, size, false, 1, GridOrder::row_major});
  if (size >= 2) {
    out.push_back({TensorKind::one_d, size, true, 1, GridOrder::row_major, comm_overlap});
  }
  if (!grids) return out;
  for (std::int64_t q = 2; q * q <= size; ++q) {
    if (q * q == size) out.push_back({TensorKind::two_d, size, false, 1, GridOrder::row_major});
  }
  for (std::int64_t q = 2; q * q * 2 <= size; ++q) {
    if (size % (q * q) == 0 && size / (q * q) >= 2) {
      out.push_back(
          {TensorKind::two_and_half_d, size, false, size / (q * q), GridOrder::row_major});
    }
  }
  for (std::int64_t q = 2; q * q * q <= size; ++q) {
    if (q * q * q == size) {
      out.push_back({TensorKind::three_d, size, false, 1, default_grid_order(TensorKind::three_d)});
    }
  }
  return out;
}

/// The schedules of p stages: p = 1: plain accumulation (1f1b) and layered; p >= 2 the rest.
/// When p does not divide the layers, p >= 3 stages whose first and last hold one layer less
/// than the others, if that splits them (Llama 3 405B: 126 layers on 16 stages, 7 + 14 × 8 +
/// 7; those stages also hold the embedding and the head), with the schedules that model
/// uneven stages (gpipe, 1f1b); else none.
std::vector<PipelineParallel> pipelines(std::int64_t p, std::int64_t layers) {
  std::vector<PipelineParallel> out;
  if (layers % p != 0) {
    if (p < 3 || (layers + 2) % p != 0 || (layers + 2) / p < 2) return out;
    for (const PipelineSchedule schedule :
         {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
      PipelineParallel pipeline{p, schedule, 1};
      pipeline.first_stage_layers = (layers + 2) / p - 1;
      pipeline.last_stage_layers = pipeline.first_stage_layers;
      out.push_back(pipeline);
    }
    return out;
  }
  if (p == 1) {
    out.push_back({1, PipelineSchedule::one_f_one_b, 1});
    out.push_back({1, PipelineSchedule::layered, layers});
    return out;
  }
  out.push_back({p, PipelineSchedule::gpipe, 1});
  out.push_back({p, PipelineSchedule::one_f_one_b, 1});
  for (std::int64_t v : divisors(layers / p)) {
    if (v < 2) continue;
    out.push_back({p, PipelineSchedule::interleaved, v});
    out.push_back({p, PipelineSchedule::breadth_first, v});
  }
  out.push_back({p, PipelineSchedule::layered, layers / p});
  return out;
}

/// Expert-parallel sizes of a stage of `stage` GPUs: 1 for a dense model; with experts every
/// size dividing both the experts and the stage (Megatron-Core draws the expert groups from
/// the stage's tensor, context and data ranks).
std::vector<std::int64_t> expert_sizes(const ModelSpec& model, std::int64_t stage) {
  if (!model.moe) return {1};
  std::vector<std::int64_t> out;
  for (std::int64_t e : divisors(stage)) {
    if (model.moe->experts % e == 0) out.push_back(e);
  }
  return out;
}

bool accepted(const ModelSpec& model, const ParallelPlan& plan, const TrainingSpec& training) {
  try {
    return !support_problem(model, plan, training).has_value();
  } catch (const Infeasible&) {  // a helper of the check that throws rather than returns
    return false;
  }
}

}  // namespace

std::string describe(const Layout& layout) {
  const ParallelPlan& p = layout.plan;
  std::string tensor = fmt::format("{} t={}", to_string(p.tensor.kind), p.tensor.size);
  if (p.tensor.kind == TensorKind::two_and_half_d) tensor += fmt::format(" d={}", p.tensor.depth);
  if (p.tensor.sequence_parallel) tensor += p.tensor.comm_overlap ? " sp overlap" : " sp";
  if (p.context.size > 1) tensor += fmt::format(" · cp {}", p.context.size);
  if (p.expert.size > 1) tensor += fmt::format(" · ep {}", p.expert.size);
  std::string pipe = fmt::format("pp {} {}", p.pipeline.size, to_string(p.pipeline.schedule));
  if (p.pipeline.chunks > 1) pipe += fmt::format(" v={}", p.pipeline.chunks);
  if (p.pipeline.first_stage_layers)
    pipe += fmt::format(" first {}", *p.pipeline.first_stage_layers);
  if (p.pipeline.last_stage_layers) pipe += fmt::format(" last {}", *p.pipeline.last_stage_layers);
  return fmt::format("{} · {} · dp {} zero {}{} · recompute {} · mb {}", tensor, pipe, p.data.size,
                     p.data.zero, p.data.overlap_param_gather ? " gather overlapped" : "",
                     to_string(p.recompute), layout.micro_batch);
}

TrainingSpec training_of(const Layout& layout, std::int64_t global_batch) {
  TrainingSpec training;
  training.global_batch = global_batch;
  training.micro_batch = layout.micro_batch;
  training.fp8 = layout.fp8;
  return training;
}

std::vector<Layout> enumerate_layouts(const ModelSpec& model, std::int64_t gpus,
                                      std::int64_t global_batch,
                                      const LayoutSpaceOptions& options) {
  if (gpus < 1) throw Infeasible(fmt::format("gpus: {}; use 1 or more", gpus));
  if (global_batch < 1) {
    throw Infeasible(fmt::format("global_batch: {}; use 1 or more sequences", global_batch));
  }
  std::vector<Layout> out;
  // The grids run the GPT layer alone (support_problem): for any other model they are left out
  // here, not by that check's message, built for each of their ~10^4 layouts.
  const bool grids = options.tensor_grids && model.gpt_layer();
  for (std::int64_t t : divisors(gpus)) {
    for (const TensorParallel& tensor : tensor_blocks(t, grids, options.tp_comm_overlap)) {
      for (std::int64_t c : divisors(gpus / t)) {
        if (c > options.max_context) break;
        ParallelPlan with_context;
        with_context.tensor = tensor;
        with_context.context.size = c;
        if (context_parallel_problem(model, with_context)) continue;
        for (std::int64_t p : divisors(gpus / (t * c))) {
          const std::vector<PipelineParallel> schedules = pipelines(p, model.layers);
          if (schedules.empty()) continue;
          const std::int64_t d = gpus / (t * c * p);
          if (global_batch % d != 0) continue;
          for (std::int64_t e : expert_sizes(model, t * c * d)) {
            for (const PipelineParallel& pipeline : schedules) {
              for (int zero = 0; zero <= (d * c == 1 ? 0 : 3); ++zero) {
                for (Recompute recompute :
                     {Recompute::none, Recompute::selective, Recompute::full}) {
                  for (std::int64_t mb : divisors(global_batch / d)) {
                    if (mb > options.max_micro_batch) break;
                    Layout layout;
                    layout.plan.tensor = tensor;
                    layout.plan.context.size = c;
                    layout.plan.expert.size = e;
                    layout.plan.pipeline = pipeline;
                    layout.plan.data = {d, zero, options.overlap_grad_reduce,
                                        options.overlap_param_gather && (zero == 1 || zero == 2)};
                    layout.plan.recompute = recompute;
                    layout.micro_batch = mb;
                    layout.fp8 = options.fp8;
                    if (options.keep && !options.keep(layout)) continue;
                    if (accepted(model, layout.plan, training_of(layout, global_batch))) {
                      out.push_back(layout);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace trainsim::sim
