// `trainsim import megatron`'s mapping (inputs/import/megatron_flags): Megatron-LM's flags
// into a scenario that builds the same Program as the one written by hand, Megatron's own
// checks at the flag, and nothing dropped silently.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "import_test_support.hpp"
#include "inputs/import/megatron_flags.hpp"
#include "inputs/import/shell_script.hpp"

namespace im = trainsim::inputs::import;
using trainsim::ConfigError;
using trainsim::SourceLocation;

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// The flags of a one-line argument list, each located at its word's index.
std::vector<im::FlagValue> flags_of(const std::string& line) {
  const std::vector<std::string> words = words_of(line);
  std::vector<SourceLocation> where;
  for (std::size_t i = 0; i < words.size(); ++i)
    where.push_back({"args", 1, static_cast<int>(i + 1)});
  return im::split_megatron_arguments(words, where);
}

im::ImportOptions options(std::string hardware, std::int64_t gpus, std::string name = "t") {
  im::ImportOptions o;
  o.hardware = std::move(hardware);
  if (gpus > 0) o.gpus = gpus;
  o.name = std::move(name);
  return o;
}

im::ImportedScenario import_args(const std::string& line, std::int64_t gpus,
                                 std::string hardware = "dgx-h100") {
  return im::scenario_from_megatron(flags_of(line), {}, options(std::move(hardware), gpus), "args");
}

std::string error_of(const std::string& line, std::int64_t gpus) {
  try {
    (void)import_args(line, gpus);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::vector<std::string>& list, const std::string& part) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

// The flags of Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh, as its arrays
// expand (paths in place of $1...$5).
const std::string kGpt3Flags =
    "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 "
    "--max-position-embeddings 2048 --attention-backend auto "
    "--micro-batch-size 1 --global-batch-size 1536 --rampup-batch-size 16 16 5859375 "
    "--train-iters 500000 --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.95 "
    "--init-method-std 0.006 --clip-grad 1.0 --fp16 --lr 6.0e-5 --lr-decay-style cosine "
    "--min-lr 6.0e-6 --lr-warmup-fraction .001 --lr-decay-iters 430000 "
    "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 "
    "--data-path /data/gpt_text_document --vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt "
    "--split 949,50,1 --log-interval 100 --save-interval 10000 --eval-interval 1000 "
    "--save /ckpt --load /ckpt --eval-iters 10 --tensorboard-dir /tb";

}  // namespace

TEST_CASE("import megatron: GPT-3 175B's example flags build the hand-written scenario's Program") {
  const im::ImportedScenario s = im::scenario_from_megatron(
      flags_of(kGpt3Flags), {}, options("selene-a100-80gb", 1024, "gpt3-175b"),
      "train_gpt3_175b_distributed.sh");
  CHECK(s.value("model.ffn") == "49152");    // 4h, Megatron's default without --swiglu
  CHECK(s.value("model.vocab") == "50257");  // GPT-2's BPE from --vocab-file/--merge-file
  CHECK(s.value("parallel.pipeline.schedule") == "1f1b");
  CHECK(s.value("parallel.data.size") == "8");
  CHECK(s.value("parallel.data.overlap_grad_reduce") == "false");
  CHECK(contains(s.ignored, "--lr 6.0e-5"));
  CHECK(contains(s.ignored, "--tensorboard-dir /tb"));
  CHECK(contains(s.notes, "--rampup-batch-size 16 16 5859375"));
  CHECK(s.unknown.empty());
  // Every key carries the flag and the position that set it.
  const std::string yaml = s.to_yaml();
  CHECK(yaml.find("layers: 96") != std::string::npos);
  CHECK(yaml.find("# --num-layers 96 (args:1:1)") != std::string::npos);

  const trainsim::Scenario imported = trainsim::test::load_imported(s, "gpt3-175b");
  const trainsim::Scenario by_hand = trainsim::inputs::load_scenario(
      std::string(TRAINSIM_TEST_DATA) + "/import/megatron/gpt3-175b.expected.yaml");
  CHECK(trainsim::test::program_digest(imported) == trainsim::test::program_digest(by_hand));
}

TEST_CASE(
    "import megatron: Llama-style flags set GQA, SwiGLU, RMSNorm, RoPE, untied, no bias, FP8") {
  const im::ImportedScenario s = import_args(
      "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 "
      "--group-query-attention --num-query-groups 8 --kv-channels 128 --seq-length 8192 "
      "--max-position-embeddings 8192 --position-embedding-type rope --rotary-base 500000 "
      "--swiglu --normalization RMSNorm --untie-embeddings-and-output-weights "
      "--disable-bias-linear --attention-dropout 0.0 --hidden-dropout 0.0 --vocab-size 128256 "
      "--micro-batch-size 1 --global-batch-size 128 --bf16 --fp8-format hybrid "
      "--fp8-recipe tensorwise --tensor-model-parallel-size 2 --sequence-parallel "
      "--tp-comm-overlap --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather "
      "--recompute-granularity selective --some-new-flag 3",
      16);
  CHECK(s.value("model.kv_heads") == "8");
  CHECK_FALSE(s.value("model.head_dim"));  // 128 = 4096 / 32: the default
  CHECK(s.value("model.activation") == "swiglu");
  CHECK(s.value("model.norm") == "rmsnorm");
  CHECK(s.value("model.position") == "rope");
  CHECK(s.value("model.rope_theta") == "500000");
  CHECK(s.value("model.tied_embeddings") == "false");
  CHECK(s.value("model.bias") == "false");
  CHECK(s.value("model.attention") == "flash");
  CHECK(s.value("training.precision") == "fp8");
  CHECK(s.value("training.fp8_recipe") == "tensorwise");
  CHECK(s.value("parallel.tensor.sequence_parallel") == "true");
  CHECK(s.value("parallel.tensor.comm_overlap") == "true");
  CHECK(s.value("parallel.data.size") == "8");
  CHECK(s.value("parallel.data.zero") == "1");
  CHECK(s.value("parallel.data.overlap_param_gather") == "true");
  CHECK(s.value("parallel.recompute") == "selective");
  CHECK(contains(s.unknown, "--some-new-flag 3"));
  (void)trainsim::test::load_imported(s, "llama-flags");
}

TEST_CASE("import megatron: virtual stages, uneven stages and the embedding in the split") {
  const std::string base =
      "--num-layers 32 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 "
      "--vocab-size 32000 --micro-batch-size 1 --global-batch-size 64 --bf16 "
      "--pipeline-model-parallel-size 4 ";
  const im::ImportedScenario v = import_args(base + "--num-layers-per-virtual-pipeline-stage 2", 8);
  CHECK(v.value("parallel.pipeline.schedule") == "interleaved");
  CHECK(v.value("parallel.pipeline.chunks") == "4");  // 32 / 4 / 2
  const im::ImportedScenario u = import_args(
      base + "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6", 8);
  CHECK(u.value("parallel.pipeline.first_stage_layers") == "6");
  CHECK(u.value("parallel.pipeline.last_stage_layers") == "6");
  const std::string odd =
      "--num-layers 30 --hidden-size 1024 --num-attention-heads 16 "
      "--seq-length 1024 --vocab-size 32000 --micro-batch-size 1 --bf16 "
      "--pipeline-model-parallel-size 4 ";
  const im::ImportedScenario e = import_args(
      odd + "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split", 4);
  CHECK(e.value("parallel.pipeline.first_stage_layers") == "7");  // (30 + 2) / 4 - 1
  CHECK(e.value("parallel.pipeline.last_stage_layers") == "7");
  (void)trainsim::test::load_imported(e, "embedding-split");
}

TEST_CASE("import megatron: mixture of experts over expert parallelism") {
  const im::ImportedScenario s = import_args(
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 "
      "--vocab-size 32000 --micro-batch-size 1 --global-batch-size 16 --bf16 --swiglu "
      "--disable-bias-linear "
      "--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 512 "
      "--moe-shared-expert-intermediate-size 1024 --moe-grouped-gemm "
      "--moe-token-dispatcher-type alltoall --expert-model-parallel-size 4 "
      "--use-distributed-optimizer",
      8);
  CHECK(s.value("model.moe.experts") == "8");
  CHECK(s.value("model.moe.expert_ffn") == "512");
  CHECK(s.value("model.moe.shared_experts") == "2");
  CHECK(s.value("parallel.expert.size") == "4");
  CHECK_FALSE(contains(s.notes, "dispatch"));
  const im::ImportedScenario g = import_args(
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 "
      "--vocab-size 32000 --micro-batch-size 1 --bf16 --num-experts 8",
      8);
  CHECK(contains(g.notes, "allgather"));  // Megatron's default dispatcher, simulated as all-to-all
  (void)trainsim::test::load_imported(s, "moe-flags");
}

TEST_CASE("import megatron: Megatron's own checks fail at the flag, naming it and what is valid") {
  const std::string gpt =
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 "
      "--seq-length 1024 --vocab-size 32000 --micro-batch-size 1 ";
  CHECK(error_of(gpt + "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16", 8)
            .find("8 GPUs (--gpus (trainsim import option)) are not divisible by TP 8 x PP 16") !=
        std::string::npos);
  CHECK(error_of(gpt + "--tensor-model-parallel-size 3", 3)
            .find("does not divide the 16 attention heads") != std::string::npos);
  CHECK(error_of(gpt + "--bf16 --fp16", 1).find("exclude each other") != std::string::npos);
  CHECK(error_of(
            "--hidden-size 1024 --num-attention-heads 16 --seq-length 1024 --micro-batch-size 1", 1)
            .find("--num-layers is required") != std::string::npos);
  CHECK(error_of(gpt + "--overlap-param-gather", 1).find("needs --use-distributed-optimizer") !=
        std::string::npos);
  CHECK(error_of(gpt + "--num-experts 8 --tensor-model-parallel-size 2", 2)
            .find("--expert-tensor-parallel-size 1") != std::string::npos);
  CHECK(
      error_of(
          gpt + "--recompute-granularity full --recompute-method block --recompute-num-layers 2", 1)
          .find("block recomputation of 2 of each stage's 4 layers") != std::string::npos);
  CHECK(error_of(gpt + "--global-batch-size 3", 2).find("not a multiple of micro batch 1 x DP 2") !=
        std::string::npos);
  CHECK(error_of(gpt + "--num-layers x", 1)
            .find("args:1:13: --num-layers x: 'x' is not a whole number") != std::string::npos);
  // The vocabulary is not guessed from a tokenizer name.
  const std::string no_vocab =
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 "
      "--seq-length 1024 --micro-batch-size 1 "
      "--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/x";
  CHECK(error_of(no_vocab, 1).find("give `--vocab N`") != std::string::npos);
  // Nor the world size.
  CHECK_THROWS_WITH_AS(
      (void)im::scenario_from_megatron(flags_of(gpt), {}, options("dgx-h100", 0), "args"),
      doctest::Contains("the world size is not in Megatron's flags"), ConfigError);
}

TEST_CASE("import megatron: torchrun's --nproc_per_node x --nnodes is the world size") {
  const std::vector<std::string> words = {"torchrun",   "--nproc_per_node", "8",
                                          "--nnodes=4", "--master_addr",    "host"};
  const std::vector<SourceLocation> where(words.size(), SourceLocation{"train.sh", 40, 1});
  const im::WorldSize w = im::torchrun_world_size(words, where);
  CHECK(w.gpus == 32);
  CHECK(w.source.find("--nproc_per_node 8") != std::string::npos);
  const std::vector<std::string> elastic = {"torchrun", "--nproc-per-node", "gpu"};
  CHECK_THROWS_AS((void)im::torchrun_world_size(elastic, where), ConfigError);
  CHECK(im::torchrun_world_size(std::vector<std::string>{"python"}, where).gpus == 0);
}

namespace {

// A launch script of tests/inputs/data/import/megatron/ through the expander and the mapping,
// as `trainsim import megatron --file` runs them.
im::ImportedScenario import_script(const std::string& name, const im::ImportOptions& o) {
  const std::string file = std::string(TRAINSIM_TEST_DATA) + "/import/megatron/" + name;
  return im::scenario_from_launch_command(
      im::parse_launch_script(trainsim::test::read_text(file), file), o, name);
}

}  // namespace

TEST_CASE(
    "import megatron: the GPT-3 175B launch script builds the hand-written scenario's Program") {
  // The script's torchrun line gives 8 GPUs, fewer than TP 8 x PP 16: Megatron would stop.
  CHECK_THROWS_WITH_AS((void)import_script("train_gpt3_175b_distributed.sh",
                                           options("selene-a100-80gb", 0, "gpt3-175b")),
                       doctest::Contains("8 GPUs (torchrun --nproc_per_node 8"), ConfigError);
  const im::ImportedScenario s = import_script("train_gpt3_175b_distributed.sh",
                                               options("selene-a100-80gb", 1024, "gpt3-175b"));
  CHECK(contains(s.ignored, "--lr 6.0e-5 (" + std::string(TRAINSIM_TEST_DATA)));
  const trainsim::Scenario by_hand = trainsim::inputs::load_scenario(
      std::string(TRAINSIM_TEST_DATA) + "/import/megatron/gpt3-175b.expected.yaml");
  CHECK(trainsim::test::program_digest(trainsim::test::load_imported(s, "gpt3-175b-script")) ==
        trainsim::test::program_digest(by_hand));
}

TEST_CASE("import megatron: the Llama 3 8B FP8 script takes its fp8 branch") {
  im::ImportOptions o = options("dgx-h100", 0, "llama3-8b-fp8");
  CHECK_THROWS_WITH_AS((void)import_script("train_llama3_8b_h100_fp8.sh", o),
                       doctest::Contains("give `--vocab N`"), ConfigError);
  o.vocab = 128256;
  const im::ImportedScenario s = import_script("train_llama3_8b_h100_fp8.sh", o);
  CHECK(s.value("gpus") == "8");
  CHECK(s.value("training.precision") == "fp8");
  CHECK(s.value("training.fp8_recipe") == "delayed");
  CHECK(s.value("model.kv_heads") == "8");
  CHECK(s.value("model.rope_theta") == "1000000");
  CHECK(s.value("parallel.data.zero") == "1");
  CHECK(contains(s.notes, "--sequence-parallel"));  // TP 1: Megatron turns SP off
  CHECK(contains(s.notes, "--fp8-param-gather"));
  (void)trainsim::test::load_imported(s, "llama3-8b-fp8");
}

TEST_CASE("import megatron: the Mixtral 8x7B script needs the nodes its expert groups span") {
  im::ImportOptions o = options("dgx-h100", 0, "mixtral");
  o.vocab = 32000;
  CHECK_THROWS_WITH_AS((void)import_script("train_mixtral_8x7b_distributed.sh", o),
                       doctest::Contains("EP 8 x ETP 1 x PP 4 does not divide the 8 GPUs"),
                       ConfigError);
  o.gpus = 64;
  const im::ImportedScenario s = import_script("train_mixtral_8x7b_distributed.sh", o);
  CHECK(s.value("model.moe.experts") == "8");
  CHECK(s.value("parallel.expert.size") == "8");
  CHECK(s.value("parallel.pipeline.size") == "4");
  (void)trainsim::test::load_imported(s, "mixtral");
}

TEST_CASE(
    "import megatron: sizes beyond the scenario's ranges and line breaks cannot break the import") {
  const std::string gpt =
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 "
      "--seq-length 1024 --vocab-size 32000 --micro-batch-size 1 ";
  // 2^32 x 2^32 would wrap to 0 and divide by it.
  CHECK(error_of(gpt + "--tensor-model-parallel-size 4294967296 --pipeline-model-parallel-size "
                       "4294967296",
                 8)
            .find("is not a whole number in 1..1048576") != std::string::npos);
  const std::vector<std::string> words = {"torchrun", "--nproc_per_node", "4294967297", "--nnodes",
                                          "4294967297"};
  const std::vector<SourceLocation> where(words.size(), SourceLocation{"train.sh", 1, 1});
  CHECK_THROWS_AS((void)im::torchrun_world_size(words, where), ConfigError);
  // A value holding a line break stays inside its comment.
  std::vector<im::FlagValue> flags = flags_of(gpt);
  flags.push_back(
      {"--foo", {"x\nruntime: {device_max_connections: 1} #"}, {}, "--foo x\nruntime: #"});
  const im::ImportedScenario s =
      im::scenario_from_megatron(flags, {}, options("dgx-h100", 1), "a\nb: c");
  const std::string yaml = s.to_yaml();
  CHECK(yaml.find("\nruntime:") == std::string::npos);
  CHECK(yaml.find("\nb: c") == std::string::npos);
  CHECK(yaml.find("--foo x\\nruntime") != std::string::npos);
}
