// The torchtitan import's pipeline: the schedule's name, torchtitan's split of the layers into
// (virtual) stages — by layers per stage, module names or 2024's split points — and how that
// split is written as trainsim's equal stages with a lighter first and last.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/import/torchtitan_importer.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

namespace {

// ---------------------------------------------------------------------------------------
// torchtitan's pipeline split (torchtitan/distributed/pipeline_parallel.py).

bool single_stage(std::string_view schedule) {
  return schedule == "1f1b" || schedule == "gpipe";
}

/// Layers per virtual stage as generate_llm_fqn_per_model_part splits them: the layers plus
/// `in` and `out` layer-equivalents for the embedding and the output spread as evenly as
/// they go (the remainder to the first stages), the first stage `in` layers lighter and the
/// last `out` lighter. Empty with `problem` set where torchtitan refuses the split.
std::vector<Int> torchtitan_split(Int stages, Int layers, Int in, Int out, std::string& problem) {
  const Int effective = layers + in + out;
  if (stages > effective) {
    problem = fmt::format(
        "{} stages for {} layers plus {} + {} for the embedding and output: "
        "torchtitan needs at most one stage per layer",
        stages, layers, in, out);
    return {};
  }
  const Int per = effective / stages;
  const Int extra = effective % stages;
  if (in > per || out > per) {
    problem = fmt::format(
        "first/last stage {} / {} layers lighter, but a stage holds only {}: "
        "torchtitan refuses weights above the layers per stage",
        in, out, per);
    return {};
  }
  std::vector<Int> counts;
  Int next = 0;
  for (Int s = 0; s < stages; ++s) {
    Int want = per + (s < extra ? 1 : 0);
    if (s == 0) want -= in;
    if (s == stages - 1 && stages > 1) want -= out;
    const Int take = std::max<Int>(0, std::min(want, layers - next));
    counts.push_back(take);
    next += take;
  }
  return counts;
}

std::string joined(const std::vector<Int>& counts) {
  std::string out;
  for (std::size_t k = 0; k < counts.size(); ++k)
    out += fmt::format("{}{}", k ? "/" : "", counts[k]);
  if (out.size() > 120) out = out.substr(0, 117) + "...";
  return out;
}

}  // namespace

void TorchtitanImporter::pipeline() {
  const Degrees& d = degrees_;
  const Setting schedule_s = config_.find(
      {"parallelism.pipeline_parallel_schedule", "experimental.pipeline_parallel_schedule"});
  const Setting csv_s = config_.find({"parallelism.pipeline_parallel_schedule_csv",
                                      "experimental.pipeline_parallel_schedule_csv"});
  const Setting lps_s = config_.find("parallelism.pipeline_parallel_layers_per_stage");
  const Setting in_s = config_.find("parallelism.pipeline_parallel_first_stage_less_layers");
  const Setting out_s = config_.find("parallelism.pipeline_parallel_last_stage_less_layers");
  const Setting fqns_s = config_.find("parallelism.module_fqns_per_model_part");
  const Setting split_s = config_.find({"parallelism.pipeline_parallel_split_points",
                                        "experimental.pipeline_parallel_split_points"});
  if (d.pipeline == 1) {
    for (const Setting* s : {&schedule_s, &csv_s, &lps_s, &in_s, &out_s, &fqns_s, &split_s})
      ignore(*s, "no pipeline (pipeline_parallel_degree 1)");
    return;
  }
  if (csv_s.node != nullptr && !config_.string(csv_s, "a path").empty()) {
    config_.fail(csv_s, "a custom schedule from a CSV file is not simulated; expected \"\"");
  }
  ignore(csv_s, "");

  // torch.distributed.pipelining's get_schedule_class: names compared case-insensitively;
  // 2024's own names had underscores ("interleaved_1f1b").
  std::string written = "1F1B";
  if (schedule_s.node != nullptr) written = config_.string(schedule_s, "a schedule name");
  std::string name;
  for (const char c : written) {
    if (c != '_') name += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  if (name == "1f1b" || name == "gpipe") {
    schedule_ = name;
  } else if (name == "interleaved1f1b") {
    schedule_ = "interleaved";
  } else if (name == "loopedbfs") {
    schedule_ = "breadth-first";
  } else if (name == "zbvzerobubble" || name == "dualpipev" || name == "interleavedzerobubble") {
    config_.fail(schedule_s,
                 "zero-bubble schedules (split backward passes) are not "
                 "simulated; trainsim runs \"1F1B\", \"GPipe\", \"Interleaved1F1B\" "
                 "and \"LoopedBFS\"");
  } else {
    config_.fail(schedule_s,
                 "unknown schedule; torchtitan's are \"1F1B\", \"GPipe\", "
                 "\"Interleaved1F1B\", \"LoopedBFS\", \"InterleavedZeroBubble\", "
                 "\"ZBVZeroBubble\", \"DualPipeV\"");
  }
  schedule_source_ = from(schedule_s, "\"1F1B\"");
  const bool single = single_stage(schedule_);
  const Int layers = flavor_->layers;

  const Int in = in_s.node == nullptr ? 1 : config_.integer(in_s, 0, kMaxLayers, "layers");
  const Int out = out_s.node == nullptr ? 1 : config_.integer(out_s, 0, kMaxLayers, "layers");
  std::vector<Int> counts;
  std::string split_origin;
  if (fqns_s.node != nullptr || split_s.node != nullptr) {
    if (fqns_s.node != nullptr && split_s.node != nullptr) {
      config_.fail(split_s, "module_fqns_per_model_part also sets the split: keep one");
    }
    counts = fqns_s.node != nullptr ? parts_layers(fqns_s, layers) : split_layers(split_s, layers);
    split_origin = config_.origin(fqns_s.node != nullptr ? fqns_s : split_s);
    ignore(in_s, "the split is given by module names");
    ignore(out_s, "the split is given by module names");
    ignore(lps_s, "the split is given by module names");
  } else {
    Int stages = d.pipeline * (single ? 1 : 2);
    if (lps_s.node != nullptr) {
      const Int lps = config_.integer(lps_s, 1, kMaxLayers, "layers per virtual stage");
      stages = (layers + in + out + lps - 1) / lps;
      split_origin = fmt::format("{}, first/last stage {} / {} layers lighter",
                                 config_.origin(lps_s), in, out);
    } else if (!single) {
      out_.notes.push_back(fmt::format(
          "{} without pipeline_parallel_layers_per_stage: torchtitan's default of 2 stages "
          "per rank, so parallel.pipeline.chunks 2",
          schedule_source_));
    }
    std::string problem;
    counts = torchtitan_split(stages, layers, in, out, problem);
    if (counts.empty()) {
      throw ConfigError(config_.where(lps_s.node != nullptr ? lps_s : d.pipeline_s), problem);
    }
    if (split_origin.empty()) {
      split_origin =
          fmt::format("{}, first/last stage {} / {} layers lighter ({}, {})",
                      config_.origin(d.pipeline_s), in, out, from(in_s, "1"), from(out_s, "1"));
    }
  }
  const Int stages = static_cast<Int>(counts.size());
  if (stages % d.pipeline != 0) {
    throw ConfigError(config_.where(d.pipeline_s),
                      fmt::format("{} virtual stages ({}) do not spread evenly over "
                                  "pipeline_parallel_degree {}",
                                  stages, split_origin, d.pipeline));
  }
  const Int per_rank = stages / d.pipeline;
  if (single && per_rank != 1) {
    config_.fail(schedule_s, fmt::format("a single-stage schedule needs one stage per rank; "
                                         "the split gives {} ({})",
                                         per_rank, split_origin));
  }
  if (!single && per_rank < 2) {
    config_.fail(schedule_s, fmt::format("a looped schedule needs 2 or more stages per rank; "
                                         "the split gives {} ({})",
                                         per_rank, split_origin));
  }
  chunks_ = per_rank;
  if (std::find(counts.begin(), counts.end(), 0) != counts.end()) {
    throw ConfigError(config_.where(d.pipeline_s),
                      fmt::format("torchtitan's split {} leaves a stage without layers ({}); "
                                  "trainsim's stages hold at least one",
                                  joined(counts), split_origin));
  }
  const bool even =
      std::all_of(counts.begin(), counts.end(), [&](Int c) { return c == counts.front(); });
  if (even) {
    out_.notes.push_back(fmt::format("pipeline split: {} layers per stage over {} stages ({})",
                                     counts.front(), stages, split_origin));
    return;
  }
  const std::string torchtitan_text =
      fmt::format("torchtitan splits the {} layers over {} stages as {} ({})", layers, stages,
                  joined(counts), split_origin);
  if (!single) {
    if (layers % stages != 0) {
      throw ConfigError(config_.where(d.pipeline_s),
                        fmt::format("{}; trainsim's {} schedule needs equal stages, and {} "
                                    "layers do not divide by {}",
                                    torchtitan_text, schedule_, layers, stages));
    }
    out_.notes.push_back(
        fmt::format("{}; trainsim's {} schedule splits evenly: {} layers per "
                    "stage",
                    torchtitan_text, schedule_, layers / stages));
    return;
  }
  // trainsim: a first and a last count, the stages between equal.
  Int first = counts.front();
  Int last = counts.back();
  Int middle = 0;
  for (std::size_t k = 1; k + 1 < counts.size(); ++k)
    middle = std::max(middle, counts[k]);
  const Int between = stages - 2;
  Int deficit = between * middle - (layers - first - last);
  while (deficit-- > 0)
    (first > last ? first : last) -= 1;
  if (first < 1 || last < 1) {
    throw ConfigError(config_.where(d.pipeline_s),
                      fmt::format("{}; trainsim's stages between the first and the last hold "
                                  "equal counts, and no such split keeps a layer on each",
                                  torchtitan_text));
  }
  first_layers_ = first;
  last_layers_ = last;
  split_source_ = torchtitan_text;
  if (first != counts.front() || last != counts.back()) {
    std::vector<Int> ours(static_cast<std::size_t>(stages), middle);
    ours.front() = first;
    ours.back() = last;
    out_.notes.push_back(fmt::format(
        "{}; trainsim's stages between the first and the last hold equal counts, so this "
        "imports {} (the busiest stage keeps its {} layers)",
        torchtitan_text, joined(ours), *std::max_element(counts.begin(), counts.end())));
  }
}

/// Layers per model part of module_fqns_per_model_part (lists of "layers.N", "norm", ...).
std::vector<Int> TorchtitanImporter::parts_layers(const Setting& s, Int layers) {
  const auto* parts = s.node->as_array();
  std::vector<Int> counts;
  Int total = 0;
  const std::string meaning =
      "expected an array of arrays of module names (\"tok_embeddings\", "
      "\"layers.0\", ..., \"norm\", \"output\")";
  if (parts == nullptr || parts->empty()) config_.fail(s, meaning);
  for (const toml::node& part : *parts) {
    const auto* names = part.as_array();
    if (names == nullptr) config_.fail(s, meaning);
    Int n = 0;
    for (const toml::node& name : *names) {
      const auto* v = name.as_string();
      if (v == nullptr) config_.fail(s, meaning);
      if (v->get().starts_with("layers.")) ++n;
    }
    counts.push_back(n);
    total += n;
  }
  if (total != layers) {
    config_.fail(
        s, fmt::format("names {} \"layers.N\" modules; the flavor has {} layers", total, layers));
  }
  return counts;
}

/// Layers per stage of 2024's split points: "layers.N" where each stage after the first
/// begins.
std::vector<Int> TorchtitanImporter::split_layers(const Setting& s, Int layers) {
  const std::vector<std::string> points = config_.strings(s, "\"layers.N\" names");
  std::vector<Int> counts;
  Int previous = 0;
  for (const std::string& p : points) {
    const std::string_view digits = std::string_view(p).substr(std::min<std::size_t>(7, p.size()));
    const bool ok = p.starts_with("layers.") && digits.size() < 7 && all_digits(digits);
    const Int at = ok ? std::stoll(std::string(digits)) : -1;
    if (!ok || at <= previous || at >= layers) {
      config_.fail(s, fmt::format("expected increasing \"layers.N\" names with 0 < N < {} "
                                  "(the layers where stages begin)",
                                  layers));
    }
    counts.push_back(at - previous);
    previous = at;
  }
  counts.push_back(layers - previous);
  return counts;
}

}  // namespace trainsim::inputs::import::detail
