// `trainsim import nemo` (inputs/import/nemo_config): Megatron-Bridge's ConfigContainer YAML
// and NeMo 1's Hydra YAML into scenarios that build the hand-written scenarios' Programs.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "import_test_support.hpp"
#include "inputs/import/nemo_config.hpp"
#include "models/errors.hpp"

namespace im = trainsim::inputs::import;
using trainsim::ConfigError;

namespace {

std::string data(const std::string& name) {
  return std::string(TRAINSIM_TEST_DATA) + "/import/nemo/" + name;
}

im::ImportOptions options(std::int64_t gpus, std::string name) {
  im::ImportOptions o;
  o.hardware = "dgx-h100";
  if (gpus > 0) o.gpus = gpus;
  o.name = std::move(name);
  return o;
}

bool contains(const std::vector<std::string>& list, const std::string& part) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

std::string error_of(const std::string& yaml, std::int64_t gpus = 8) {
  try {
    (void)im::import_nemo(yaml, "bad.yaml", options(gpus, "bad"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE(
    "import nemo: Bridge's Llama 3 8B FP8 recipe builds scenarios/llama3/llama3-8b.yaml's "
    "Program") {
  const std::string file = data("llama3_8b_bridge.yaml");
  const im::ImportedScenario s =
      im::import_nemo(trainsim::test::read_text(file), file, options(8, "llama3-8b"));
  CHECK(s.value("model.kv_heads") == "8");  // Bridge's GQA needs no enabling flag
  CHECK(s.value("model.activation") == "swiglu");
  CHECK(s.value("parallel.data.zero") == "3");  // Megatron FSDP, optim_grads_params
  CHECK(s.value("training.fp8_recipe") == "tensorwise");
  CHECK(contains(s.ignored, "scheduler"));
  CHECK(contains(s.notes, "first and last layers in bf16"));
  CHECK(s.to_yaml().find("# model.num_layers: 32 (") != std::string::npos);
  const trainsim::Scenario imported = trainsim::test::load_imported(s, "llama3-8b-bridge");
  const trainsim::Scenario by_hand = trainsim::inputs::load_scenario(
      std::string(TRAINSIM_SOURCE_ROOT) + "/scenarios/llama3/llama3-8b.yaml");
  CHECK(trainsim::test::program_digest(imported) == trainsim::test::program_digest(by_hand));
}

TEST_CASE("import nemo: NeMo 1's megatron_gpt_config.yaml, interpolations resolved") {
  const std::string file = data("megatron_gpt_config.yaml");
  const im::ImportedScenario s =
      im::import_nemo(trainsim::test::read_text(file), file, options(0, "megatron-gpt"));
  CHECK(s.value("gpus") == "8");  // trainer.devices x trainer.num_nodes
  CHECK(s.value("model.seq_len") == "2048");
  CHECK(s.value("model.vocab") == "50257");  // tokenizer.type GPT2BPETokenizer
  CHECK_FALSE(s.value("model.attention"));  // transformer_engine: False: Megatron's local attention
  CHECK(contains(s.ignored, "trainer.max_steps"));
  CHECK(contains(s.ignored, "exp_manager"));
  const trainsim::Scenario imported = trainsim::test::load_imported(s, "megatron-gpt");
  const trainsim::Scenario by_hand =
      trainsim::inputs::load_scenario(data("megatron_gpt_config.expected.yaml"));
  CHECK(trainsim::test::program_digest(imported) == trainsim::test::program_digest(by_hand));
}

TEST_CASE("import nemo: bad configs are located errors naming the key and what is valid") {
  CHECK(error_of("model: [1, 2]\n").find("bad.yaml:1:1: not a NeMo or Megatron-Bridge config") !=
        std::string::npos);
  CHECK(error_of("model:\n  num_layers: [\n").find("bad.yaml:") != std::string::npos);
  CHECK(error_of("trainer:\n  devices: auto\nmodel:\n  num_layers: 2\n")
            .find("bad.yaml:2:12: trainer.devices: 'auto' is not a whole number") !=
        std::string::npos);
  CHECK(error_of("model:\n  num_layers: 2\n  seq_length: ${.nope}\n")
            .find("interpolation '${.nope}': no value at 'model.nope'") != std::string::npos);
  CHECK(error_of("model:\n  a: ${model.b}\n  b: ${model.a}\n  num_layers: ${model.a}\n")
            .find("nest deeper") != std::string::npos);
  CHECK(error_of("model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 4\n"
                 "  seq_length: 128\n  vocab_size: 100\ntrain:\n  micro_batch_size: 1\n"
                 "mixed_precision: bf16_with_nvfp4_mixed\n")
            .find("FP4 is not simulated") != std::string::npos);
  CHECK(error_of("model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 3\n"
                 "  seq_length: 128\n  vocab_size: 100\ntrain:\n  micro_batch_size: 1\n")
            .find("bad.yaml:4:24: model.num_attention_heads: 3: hidden 64 is not divisible") !=
        std::string::npos);
}

TEST_CASE("import nemo: Bridge's own defaults, and false settings listed rather than dropped") {
  const std::string bridge =
      "model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 4\n  seq_length: 128\n"
      "  vocab_size: 100\n  gated_linear_unit: true\n  made_up_field: false\n"
      "dataset:\n  seq_length: 256\ntrain:\n  micro_batch_size: 1\n";
  const im::ImportedScenario s = im::import_nemo(bridge, "bridge.yaml", options(1, "bridge"));
  CHECK(s.value("model.ffn") == "256");      // 4 x hidden: Bridge has no SwiGLU rule
  CHECK(s.value("model.seq_len") == "256");  // dataset.seq_length wins, as Bridge syncs it
  CHECK(contains(s.notes, "model.seq_length: 128"));
  CHECK(s.value("model.make_vocab_divisible_by") == "1");  // should_pad_vocab false by default
  CHECK(contains(s.ignored, "model.made_up_field: false"));
}
