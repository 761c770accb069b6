// torchtitan's job config TOML into a scenario (inputs/import/torchtitan_config.hpp): the
// published llama3 configs of v0.2.0 and a 2024 one (data/import/torchtitan/), the mapping of
// each setting, the imported YAML loaded back and its Program compared with a scenario written
// by hand, and the errors (file:line:column, key, value, what is valid).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "import_test_support.hpp"
#include "inputs/import/torchtitan_config.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/program.hpp"
#include "reports/program_table.hpp"

using namespace trainsim;
using namespace trainsim::inputs::import;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(TRAINSIM_TEST_DATA) / "import" / "torchtitan";

ImportOptions options(std::int64_t gpus) {
  return {"dgx-h100", gpus, {}, ""};
}

ImportedScenario import_fixture(const std::string& name, std::int64_t gpus) {
  const fs::path file = data / name;
  return import_torchtitan(test::read_text(file), file, options(gpus));
}

ImportedScenario import_text(const std::string& text, std::int64_t gpus) {
  return import_torchtitan(text, "train.toml", options(gpus));
}

/// The ConfigError's what() of importing `text`, or "no error".
std::string error_of(const std::string& text, ImportOptions o) {
  try {
    (void)import_torchtitan(text, "train.toml", o);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}
std::string error_of(const std::string& text, std::int64_t gpus = 8) {
  return error_of(text, options(gpus));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return contains(l, part); });
}

std::string value(const ImportedScenario& s, const std::string& key) {
  return s.value(key).value_or("(unset)");
}

// A minimal config around `body`: llama3 8B, full recomputation (torchtitan's default
// selective "2" is refused).
std::string config(const std::string& body) {
  return "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[activation_checkpoint]\nmode = "
         "\"full\"\n" +
         body;
}

}  // namespace

TEST_CASE("torchtitan llama3_8b.toml of v0.2.0 imports Llama 3 8B on FSDP") {
  const ImportedScenario s = import_fixture("llama3_8b.toml", 8);
  CHECK(s.origin == "llama3_8b.toml (torchtitan job config)");
  CHECK(value(s, "name") == "llama3_8b");
  CHECK(value(s, "hardware") == "dgx-h100");
  CHECK(value(s, "gpus") == "8");
  CHECK(value(s, "model.layers") == "32");
  CHECK(value(s, "model.hidden") == "4096");
  CHECK(value(s, "model.heads") == "32");
  CHECK(value(s, "model.kv_heads") == "8");
  CHECK(value(s, "model.ffn") == "14336");
  CHECK(value(s, "model.seq_len") == "8192");
  CHECK(value(s, "model.vocab") == "128256");
  CHECK(value(s, "model.make_vocab_divisible_by") == "1");
  CHECK(value(s, "model.dtype") == "bf16");
  CHECK(value(s, "model.activation") == "swiglu");
  CHECK(value(s, "model.norm") == "rmsnorm");
  CHECK(value(s, "model.position") == "rope");
  CHECK(value(s, "model.rope_theta") == "500000");
  CHECK(value(s, "model.tied_embeddings") == "false");
  CHECK(value(s, "model.bias") == "false");
  CHECK(value(s, "model.attention") == "flash");
  CHECK(value(s, "model.attention_flops") == "dense");
  CHECK(value(s, "training.global_batch") == "8");
  CHECK(value(s, "training.micro_batch") == "1");
  CHECK(value(s, "training.clip_grad") == "1.0");
  CHECK(value(s, "training.precision") == "(unset)");
  CHECK(value(s, "parallel.tensor.size") == "1");
  CHECK(value(s, "parallel.data.size") == "8");
  CHECK(value(s, "parallel.data.zero") == "3");
  CHECK(value(s, "parallel.recompute") == "selective");

  // Sources name the TOML setting and its line.
  const auto source = [&](const std::string& key) {
    for (const ImportedKey& k : s.keys)
      if (k.key == key) return k.source;
    return std::string("(none)");
  };
  CHECK(contains(source("model.hidden"),
                 "model.flavor = \"8B\" (llama3_8b.toml:21): llama3 8B's dim"));
  CHECK(contains(source("model.ffn"), "14198"));
  CHECK(contains(source("model.seq_len"), "training.seq_len = 8192 (llama3_8b.toml:35)"));

  // Nothing dropped: optimizer, checkpoint, metrics... ignored; the float8 settings too (no
  // converter); no key unknown.
  CHECK(s.unknown.empty());
  CHECK(any_contains(s.ignored, "optimizer.lr = 0.0003 (llama3_8b.toml:27)"));
  CHECK(any_contains(s.ignored, "checkpoint.folder = \"checkpoint\""));
  CHECK(any_contains(s.ignored, "job.dump_folder"));
  CHECK(any_contains(s.ignored, "training.steps = 1000"));
  CHECK(any_contains(s.ignored, "quantize.linear.float8.filter_fqns = [\"output\"]"));
  CHECK(any_contains(s.ignored, "compile.enable = false"));
  CHECK(any_contains(s.notes, "per-op policy"));
  CHECK(any_contains(s.notes, "key names read: torchtitan v0.2.0"));
  CHECK(any_contains(s.notes, "profiled steps"));
}

TEST_CASE("torchtitan llama3_8b.toml's scenario builds the Program of a hand-written one") {
  const ImportedScenario imported = import_fixture("llama3_8b.toml", 8);
  const Scenario ours = test::load_imported(imported, "8b");
  const Scenario expected = inputs::load_scenario(data / "llama3-8b-expected.yaml");
  CHECK(ours.model.layers == expected.model.layers);
  CHECK(ours.model.ffn == expected.model.ffn);
  CHECK(ours.parallel.data.zero == expected.parallel.data.zero);
  CHECK(ours.training.global_batch == expected.training.global_batch);
  const std::string a = test::program_digest(ours);
  const std::string b = test::program_digest(expected);
  CHECK(a.size() > 1000);
  CHECK(a == b);
}

TEST_CASE("torchtitan llama3_70b.toml imports TP 8 with sequence parallelism and full recompute") {
  const ImportedScenario s = import_fixture("llama3_70b.toml", 64);
  CHECK(value(s, "model.layers") == "80");
  CHECK(value(s, "model.hidden") == "8192");
  CHECK(value(s, "model.heads") == "64");
  CHECK(value(s, "model.kv_heads") == "8");
  CHECK(value(s, "model.ffn") == "28672");
  CHECK(value(s, "parallel.tensor.size") == "8");
  CHECK(value(s, "parallel.tensor.sequence_parallel") == "true");
  CHECK(value(s, "parallel.tensor.comm_overlap") == "(unset)");
  CHECK(value(s, "parallel.data.size") == "8");
  CHECK(value(s, "parallel.data.zero") == "3");
  CHECK(value(s, "training.global_batch") == "64");
  CHECK(value(s, "training.micro_batch") == "8");
  CHECK(value(s, "parallel.recompute") == "full");
  CHECK(s.unknown.empty());
  const Scenario loaded = test::load_imported(s, "70b");
  CHECK(loaded.parallel.tensor.size == 8);
  CHECK(loaded.model.ffn == 28672);
}

TEST_CASE("torchtitan llama3_405b.toml imports float8 tensorwise and async TP") {
  const ImportedScenario s = import_fixture("llama3_405b.toml", 128);
  CHECK(value(s, "model.layers") == "126");
  CHECK(value(s, "model.hidden") == "16384");
  CHECK(value(s, "model.heads") == "128");
  CHECK(value(s, "model.ffn") == "53248");
  CHECK(value(s, "training.precision") == "fp8");
  CHECK(value(s, "training.fp8_recipe") == "tensorwise");
  CHECK(value(s, "parallel.tensor.size") == "8");
  CHECK(value(s, "parallel.tensor.comm_overlap") == "true");
  CHECK(value(s, "parallel.data.size") == "16");
  CHECK(value(s, "training.global_batch") == "32");
  CHECK(value(s, "training.micro_batch") == "2");
  CHECK(value(s, "parallel.recompute") == "full");
  CHECK(any_contains(s.notes, "torch.compile's fusions are not modelled"));
  CHECK(any_contains(s.notes, "enable_fsdp_float8_all_gather = true"));
  CHECK(any_contains(s.notes, "async TP"));
  CHECK(any_contains(s.ignored, "filter_fqns"));
  CHECK(s.unknown.empty());
  const Scenario loaded = test::load_imported(s, "405b");
  CHECK(loaded.gpus == 128);
}

TEST_CASE("torchtitan 2024 names: batch_size, data_parallel_degree, [experimental] pipeline") {
  const ImportedScenario s = import_fixture("llama3_8b_2024.toml", 8);
  CHECK(value(s, "parallel.pipeline.size") == "2");
  CHECK(value(s, "parallel.pipeline.schedule") == "1f1b");
  CHECK(value(s, "parallel.pipeline.chunks") == "(unset)");
  CHECK(value(s, "parallel.pipeline.first_stage_layers") == "(unset)");  // 16 + 16
  CHECK(value(s, "parallel.data.size") == "4");
  CHECK(value(s, "training.global_batch") == "16");  // batch_size 4 x DP 4
  CHECK(value(s, "training.micro_batch") == "1");    // 4 micro batches of the 4
  // FSDP under a pipeline gathers once per step: ZeRO 1 with the gather in the forward.
  CHECK(value(s, "parallel.data.zero") == "1");
  CHECK(value(s, "parallel.data.overlap_param_gather") == "true");
  CHECK(value(s, "model.norm") == "rmsnorm");
  CHECK(any_contains(s.notes, "key names read: torchtitan 2024"));
  CHECK(any_contains(s.notes, "pipeline split: 16 layers per stage"));
  CHECK(any_contains(s.ignored, "checkpoint.enable_checkpoint = false"));
  CHECK(any_contains(s.ignored, "float8.enable_float8_linear = false"));
  CHECK(any_contains(s.ignored, "training.warmup_steps = 200"));
  CHECK(s.unknown.empty());
  const Scenario loaded = test::load_imported(s, "2024");
  CHECK(loaded.parallel.pipeline.size == 2);
  CHECK_NOTHROW((void)build_program(loaded, ProgramScope::representative));
}

TEST_CASE("torchtitan flavors give the FeedForward rule's widths") {
  const std::vector<std::pair<std::string, std::string>> cases{{"debugmodel", "768"},
                                                               {"8B", "14336"},
                                                               {"70B", "28672"},
                                                               {"405B", "53248"},
                                                               {"8B_flex", "14336"}};
  for (const auto& [flavor, ffn] : cases) {
    CAPTURE(flavor);
    const ImportedScenario s = import_text(
        fmt::format("[model]\nflavor = \"{}\"\n[activation_checkpoint]\nmode = \"none\"\n", flavor),
        8);
    CHECK(value(s, "model.ffn") == ffn);
  }
  const ImportedScenario debug = import_text("[activation_checkpoint]\nmode = \"none\"\n", 1);
  CHECK(value(debug, "model.layers") == "6");
  CHECK(value(debug, "model.vocab") == "2048");
  CHECK(value(debug, "model.kv_heads") == "16");
  CHECK(value(debug, "training.global_batch") == "8");  // local_batch_size's default
  CHECK(value(debug, "model.seq_len") == "2048");
  CHECK(value(debug, "parallel.recompute") == "none");
  CHECK(any_contains(debug.notes, "torchtitan's default \"debugmodel\""));
  CHECK(any_contains(debug.notes, "no version-specific key names"));
  const ImportedScenario flex =
      import_text("[model]\nflavor = \"8B_flex\"\n[activation_checkpoint]\nmode = \"none\"\n", 8);
  CHECK(any_contains(flex.notes, "FlexAttention"));
}

TEST_CASE("torchtitan batch: global_batch_size gives gradient accumulation") {
  const ImportedScenario s =
      import_text(config("[training]\nlocal_batch_size = 2\nglobal_batch_size = 64\n"), 8);
  CHECK(value(s, "training.global_batch") == "64");
  CHECK(value(s, "training.micro_batch") == "2");
  CHECK(any_contains(s.notes,
                     "gradient accumulation: global_batch_size 64 / (local_batch_size 2 "
                     "x DP 8) = 4"));
  const std::string e =
      error_of(config("[training]\nlocal_batch_size = 2\nglobal_batch_size = 20\n"));
  CHECK(contains(e,
                 "train.toml:8:21: training.global_batch_size = 20: must be a multiple of "
                 "local_batch_size 2 x DP 8"));
  CHECK(contains(error_of(config("[training]\nlocal_batch_size = 0\n")),
                 "train.toml:7:20: training.local_batch_size = 0: expected an integer from 1"));
}

TEST_CASE("torchtitan pipeline schedules, stages per rank and uneven first and last stages") {
  // 1F1B on 4 stages: torchtitan's 8/9/8/7 (first and last one lighter); trainsim's middle
  // stages are equal, so 7/9/9/7.
  const ImportedScenario one = import_text(
      config("[parallelism]\npipeline_parallel_degree = 4\n[training]\nlocal_batch_size = 4\n"), 8);
  CHECK(value(one, "parallel.pipeline.size") == "4");
  CHECK(value(one, "parallel.pipeline.schedule") == "1f1b");
  CHECK(value(one, "parallel.pipeline.first_stage_layers") == "7");
  CHECK(value(one, "parallel.pipeline.last_stage_layers") == "7");
  CHECK(value(one, "training.micro_batch") == "1");
  CHECK(value(one, "training.global_batch") == "8");
  CHECK(any_contains(one.notes, "as 8/9/8/7"));
  CHECK(any_contains(one.notes, "imports 7/9/9/7"));
  (void)test::load_imported(one, "pp4");

  // PP 2: 16 + 18 effective layers split 17/17, minus one each: 16/16, even.
  const ImportedScenario two = import_text(
      config(
          "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = \"GPipe\"\n"),
      8);
  CHECK(value(two, "parallel.pipeline.schedule") == "gpipe");
  CHECK(value(two, "parallel.pipeline.first_stage_layers") == "(unset)");

  // Interleaved1F1B: 2 stages per rank by default; torchtitan's split 8/9/8/7 becomes even.
  const ImportedScenario looped = import_text(
      config("[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
             "\"Interleaved1F1B\"\n"),
      8);
  CHECK(value(looped, "parallel.pipeline.schedule") == "interleaved");
  CHECK(value(looped, "parallel.pipeline.chunks") == "2");
  CHECK(any_contains(looped.notes, "default of 2 stages per rank"));
  CHECK(any_contains(looped.notes, "splits evenly: 8 layers per stage"));

  // layers_per_stage 4 with no lighter stages: 8 virtual stages, 4 per rank.
  const ImportedScenario lps = import_text(
      config("[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
             "\"LoopedBFS\"\npipeline_parallel_layers_per_stage = 4\n"
             "pipeline_parallel_first_stage_less_layers = 0\n"
             "pipeline_parallel_last_stage_less_layers = 0\n"),
      8);
  CHECK(value(lps, "parallel.pipeline.schedule") == "breadth-first");
  CHECK(value(lps, "parallel.pipeline.chunks") == "4");

  const std::string zb =
      error_of(config("[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
                      "\"ZBVZeroBubble\"\n"));
  CHECK(contains(zb,
                 "train.toml:8:30: parallelism.pipeline_parallel_schedule = \"ZBVZeroBubble\": "
                 "zero-bubble schedules"));
  CHECK(contains(error_of(config("[parallelism]\npipeline_parallel_degree = 2\n"
                                 "pipeline_parallel_schedule = \"Fancy\"\n")),
                 "unknown schedule"));
}

TEST_CASE("torchtitan data parallelism: DDP, HSDP and FSDP's reshard policy") {
  const ImportedScenario ddp = import_text(
      config("[parallelism]\ndata_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n"),
      8);
  CHECK(value(ddp, "parallel.data.size") == "8");
  CHECK(value(ddp, "parallel.data.zero") == "0");
  CHECK(value(ddp, "model.dtype") == "bf16");  // autocast under DDP

  const ImportedScenario hsdp =
      import_text(config("[parallelism]\ndata_parallel_replicate_degree = 2\n"), 8);
  CHECK(value(hsdp, "parallel.data.size") == "8");
  CHECK(value(hsdp, "parallel.data.zero") == "3");
  CHECK(any_contains(hsdp.notes, "HSDP"));

  const ImportedScenario never =
      import_text(config("[parallelism]\nfsdp_reshard_after_forward = \"never\"\n"), 8);
  CHECK(value(never, "parallel.data.zero") == "2");

  const std::string e = error_of(
      config("[parallelism]\ndata_parallel_replicate_degree = 4\ndata_parallel_shard_degree = 1\n"
             "tensor_parallel_degree = 2\n"));
  CHECK(contains(e, "DDP"));
  CHECK(contains(e, "train.toml:7:34:"));

  // TP without FSDP trains in fp32 (torchtitan's mixed precision needs FSDP): standard attention.
  const ImportedScenario fp32 =
      import_text(config("[parallelism]\ntensor_parallel_degree = 8\n"), 8);
  CHECK(value(fp32, "model.dtype") == "fp32");
  CHECK(value(fp32, "model.attention") == "standard");
}

TEST_CASE("torchtitan context parallelism and the float8 variants") {
  const ImportedScenario cp = import_text(
      config("[parallelism]\ncontext_parallel_degree = 2\ndata_parallel_shard_degree = 1\n"
             "tensor_parallel_degree = 4\n"),
      8);
  CHECK(value(cp, "parallel.context.size") == "2");
  CHECK(value(cp, "parallel.data.size") == "1");
  CHECK(value(cp, "parallel.data.zero") == "3");  // FSDP over dp_shard x cp
  CHECK(value(cp, "model.dtype") == "bf16");
  CHECK(any_contains(cp.notes, "context parallelism"));

  const ImportedScenario delayed = import_text(
      config("[float8]\nenable_float8_linear = true\nscaling_type_input = \"delayed\"\n"
             "scaling_type_weight = \"delayed\"\nscaling_type_grad_output = \"delayed\"\n"),
      8);
  CHECK(value(delayed, "training.precision") == "fp8");
  CHECK(value(delayed, "training.fp8_recipe") == "delayed");

  const std::string rowwise = error_of(
      "[model]\nflavor = \"8B\"\nconverters = [\"float8\"]\n[activation_checkpoint]\nmode = "
      "\"full\"\n[quantize.linear.float8]\nrecipe_name = \"rowwise\"\n");
  CHECK(contains(rowwise,
                 "train.toml:7:15: quantize.linear.float8.recipe_name = \"rowwise\": "
                 "rowwise float8 scaling is not simulated"));
  CHECK(contains(error_of("[model]\nconverters = [\"mx\"]\n[activation_checkpoint]\nmode = "
                          "\"full\"\n"),
                 "train.toml:2:14: model.converters = [\"mx\"]: MX (mxfp8) linears are not "
                 "simulated"));
}

TEST_CASE("torchtitan activation checkpointing modes") {
  const auto ac = [](const std::string& section) {
    return "[model]\nflavor = \"8B\"\n[activation_checkpoint]\n" + section;
  };
  CHECK(value(import_text(ac("mode = \"none\"\n"), 8), "parallel.recompute") == "none");
  CHECK(value(import_text(ac("mode = \"selective\"\nselective_ac_option = \"1\"\n"), 8),
              "parallel.recompute") == "full");
  CHECK(contains(error_of(ac("mode = \"selective\"\nselective_ac_option = \"3\"\n")),
                 "train.toml:5:23: activation_checkpoint.selective_ac_option = \"3\": "
                 "checkpointing every N-th layer is not simulated"));
  CHECK(contains(error_of(ac("mode = \"memory_budget\"\n")), "memory-budget"));
  // No section: torchtitan's default is selective with option "2", every 2nd layer.
  const std::string absent = error_of("[model]\nflavor = \"8B\"\n");
  CHECK(contains(absent, "train.toml: activation_checkpoint: section absent"));
  CHECK(contains(absent, "selective_ac_option \"2\""));
}

TEST_CASE("torchtitan import errors name the option, the key, the value and what is valid") {
  const std::string text = test::read_text(data / "llama3_8b.toml");
  const std::string no_gpus = error_of(text, ImportOptions{"dgx-h100", {}, {}, ""});
  CHECK(contains(no_gpus, "train.toml: no world size"));
  CHECK(contains(no_gpus, "--gpus N"));
  CHECK(contains(no_gpus, "NGPU"));
  CHECK(contains(no_gpus, "--nproc_per_node"));
  CHECK(contains(error_of(text, ImportOptions{"", 8, {}, ""}), "--hardware"));

  // 8 GPUs cannot hold TP 8 x PP 2.
  const std::string product =
      error_of(config("[parallelism]\ntensor_parallel_degree = 8\npipeline_parallel_degree = 2\n"
                      "data_parallel_shard_degree = 1\n"));
  CHECK(contains(product,
                 "train.toml:9:30: data_parallel_replicate_degree 1 x "
                 "context_parallel_degree 1 x tensor_parallel_degree 8 x "
                 "pipeline_parallel_degree 2 x data_parallel_shard_degree 1 = 16 GPUs, "
                 "but --gpus is 8"));
  CHECK(contains(error_of(config("[parallelism]\ntensor_parallel_degree = 3\n")),
                 "data_parallel_shard_degree -1 takes the GPUs left over"));

  const std::string flavor = error_of("[model]\nname = \"llama3\"\nflavor = \"7B\"\n");
  CHECK(contains(flavor,
                 "train.toml:3:10: model.flavor = \"7B\": llama3's flavors are "
                 "\"debugmodel\""));
  CHECK(contains(flavor, "\"405B\""));
  CHECK(contains(error_of("[model]\nname = \"llama4\"\n"),
                 "train.toml:2:8: model.name = \"llama4\": trainsim imports torchtitan's "
                 "\"llama3\""));

  const std::string degree = error_of(config("[parallelism]\ntensor_parallel_degree = \"8\"\n"));
  CHECK(contains(degree,
                 "train.toml:7:26: parallelism.tensor_parallel_degree = \"8\": expected an "
                 "integer from 1 to 1048576 (tensor-parallel GPUs), not a string"));
  CHECK(contains(error_of(config("[parallelism]\ncontext_parallel_degree = -2\n")),
                 "train.toml:7:27: parallelism.context_parallel_degree = -2"));
  CHECK(contains(error_of(config("[parallelism]\nexpert_parallel_degree = 2\n")),
                 "llama3 has no experts"));
  CHECK(contains(error_of(config("[training]\nmax_norm = nan\n")),
                 "train.toml:7:12: training.max_norm = nan: expected a finite number"));
  CHECK(contains(error_of("parallelism = 3\n" + config("")),
                 "train.toml:1:15: parallelism = 3: expected a table ([parallelism] section)"));
  CHECK(contains(error_of(config("[training]\nbatch_size = 2\nlocal_batch_size = 2\n")),
                 "the same setting as"));
}

TEST_CASE("torchtitan TOML syntax errors and hostile nesting are located ConfigErrors") {
  CHECK(contains(error_of("[model]\nflavor = \"8B\nx = 1\n"), "train.toml:2:"));
  CHECK(contains(error_of("[model]\nflavor = \"8B\nx = 1\n"), "not valid TOML"));
  std::string deep = "x";
  for (int i = 0; i < 100000; ++i)
    deep += ".x";
  CHECK(contains(error_of(deep + " = 1\n"), "a dotted key of more than"));
  CHECK(contains(error_of("[" + deep + "]\n"), "train.toml:1:"));
  std::string braces = "x = ";
  for (int i = 0; i < 100; ++i)
    braces += "{a = ";
  CHECK(contains(error_of(braces), "inline tables nested"));
  // Dots in strings, comments and floats are no keys.
  const ImportedScenario s = import_text(
      config("[job]\ndescription = \"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t\"  # a.b.c.d.e.f.g.h."
             "i.j.k.l.m.n.o.p.q.r.s\n[training]\nmax_norm = 0.5\n"),
      8);
  CHECK(value(s, "training.clip_grad") == "0.5");
}

TEST_CASE("torchtitan unknown keys are listed, never dropped, and stay one comment line each") {
  const ImportedScenario s = import_text(
      config("[training]\nwarp_speed = 9\n[parallelism]\n\"odd\\nkey\" = \"x\\ny\"\n[brand_new]\n"
             "a.b = 1\n"),
      8);
  CHECK(any_contains(s.unknown, "training.warp_speed = 9 (train.toml:7)"));
  CHECK(any_contains(s.unknown, "parallelism.\"odd\\nkey\" = \"x\\ny\""));
  CHECK(any_contains(s.unknown, "brand_new.a.b = 1"));
  const std::string yaml = s.to_yaml();
  // Every line of the header is a comment or a key: the newline in the key did not escape.
  std::istringstream lines(yaml);
  std::string line;
  while (std::getline(lines, line)) {
    CAPTURE(line);
    CHECK((line.starts_with("#") || line.find(':') != std::string::npos));
  }
  (void)test::load_imported(s, "unknown");
}
