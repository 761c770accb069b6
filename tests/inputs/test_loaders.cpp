#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/parameters.hpp"
#include "inputs/scenario_loader.hpp"
#include "inputs/yaml_reader.hpp"

using namespace trainsim;
using namespace trainsim::inputs;
namespace fs = std::filesystem;

namespace {
const fs::path root = TRAINSIM_SOURCE_ROOT;
const fs::path data = TRAINSIM_TEST_DATA;

/// Restores the current directory when a test that changes it ends.
class CurrentDirectory {
 public:
  explicit CurrentDirectory(const fs::path& dir) : saved_(fs::current_path()) {
    fs::current_path(dir);
  }
  ~CurrentDirectory() { fs::current_path(saved_); }
  CurrentDirectory(const CurrentDirectory&) = delete;
  CurrentDirectory& operator=(const CurrentDirectory&) = delete;

 private:
  fs::path saved_;
};
}  // namespace

TEST_CASE("profiles: every shipped profile loads with provenance for every numeric field") {
  const std::vector<std::string> names = available_profiles();
  CHECK(names == std::vector<std::string>{"dgx-b200", "dgx-h100", "dgx-h100-calibrated", "dgx-h200",
                                          "dgx1-v100", "frontera-rtx5000", "hgx-a100-4gpu",
                                          "longhorn-v100", "selene-a100-80gb"});
  for (const std::string& name : names) {
    CAPTURE(name);
    const hw::HardwareProfile p = load_hardware_profile(root / "hwprofiles" / (name + ".yaml"));
    CHECK(p.name == name);
    CHECK(p.provenance.contains("gpu.memory_bandwidth"));
    CHECK(p.provenance.contains("collectives.intra_node_efficiency"));
    CHECK(!p.collectives.intra_node_efficiency.empty());
    const auto& points = p.collectives.intra_node_efficiency.points();
    for (std::size_t i = 1; i < points.size(); ++i)
      CHECK(points[i - 1].size < points[i].size);
  }
}

TEST_CASE("profiles: selene figures as in hardware-data.md") {
  const hw::HardwareProfile p = load_hardware_profile(root / "hwprofiles/selene-a100-80gb.yaml");
  CHECK(p.peak(DType::bf16).tflops() == doctest::Approx(312));
  CHECK(p.gpu.sm_count == 108);
  CHECK(p.gpu.memory == Bytes::of(80LL * 1024 * 1024 * 1024));  // 81920 MiB as the device reports
  CHECK(p.gpu.memory_bandwidth.gb_per_s() == doctest::Approx(2039));
  CHECK(p.node.gpus == 8);
  CHECK(p.node.fabric == hw::FabricKind::nvswitch);
  CHECK(p.node.gpu_bandwidth.gb_per_s() == doctest::Approx(300));
  CHECK(!p.node.host_bridge_bandwidth);
  CHECK(p.network.nics_per_node == 8);
  CHECK(p.network.nic_bandwidth.gb_per_s() == doctest::Approx(25));  // 200 Gb/s
  // §3.3: 16 GiB all-reduce over 8 GPUs in 127997 us; the curve holds the bandwidth share once
  // the simulator's own latency (8.4 us + 14 x 0.6 us) is taken out.
  const double bytes = 16.0 * (1LL << 30);
  const double expected = (2.0 * 7.0 / 8.0 * bytes / 300e9) / (127997e-6 - 16.8e-6);
  CHECK(p.collectives.intra_node_efficiency.at(bytes) == doctest::Approx(expected).epsilon(1e-3));
  CHECK(p.gpu.gemm.tile_m == 256);
  CHECK(p.gpu.gemm.tile_n == 128);
}

TEST_CASE("profiles: frontera has a PCIe host bridge — guesses are marked") {
  const hw::HardwareProfile p = load_hardware_profile(root / "hwprofiles/frontera-rtx5000.yaml");
  CHECK(p.node.fabric == hw::FabricKind::pcie);
  REQUIRE(p.node.host_bridge_bandwidth);
  CHECK(p.node.host_bridge_bandwidth->gb_per_s() == doctest::Approx(6));
  const auto guessed = p.guessed_fields();
  CHECK(std::find(guessed.begin(), guessed.end(), "network.nic_bandwidth") != guessed.end());
}

TEST_CASE("profiles: the NIC bandwidth can be overridden on a loaded profile, nothing else") {
  const hw::HardwareProfile p = load_hardware_profile(root / "hwprofiles/selene-a100-80gb.yaml");
  const hw::HardwareProfile slow = p.with_nic_bandwidth(p.network.nic_bandwidth * 0.25);
  CHECK(slow.network.nic_bandwidth.gb_per_s() == doctest::Approx(6.25));
  CHECK(p.network.nic_bandwidth.gb_per_s() == doctest::Approx(25));  // the original is untouched
  CHECK(slow.node.gpu_bandwidth == p.node.gpu_bandwidth);
  CHECK(slow.network.latency == p.network.latency);
  CHECK(slow.network.nics_per_node == p.network.nics_per_node);
  CHECK(slow.provenance.at("network.nic_bandwidth").find("overridden: 6.25 GB/s") == 0);
  CHECK_THROWS_WITH_AS(p.with_nic_bandwidth(Bandwidth::gb_per_s(0.0)),
                       doctest::Contains("network.nic_bandwidth override: 0 GB/s"),
                       std::invalid_argument);
}

TEST_CASE("profiles: curves are sorted by size whatever the file order") {
  const hw::HardwareProfile p = load_hardware_profile(data / "good-profile.yaml");
  const auto& ramp = p.gpu.gemm.size_efficiency.points();
  REQUIRE(ramp.size() == 2);
  CHECK(ramp[0].size == doctest::Approx(1e9));
  CHECK(ramp[0].efficiency == doctest::Approx(0.5));
  CHECK(ramp[1].size == doctest::Approx(1e12));
  CHECK(p.gpu.gemm.ctas_per_sm == 2);
  CHECK(p.network.nic_bandwidth.gb_per_s() == doctest::Approx(25));
  CHECK(p.file == data / "good-profile.yaml");
}

TEST_CASE("profiles: the optional calibrated fields load, and their absence leaves them empty") {
  const hw::HardwareProfile p = load_hardware_profile(data / "good-profile-calibrated.yaml");
  CHECK(p.gpu.gemm.max_efficiency_for(DType::fp32) == doctest::Approx(0.6));
  CHECK(p.gpu.gemm.max_efficiency_for(DType::bf16) == doctest::Approx(0.9));
  const hw::CollectiveSpec& c = p.collectives;
  REQUIRE(c.intra_node_efficiency_by_group_size.size() == 1);
  CHECK(c.intra_node_efficiency_by_group_size.at(4).points().size() == 2);
  REQUIRE(c.inter_node_efficiency_by_group_size.size() == 2);
  CHECK(c.efficiency_curve(true, 12).at(1048576.0) == doctest::Approx(0.2));
  CHECK(c.efficiency_curve(true, 16).at(1048576.0) == doctest::Approx(0.25));
  CHECK(c.efficiency_curve(false, 2).at(1048576.0) == doctest::Approx(0.5));  // the tier's
  REQUIRE(c.p2p.base_latency.has_value());
  CHECK(c.p2p.base_latency->us() == doctest::Approx(3));
  CHECK(c.p2p.intra_node_efficiency.at(1048576.0) == doctest::Approx(0.6));
  CHECK(c.p2p.inter_node_efficiency.empty());
  CHECK(p.provenance.contains("collectives.p2p.base_latency"));
  REQUIRE(p.host.has_value());
  CHECK(p.host->framework == "test framework");
  CHECK(p.host->gemm == Time::from_us(12));
  CHECK(p.host->kernel == Time::from_us(8));
  CHECK(p.host->collective == Time::from_us(20));
  CHECK(p.host->p2p == Time::from_us(15));
  CHECK(p.host->sync_latency == Time::from_us(10));
  CHECK(p.host->waits_at(program::SyncPoint::grad_norm));
  CHECK(p.host->waits_at(program::SyncPoint::p2p));
  CHECK(!p.host->waits_at(program::SyncPoint::found_inf));

  const hw::HardwareProfile plain = load_hardware_profile(data / "good-profile.yaml");
  CHECK(plain.gpu.gemm.max_efficiency_by_dtype.empty());
  CHECK(plain.collectives.intra_node_efficiency_by_group_size.empty());
  CHECK(!plain.collectives.p2p.base_latency.has_value());
  CHECK(plain.collectives.p2p.intra_node_efficiency.empty());
  CHECK(!plain.host.has_value());
}

TEST_CASE("profiles: the kernel classes' shares and the GEMM heuristic's fields load") {
  const hw::HardwareProfile p = load_hardware_profile(data / "good-profile-kernels.yaml");
  CHECK(p.gpu.kernel_efficiency.size() == 2);
  CHECK(p.gpu.memory_efficiency_for(program::KernelClass::layer_norm) == doctest::Approx(0.6));
  CHECK(p.gpu.memory_efficiency_for(program::KernelClass::softmax_backward) ==
        doctest::Approx(0.4));
  CHECK(p.gpu.memory_efficiency_for(program::KernelClass::dropout) == doctest::Approx(0.8));
  CHECK(p.gpu.gemm.candidate_tiles == std::vector<hw::GemmTile>{{128, 64}, {64, 64}});
  CHECK(p.gpu.gemm.operand_bandwidth.gb_per_s() == doctest::Approx(3000));
  CHECK(p.gpu.gemm.cta_overhead_k == 64.0);
  CHECK(p.gpu.gemm.max_split_k == 8);
  CHECK(p.provenance.contains("gpu.kernels.layer_norm"));
  CHECK(p.provenance.contains("gpu.gemm.operand_bandwidth"));
  // Absent, they leave the single-tile model and memory_efficiency for every class.
  const hw::HardwareProfile plain = load_hardware_profile(data / "good-profile.yaml");
  CHECK(plain.gpu.kernel_efficiency.empty());
  CHECK(plain.gpu.gemm.candidate_tiles.empty());
  CHECK(plain.gpu.gemm.cta_overhead_k == 0.0);
  CHECK(plain.gpu.gemm.max_split_k == 1);
  // Every shipped profile has them, each figure with its source.
  for (const std::string name : {"selene-a100-80gb", "hgx-a100-4gpu", "dgx-h100", "dgx-h200",
                                 "dgx1-v100", "longhorn-v100", "frontera-rtx5000"}) {
    CAPTURE(name);
    const hw::HardwareProfile s = load_hardware_profile(root / "hwprofiles" / (name + ".yaml"));
    CHECK(!s.gpu.kernel_efficiency.empty());
    CHECK(s.gpu.gemm.candidate_tiles.size() == 8);
    CHECK(s.gpu.gemm.max_split_k > 1);
    for (const auto& [kernel_class, share] : s.gpu.kernel_efficiency)
      CHECK(s.provenance.contains("gpu.kernels." + std::string(program::to_string(kernel_class))));
  }
}

TEST_CASE("scenarios: every shipped scenario loads") {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    CAPTURE(entry.path());
    const Scenario s = load_scenario(entry.path());
    CHECK(s.parallel.gpus() == s.gpus);
    CHECK(fs::exists(s.hardware_file));
    load_hardware_profile(s.hardware_file);
    ++count;
  }
  CHECK(count >= 9);
}

TEST_CASE("scenarios: the 22B model of Korthikanti Table 3") {
  const Scenario s = load_scenario(root / "scenarios/korthikanti2022/gpt-22b.yaml");
  CHECK(s.name == "gpt-22b");
  CHECK(s.gpus == 8);
  CHECK(s.model.layers == 48);
  CHECK(s.model.hidden == 6144);
  CHECK(s.model.heads == 64);
  CHECK(s.model.ffn == 24576);
  CHECK(s.training.global_batch == 4);
  CHECK(s.training.micro_batch == 4);
  CHECK(s.parallel.tensor.size == 8);
  CHECK(s.parallel.data.size == 1);
  CHECK(s.parallel.recompute == Recompute::none);
  CHECK(s.hardware == "selene-a100-80gb");
  CHECK(s.hardware_file == root / "hwprofiles/selene-a100-80gb.yaml");
  CHECK(s.source_file == root / "scenarios/korthikanti2022/gpt-22b.yaml");
}

TEST_CASE("scenarios: runtime.device_max_connections replaces the profile host's setting") {
  const Scenario lamy = load_scenario(root / "scenarios/lamy-poirier2021/gpt-1t-layered.yaml");
  REQUIRE(lamy.runtime.device_max_connections.has_value());
  CHECK(*lamy.runtime.device_max_connections == 8);
  CHECK(load_hardware_profile(lamy.hardware_file).host->device_max_connections == 1);
  CHECK(scenario_hardware(lamy).host->device_max_connections == 8);
  const Scenario plain = load_scenario(root / "scenarios/korthikanti2022/gpt-22b.yaml");
  CHECK_FALSE(plain.runtime.device_max_connections.has_value());
  CHECK(scenario_hardware(plain).host->device_max_connections == 1);
  // A profile without a host section has no host model to set it in.
  Scenario hostless = load_scenario(data / "good-scenario.yaml");
  hostless.runtime.device_max_connections = 1;
  CHECK_THROWS_WITH_AS(scenario_hardware(hostless),
                       doctest::Contains("needs a hardware profile with a host section"),
                       ConfigError);
}

TEST_CASE("scenarios: training.mode inference") {
  const Scenario s = load_scenario(root / "scenarios/tests/tiny-inference.yaml");
  CHECK(s.training.mode == RunMode::inference);
  CHECK(s.training.inference());
}

TEST_CASE("scenarios: defaults come from the parameter table") {
  const Scenario s = load_scenario(data / "good-scenario.yaml");
  CHECK(s.name == "good-scenario");  // derived from the file name
  CHECK(s.model.ffn == 4 * 64);
  CHECK(s.model.seq_len == 2048);
  CHECK(s.model.vocab == 51200);
  CHECK(s.model.dtype == DType::bf16);
  CHECK(s.model.attention_flops == AttentionFlops::dense);
  CHECK(s.model.vocab_divisor == 128);
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.optimizer == Optimizer::adam);
  CHECK(s.training.mode == RunMode::training);
  CHECK(s.training.clip_grad == 1.0);  // Megatron's --clip-grad
  CHECK(s.parallel.tensor.kind == TensorKind::one_d);
  CHECK(s.parallel.tensor.sequence_parallel == false);
  CHECK(s.parallel.pipeline.size == 1);
  CHECK(s.parallel.pipeline.schedule == PipelineSchedule::one_f_one_b);
  CHECK(s.parallel.pipeline.chunks == 1);
  CHECK(s.parallel.data.size == 2);  // derived: 4 GPUs / TP 2
  CHECK(s.parallel.data.zero == 0);
  CHECK(s.parallel.data.overlap_grad_reduce == true);
  CHECK(s.parallel.recompute == Recompute::none);
  // `hardware:` as a path is relative to the scenario file.
  CHECK(s.hardware_file == data / "good-profile.yaml");
}

TEST_CASE("scenarios: a profile name resolves from any current directory") {
  const CurrentDirectory in_tmp(fs::temp_directory_path());
  const Scenario s = load_scenario(root / "scenarios/tests/tiny-tp2-dp2.yaml");
  CHECK(s.hardware_file == root / "hwprofiles/selene-a100-80gb.yaml");
  CHECK(s.parallel.tensor.size == 2);
  CHECK(s.parallel.data.size == 2);
  CHECK(s.model.vocab_divisor == 1);
  CHECK(resolve_hardware_profile("dgx-h100", "/", {}) == root / "hwprofiles/dgx-h100.yaml");
}

TEST_CASE("parameters: table, section keys and help text") {
  CHECK(scenario_keys_under("") == std::vector<std::string>{"name", "hardware", "gpus", "model",
                                                            "training", "parallel", "stragglers",
                                                            "runtime"});
  CHECK(scenario_keys_under("parallel") ==
        std::vector<std::string>{"tensor", "pipeline", "context", "data", "expert", "recompute"});
  CHECK(scenario_section_required("model"));
  CHECK(!scenario_section_required("parallel"));
  CHECK(scenario_parameter("model.vocab").default_value == "51200");
  CHECK(scenario_parameter("model.seq_len").default_value == "2048");
  CHECK(scenario_parameter("parallel.pipeline.schedule").default_value == "1f1b");
  CHECK(scenario_parameter("model.ffn").default_kind == DefaultKind::derived);
  CHECK_THROWS_AS(scenario_parameter("model.nope"), std::out_of_range);
  const std::string help = scenario_parameters_help();
  for (const Parameter& p : scenario_parameters())
    CHECK(help.find(p.path) != std::string::npos);
  CHECK(help.find("gpipe | 1f1b | interleaved | breadth-first | layered") != std::string::npos);
  CHECK(help.find("default 4 x model.hidden") != std::string::npos);
  CHECK(help.find("number >= 0") != std::string::npos);  // training.clip_grad
}

TEST_CASE("yaml reader: edit distance and suggestions") {
  CHECK(edit_distance("hiden", "hidden") == 1);
  CHECK(edit_distance("", "abc") == 3);
  const std::vector<std::string> keys{"layers", "hidden", "heads"};
  CHECK(closest_match("hiden", keys) == "hidden");
  CHECK(!closest_match("optimizer", keys));
}
