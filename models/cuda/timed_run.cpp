#include "models/cuda/timed_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/build_program.hpp"
#include "models/cuda/cuda_backend.hpp"
#include "models/errors.hpp"
#include "models/transformer.hpp"
#include "models/rank_layout.hpp"
#include "models/train_step.hpp"

namespace trainsim::cuda {

namespace {

constexpr double kInitStddev = 0.02;  // GPT-2's initialisation

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void check_timed_plan(const Scenario& scenario) {
  const ParallelPlan& plan = scenario.parallel;
  if (plan.tensor.kind != TensorKind::one_d) {
    throw Infeasible(fmt::format(
        "--backend cuda --time runs 1D tensor parallelism for now; parallel.tensor.kind is {}",
        to_string(plan.tensor.kind)));
  }
  if (plan.context.size > 1) {
    throw Infeasible(fmt::format(
        "--backend cuda --time has no context-parallel ring kernels yet; parallel.context.size "
        "is {} (valid: 1)",
        plan.context.size));
  }
  if (scenario.training.fp8) {
    throw Infeasible(
        "--backend cuda --time has no FP8 GEMMs yet; training.precision is fp8 (valid: bf16)");
  }
  if (plan.tensor.comm_overlap) {
    throw Infeasible(
        "--backend cuda --time has no userbuffers ring exchange yet; parallel.tensor.comm_overlap "
        "is true (valid: false)");
  }
  if (scheduled_passes(plan)) {
    throw Infeasible(fmt::format(
        "--backend cuda --time runs no pipeline schedule yet; parallel.pipeline is size {} "
        "schedule {} (valid: size 1 with a schedule other than layered)",
        plan.pipeline.size, to_string(plan.pipeline.schedule)));
  }
}

// Random weights, masters copied from them (Adam then keeps weights and masters equal).
void initialise(CudaBackend& cuda, TransformerModel& gpt, OptimizerState& optimizer, std::uint64_t seed) {
  std::span<Parameter> params = gpt.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].value.defined()) continue;
    const double mean = ends_with(params[i].name, ".gamma") ? 1.0 : 0.0;
    cuda.fill_normal(params[i].value, mean, kInitStddev, seed + i);
  }
  for (const AdamTensors& t : optimizer.tensors)
    cuda.copy_flat(std::span<const Tensor>(&t.param, 1), 0, t.master);
  for (std::size_t b = 0; b < optimizer.shards.size(); ++b) {
    AdamShard& shard = optimizer.shards[b];
    if (shard.param.defined()) {  // ZeRO 3: the shard is the only copy of the weights
      cuda.fill_normal(shard.param, 0.0, kInitStddev, seed + params.size() + b);
      cuda.copy_flat(std::span<const Tensor>(&shard.param, 1), 0, shard.master);
      continue;
    }
    std::vector<Tensor> values;
    for (const std::size_t p : optimizer.buckets[b].parameters)
      values.push_back(params[p].value);
    cuda.copy_flat(values, shard.offset, shard.master);
  }
  cuda.synchronize();
}

// Per op, the median over the repetitions (issue order is the same in each).
std::vector<MeasuredOp> medians(const std::vector<std::vector<MeasuredOp>>& runs) {
  std::vector<MeasuredOp> out = runs.front();
  for (const auto& run : runs) {
    if (run.size() != out.size()) {
      throw std::logic_error(
          fmt::format("cuda timing: repetitions issued different op counts ({} and {})", out.size(),
                      run.size()));
    }
  }
  std::vector<double> times(runs.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t r = 0; r < runs.size(); ++r)
      times[r] = runs[r][i].seconds;
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    out[i].seconds = times[times.size() / 2];
  }
  return out;
}

}  // namespace

MeasuredRun run_timed(const Scenario& scenario, const TimedRunOptions& options) {
  const ModelSpec& model = scenario.model;
  const ParallelPlan& plan = scenario.parallel;
  const TrainingSpec& training = scenario.training;
  check_supported(model, plan, training);
  check_timed_plan(scenario);
  if (options.repetitions < 1 || options.warmup < 0) {
    throw std::invalid_argument(
        fmt::format("--repetitions {} and --warmup {}: need at least 1 repetition and 0 warm-ups",
                    options.repetitions, options.warmup));
  }

  const RankLayout layout(plan);
  const std::int64_t rank = 0;
  const std::int64_t t = layout.tp_size();
  // The model's dropouts, as build_program records them.
  const TransformerShape shape =
      TransformerShape::of(model, model.padded_vocab(plan.tensor.vocab_shards()),
                           training.micro_batch, model.hidden_dropout, model.attention_dropout);
  TransformerOptions model_options{plan.tensor.sequence_parallel, plan.recompute};
  shard_model_state(model_options, plan.data.zero);
  model_options.forward_only = training.inference();

  IterationConfig config = iteration_config(model, plan, training);

  CudaBackendOptions backend_options;
  backend_options.vocab = model.vocab;
  backend_options.seed = options.seed;
  CudaBackend cuda(rank, layout.tp_group(rank), layout.gradient_group(rank), backend_options);
  // The optimizer step's norm and overflow all-reduces: skipped and counted, as the others.
  if (config.model_parallel > 1)
    cuda.bind(CommGroup::model, layout.model_group(rank, norm_over_every_rank(model, plan)));

  MeasuredRun run;
  run.scenario = scenario.name;
  run.hardware = scenario.hardware;
  run.rank = rank;
  run.device = cuda.device_name();
  run.warmup = options.warmup;
  run.repetitions = options.repetitions;
  {
    TransformerModel gpt(cuda, shape, TensorParallelPosition{0, t}, model_options);
    const OptimizerLayout optimizer_layout = optimizer_layout_of(model, plan, layout, rank);
    OptimizerState optimizer;  // inference: no optimizer state
    if (!training.inference()) optimizer = make_optimizer_state(cuda, gpt, optimizer_layout);
    initialise(cuda, gpt, optimizer, options.seed);

    std::vector<std::vector<MeasuredOp>> runs;
    std::vector<double> iterations;
    for (std::int64_t i = 0; i < options.warmup + options.repetitions; ++i) {
      const bool timed = i >= options.warmup;
      cuda.clear_skipped();
      if (timed) cuda.start_timing();
      config.adam.step = i + 1;
      Tensor loss = training.inference() ? run_inference(cuda, gpt, config)
                                         : run_iteration(cuda, gpt, optimizer, config);
      loss.reset();
      if (timed) {
        double seconds = 0.0;
        runs.push_back(cuda.stop_timing(seconds));
        iterations.push_back(seconds);
      } else {
        cuda.synchronize();
      }
    }
    run.skipped = cuda.skipped();
    run.ops = medians(runs);
    std::nth_element(iterations.begin(),
                     iterations.begin() + static_cast<std::ptrdiff_t>(iterations.size() / 2),
                     iterations.end());
    run.iteration_seconds = iterations[iterations.size() / 2];
  }
  return run;
}

}  // namespace trainsim::cuda
