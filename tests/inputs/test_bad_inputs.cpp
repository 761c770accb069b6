// One malformed input per file under data/bad/; each must fail with its own specific error
// naming the file, line:column, field path, offending value and what would be valid.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"

using namespace trainsim;
using namespace trainsim::inputs;
namespace fs = std::filesystem;

namespace {
const fs::path bad = fs::path(TRAINSIM_TEST_DATA) / "bad";

struct BadInput {
  const char* file;
  const char* where;                  ///< "line:column" expected after the file name
  std::vector<const char*> contains;  ///< field path, value, valid alternatives...
};

/// The error message of loading `file`, or "no error".
std::string error_of(const fs::path& file) {
  try {
    if (file.filename().string().starts_with("p_")) {
      load_hardware_profile(file);
    } else {
      load_scenario(file);
    }
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string fmt_location(const fs::path& file, const char* where) {
  return file.string() + ":" + where + ": ";
}

void check(const BadInput& b) {
  const fs::path file = bad / b.file;
  REQUIRE(fs::exists(file));
  const std::string message = error_of(file);
  CAPTURE(message);
  CHECK(message.starts_with(fmt_location(file, b.where)));
  for (const char* part : b.contains) {
    CAPTURE(part);
    CHECK(message.find(part) != std::string::npos);
  }
}
}  // namespace

const std::vector<BadInput>& bad_scenarios() {
  static const std::vector<BadInput> cases{
      {"s_unknown_key.yaml",
       "6:3",
       {"model.hiden: unknown key \"hiden\" in model", "did you mean \"hidden\"?",
        "valid keys: layers, hidden, heads, kv_heads, head_dim, ffn"}},
      {"s_missing_required.yaml", "5:3", {"missing required key \"heads\" (model.heads)"}},
      {"s_bad_enum.yaml",
       "10:10",
       {"model.dtype", "\"bf17\"", "valid values: fp32, bf16, fp16, fp64",
        "did you mean \"bf16\""}},
      {"s_bad_mode.yaml",
       "14:9",
       {"training.mode", "\"inferense\"", "valid values: training, inference",
        "did you mean \"inference\""}},
      {"s_inference_recompute.yaml",
       "18:14",
       {"parallel.recompute", "recompute selective", "inference does not have",
        "use none with training.mode inference"}},
      {"s_inference_zero.yaml",
       "18:16",
       {"parallel.data.zero", "ZeRO stage 1", "use 0 with training.mode inference"}},
      {"s_zero_gpus.yaml", "3:7", {"gpus: expected an integer in 1..1048576, got 0"}},
      {"s_too_many_layers.yaml",
       "4:17",
       {"model.layers: expected an integer in 1..100000", "got 4000000000"}},
      {"s_product_mismatch.yaml",
       "3:7",
       {"gpus: 4 GPUs, but tensor.size 2 x context.size 1 x pipeline.size 1 x data.size 3 = 6"}},
      {"s_heads_tp.yaml",
       "15:11",
       {"parallel.tensor.size", "heads 4 is not divisible by tensor.size 3"}},
      {"s_hidden_heads.yaml", "7:10", {"model.heads", "hidden 64 is not divisible by heads 6"}},
      {"s_batch.yaml",
       "11:17",
       {"training.global_batch",
        "global_batch 3 is not a multiple of micro_batch 1 x data.size 2 = 2"}},
      {"s_layers_pp.yaml",
       "5:11",
       {"model.layers", "layers 3 is not divisible by pipeline.size 2 x chunks 1 = 2"}},
      {"s_unsupported_pipeline.yaml",
       "18:15",
       {"parallel.pipeline.schedule", "breadth-first without a pipeline (pipeline.size 1)",
        "use layered", "or pipeline.size >= 2"}},
      {"s_breadth_first_chunks.yaml",
       "19:13",
       {"parallel.pipeline.chunks", "chunks 1: schedule breadth-first loops over 2 or more",
        "use chunks >= 2, or schedule gpipe"}},
      {"s_layered_chunks.yaml",
       "19:13",
       {"parallel.pipeline.chunks", "one layer per chunk",
        "chunks must be layers / pipeline.size = 8 / 2 = 4", "use chunks: 4"}},
      {"s_interleaved_micro_batches.yaml",
       "11:17",
       {"training.global_batch", "3 micro batches per replica",
        "multiple of pipeline.size 2 (Megatron's rule)"}},
      {"s_sp_tp1.yaml",
       "16:24",
       {"parallel.tensor.sequence_parallel", "needs tensor.size > 1 (got 1)", "use false"}},
      {"s_sp_seq_len.yaml",
       "16:24",
       {"parallel.tensor.sequence_parallel", "seq_len 15 over tensor.size 2", "use false"}},
      {"s_3d_not_cube.yaml",
       "17:11",
       {"parallel.tensor.size", "3d tensor parallelism needs a cube size q³ with q >= 2",
        "8, 27, 64", "got 4"}},
      {"s_3d_micro_batch.yaml",
       "13:16",
       {"training.micro_batch", "q² = 4 blocks", "micro_batch 2 is not divisible by 4"}},
      {"s_3d_heads.yaml", "7:10", {"model.heads", "heads 3 is not divisible by q = 2"}},
      {"s_3d_hidden.yaml",
       "6:11",
       {"model.hidden", "q² = 4 ways", "hidden 34 is not divisible by 4"}},
      {"s_3d_ffn.yaml", "8:8", {"model.ffn", "ffn 66 is not divisible by 4"}},
      {"s_3d_sequence_parallel.yaml",
       "18:24",
       {"parallel.tensor.sequence_parallel", "Megatron's 1d scheme", "3d already splits",
        "use false"}},
      {"s_3d_grid_order.yaml",
       "18:17",
       {"parallel.tensor.grid_order", "grid_order row-major orders a 2d/2.5d grid",
        "weight-major (the default), input-major or output-major"}},
      {"s_2d_cube_order.yaml",
       "18:17",
       {"parallel.tensor.grid_order", "grid_order weight-major orders a 3d cube",
        "a 2d grid is row-major, column-major"}},
      {"s_2d_not_square.yaml",
       "17:11",
       {"parallel.tensor.size", "2d tensor parallelism needs a square size q² with q >= 2",
        "got 2"}},
      {"s_2p5d_size_depth.yaml",
       "17:11",
       {"parallel.tensor.size", "size = q² x depth", "size 8 is not a multiple of depth 3"}},
      {"s_2p5d_not_square.yaml",
       "17:11",
       {"parallel.tensor.size", "size 12 / depth 2 is not a square of 2 or more",
        "e.g. size 8 for q 2"}},
      {"s_2d_micro_batch.yaml",
       "13:16",
       {"training.micro_batch", "q = 2 blocks", "micro_batch 3 is not divisible by 2"}},
      {"s_2d_hidden.yaml",
       "6:11",
       {"model.hidden", "q² = 4 ways", "hidden 18 is not divisible by 4"}},
      {"s_2d_heads.yaml", "7:10", {"model.heads", "heads 4 is not divisible by q = 3"}},
      {"s_2d_ffn.yaml", "8:8", {"model.ffn", "ffn 66 is not divisible by 4"}},
      {"s_2d_sequence_parallel.yaml",
       "18:24",
       {"parallel.tensor.sequence_parallel", "Megatron's 1d scheme", "use false"}},
      {"s_stragglers_rank.yaml",
       "14:20",
       {"stragglers.rank", "GPU 4 is beyond the scenario's 4 GPUs (ranks 0 to 3)"}},
      {"s_stragglers_factor.yaml", "14:31", {"stragglers.factor", "150: expected 1 to 100"}},
      {"s_stragglers_fraction.yaml", "14:24", {"stragglers.fraction", "1.5: expected 0 to 1"}},
      {"s_stragglers_none.yaml",
       "14:22",
       {"stragglers.factor", "slows no GPU: give stragglers.rank"}},
      {"s_2d_depth.yaml",
       "18:12",
       {"parallel.tensor.depth", "depth 2 stacks grids, which only 2.5d does"}},
      {"s_1d_grid_order.yaml",
       "17:17",
       {"parallel.tensor.grid_order", "grid_order column-major",
        "1d tensor parallelism has no grid"}},
      {"s_2d_depth_major.yaml",
       "18:17",
       {"parallel.tensor.grid_order", "a 2d grid is row-major or column-major"}},
      {"s_zero_range.yaml", "17:11", {"parallel.data.zero", "expected an integer in 0..3, got 5"}},
      {"s_string_for_int.yaml", "7:10", {"model.heads", "expected an integer, got \"four\""}},
      {"s_float_for_int.yaml",
       "5:11",
       {"model.layers",
        "expected an integer written with digits only, got \"2.5\" (a real number)"}},
      {"s_unknown_profile.yaml",
       "2:11",
       {"hardware: unknown hardware profile \"selene\"", "did you mean \"selene-a100-80gb\"?",
        "dgx-h100, dgx-h100-calibrated, dgx-h200"}},
      {"s_missing_profile_file.yaml",
       "2:11",
       {"hardware: no such profile file \"profiles/nope.yaml\""}},
      {"s_syntax.yaml", "8:10", {"invalid YAML: end of sequence flow not found"}},
      {"s_duplicate_key.yaml",
       "9:3",
       {"model.heads: duplicate key \"heads\" (first written at line 7)"}},
      {"s_chunks_schedule.yaml",
       "17:13",
       {"parallel.pipeline.chunks",
        "chunks 2 needs schedule interleaved, breadth-first or layered"}},
      {"s_bool.yaml",
       "17:26",
       {"parallel.data.overlap_grad_reduce", "expected true or false, got \"yes\""}},
      {"s_negative.yaml", "9:10", {"model.vocab", "expected an integer in 1..134217728, got -5"}},
      {"s_clip_grad_negative.yaml",
       "13:14",
       {"training.clip_grad", "expected a number in [0, inf], got -1.0"}},
      {"s_clip_grad_unit.yaml",
       "13:14",
       {"training.clip_grad", "expected a number without unit, got \"1.0 x\""}},
      {"s_not_mapping.yaml", "10:11", {"training: expected a mapping", "global_batch", "got 4"}},
      {"s_gpus_not_divisible.yaml",
       "3:7",
       {"gpus: 3 GPUs cannot be split into tensor.size 2 x context.size 1 x pipeline.size 1 = 2"}},
      {"s_ffn_tp.yaml", "10:8", {"model.ffn", "ffn 65 is not divisible by tensor.size 2"}},
      {"s_kv_heads_divide.yaml", "8:13", {"model.kv_heads", "kv_heads 3 does not divide heads 4"}},
      {"s_kv_heads_tp.yaml",
       "16:11",
       {"parallel.tensor.size", "kv_heads 1 is not divisible by tensor.size 2"}},
      {"s_rmsnorm_2d.yaml",
       "16:11",
       {"parallel.tensor.kind", "kind 2d runs the GPT layer only", "norm rmsnorm", "use kind 1d"}},
      {"s_dropout_one.yaml", "10:19", {"model.hidden_dropout", "a probability in [0, 1); got 1"}},
      {"s_activation_unknown.yaml",
       "10:15",
       {"model.activation", "invalid value \"relu\"", "valid values: gelu, swiglu"}},
      {"s_gelu_no_bias.yaml", "10:9", {"model.bias", "use bias true or activation swiglu"}},
      {"s_qk_norm_layernorm.yaml", "10:12", {"model.qk_norm", "it needs norm rmsnorm"}},
      {"s_moe_topk.yaml", "12:28", {"model.moe.top_k", "top_k 5 is more than the 4 experts"}},
      {"s_moe_gelu.yaml", "10:15", {"model.activation", "needs activation swiglu"}},
      {"s_moe_ep_experts.yaml",
       "17:18",
       {"parallel.expert.size", "expert.size 4 does not divide the 6 experts"}},
      {"s_moe_ep_stage.yaml",
       "17:18",
       {"parallel.expert.size",
        "does not divide tensor.size 1 x context.size 1 x data.size 2 = 2"}},
      {"s_moe_no_experts.yaml",
       "16:18",
       {"parallel.expert.size", "the model has no experts", "expert.size 1"}},
      {"s_moe_without_experts.yaml", "12:16", {"model.moe.top_k", "set model.moe.experts"}},
      {"s_moe_tp_no_sp.yaml",
       "17:11",
       {"parallel.tensor.sequence_parallel", "needs sequence_parallel true"}},
      {"s_moe_expert_tensor.yaml",
       "17:29",
       {"parallel.expert.tensor", "expected an integer in 1..1, got 2"}},
      {"s_moe_capacity_zero.yaml",
       "12:48",
       {"model.moe.capacity_factor", "a finite number above 0", "got 0"}},
      {"s_moe_zipf_balanced.yaml",
       "12:46",
       {"model.moe.zipf_exponent", "1.2 is the exponent of routing zipf", "routing is balanced"}},
      {"s_moe_zero2.yaml", "17:16", {"parallel.data.zero", "ZeRO stage 2 with experts"}},
      {"s_moe_shared_bias.yaml",
       "12:37",
       {"model.moe.shared_experts", "1 shared experts", "set model.bias false"}},
      {"s_window_standard.yaml",
       "10:28",
       {"model.attention_window.size", "runs in the fused kernels",
        "set model.attention to flash"}},
      {"s_rope_odd_head_dim.yaml", "8:13", {"model.head_dim", "head_dim 7 is odd"}},
      {"s_flash_fp32.yaml",
       "26:14",
       {"model.attention", "flash attention runs in bf16 or fp16", "dtype is fp32"}},
      {"s_cp_standard.yaml",
       "16:19",
       {"parallel.context.size", "fused attention kernels", "set model.attention to flash"}},
      {"s_cp_seq_len.yaml",
       "17:19",
       {"parallel.context.size", "seq_len 12 is not divisible by 2 x context.size = 8"}},
      {"s_cp_learned.yaml", "15:19", {"parallel.context.size", "position: rope"}},
      {"s_cp_gpus.yaml",
       "3:7",
       {"gpus", "8 GPUs, but tensor.size 2 x context.size 2 x pipeline.size 1 x data.size 4 = 16"}},
      {"s_fp8_fp32.yaml", "14:14", {"training.precision", "model.dtype is fp32 (use bf16)"}},
      {"s_fp8_recipe_bf16.yaml",
       "13:15",
       {"training.fp8_recipe", "set training.precision to fp8, or drop the recipe"}},
      {"s_fp8_2d.yaml", "13:14", {"training.precision", "not tensor kind 2d"}},
      {"s_cp_zero.yaml", "16:19", {"parallel.context.size", "expected an integer in 1.."}},
      {"s_tp_overlap_no_sp.yaml",
       "14:35",
       {"parallel.tensor.comm_overlap", "sequence_parallel true (got false)"}},
      {"s_param_gather_zero3.yaml",
       "14:50",
       {"parallel.data.overlap_param_gather", "parallel.data.zero 1 or 2 (got 3"}},
  };
  return cases;
}

TEST_CASE("bad scenarios: each fails with its own error") {
  for (const BadInput& b : bad_scenarios()) {
    CAPTURE(b.file);
    check(b);
  }
}

const std::vector<BadInput>& bad_profiles() {
  static const std::vector<BadInput> cases{
      {"p_implausible_bandwidth.yaml",
       "15:21",
       {"gpu.memory_bandwidth: expected a value between 1 MB/s and 1 PB/s", "1e-300 GB/s"}},
      {"p_huge_latency.yaml", "38:17", {"collectives.base_latency", "too large (at most 1e6 s)"}},
      {"p_host_unknown_sync.yaml",
       "53:28",
       {"host.sync_points[1]", "invalid value \"item\"", "valid values: found_inf, grad_norm"}},
      {"p_algorithms_unknown.yaml",
       "46:22",
       {"collectives.algorithms[1]", "invalid value \"nvls\"", "valid values: ring, tree"}},
      {"p_algorithms_no_ring.yaml", "46:15", {"collectives.algorithms", "the list must hold ring"}},
      {"p_algorithms_duplicate.yaml",
       "46:28",
       {"collectives.algorithms[2]", "duplicate algorithm \"ring\""}},
      {"p_reliability_negative_rate.yaml",
       "56:17",
       {"reliability.interruptions.faulty_gpu", "\"-1e-4 /GPU-day\"",
        "negative values are not allowed"}},
      {"p_reliability_rate_unit.yaml",
       "56:17",
       {"reliability.interruptions.faulty_gpu", "unknown unit \"/GPU-hour\"",
        "valid units: /GPU-day, /GPU-h"}},
      {"p_reliability_implausible_rate.yaml",
       "56:17",
       {"reliability.interruptions.faulty_gpu", "between 0 /GPU-day and 1 /GPU-day",
        "got 3 /GPU-day"}},
      {"p_reliability_cause_name.yaml",
       "57:5",
       {"reliability.interruptions.Faulty-GPU", "expected a lower-case name"}},
      {"p_reliability_mode.yaml",
       "67:11",
       {"reliability.checkpoint.mode", "invalid value \"lazy\"", "valid values: sync, async"}},
      {"p_reliability_no_provenance.yaml", "59:11", {"reliability.detect: no provenance entry"}},
      {"p_host_dispatch_unit.yaml",
       "51:37",
       {"host.dispatch.kernel", "between 0 ps and 1 ms", "got 8 s"}},
      {"p_bare_number.yaml",
       "11:21",
       {"gpu.memory_bandwidth",
        "expected a bandwidth such as \"300 GB/s\" or \"200 Gb/s\", got \"1000\"",
        "units are mandatory"}},
      {"p_wrong_dimension.yaml",
       "13:18",
       {"gpu.kernel_launch", "\"4 GB\"", "\"GB\" is a unit of a size in bytes, not of a time"}},
      {"p_efficiency_gt1.yaml",
       "35:14",
       {"collectives.intra_node_efficiency.1 MiB", "expected a fraction in (0, 1], got 1.2"}},
      {"p_provenance_unknown.yaml",
       "46:3",
       {"provenance.gpu.memory_bandwith", "not a field of this profile",
        "did you mean \"gpu.memory_bandwidth\"?"}},
      {"p_missing_provenance.yaml",
       "9:13",
       {"gpu.sm_count: no provenance entry", "under provenance:"}},
      {"p_duplicate_curve_size.yaml",
       "37:5",
       {"collectives.intra_node_efficiency", "duplicate size \"1048576 B\"",
        "the same as \"1 MiB\" at line 35"}},
      {"p_negative_bandwidth.yaml",
       "28:18",
       {"network.nic_bandwidth", "\"-25 GB/s\"", "negative values are not allowed"}},
      {"p_bits_for_bytes.yaml", "10:11", {"gpu.memory", "\"80 Gb\"", "is bits"}},
      {"p_unknown_unit.yaml", "24:18", {"node.gpu_bandwidth", "unknown unit \"GBps\"", "GB/s"}},
      {"p_bad_fabric.yaml",
       "23:11",
       {"node.fabric", "invalid value \"nvlink\"", "valid values: nvswitch, pcie"}},
      {"p_host_bridge_on_nvswitch.yaml",
       "26:26",
       {"node.host_bridge_bandwidth", "only to fabric: pcie"}},
      {"p_fractional_bytes.yaml",
       "10:11",
       {"gpu.memory", "\"1.5 B\"", "not a whole number of bytes"}},
      {"p_tile_length.yaml", "16:11", {"gpu.gemm.tile", "expected [tile_m, tile_n], got 1 values"}},
      {"p_unknown_dtype_peak.yaml",
       "7:5",
       {"gpu.peak.bf32", "invalid value \"bf32\"", "fp64, fp32, tf32, bf16, fp16"}},
      {"p_group_size_beyond_node.yaml",
       "41:5",
       {"collectives.intra_node_efficiency_by_group_size",
        "group size 8 is more than one node of 4 GPUs; valid: 2 to 4"}},
      {"p_p2p_efficiency_gt1.yaml",
       "42:16",
       {"collectives.p2p.intra_node_efficiency.1 MiB", "expected a fraction in (0, 1], got 1.5"}},
      {"p_dtype_efficiency_no_peak.yaml",
       "18:7",
       {"gpu.gemm.max_efficiency_by_dtype", "tf32 has no peak under gpu.peak"}},
      {"p_p2p_missing_provenance.yaml",
       "41:7",
       {"collectives.p2p.inter_node_efficiency: no provenance entry"}},
      {"p_unknown_key.yaml",
       "9:3",
       {"gpu.sm_counts: unknown key", "did you mean \"sm_count\"?", "valid keys: model, peak"}},
      {"p_kernels_unknown_class.yaml",
       "14:5",
       {"gpu.kernels.layernorm", "invalid value \"layernorm\"",
        "valid values: elementwise, dropout, layer_norm", "did you mean \"layer_norm\"?"}},
      {"p_kernels_efficiency_gt1.yaml",
       "14:14",
       {"gpu.kernels.softmax", "expected a fraction in (0, 1], got 1.3"}},
      {"p_kernels_missing_provenance.yaml",
       "14:14",
       {"gpu.kernels.dropout: no provenance entry", "under provenance:"}},
      {"p_tiles_without_bandwidth.yaml",
       "18:22",
       {"gpu.gemm.candidate_tiles", "needs gpu.gemm.operand_bandwidth",
        "the smallest would always win"}},
      {"p_base_tile_not_candidate.yaml",
       "16:11",
       {"gpu.gemm.tile", "tile [128, 128]", "is not among candidate_tiles"}},
      {"p_split_without_tiles.yaml",
       "18:18",
       {"gpu.gemm.max_split_k", "applies only with candidate_tiles"}},
      {"p_duplicate_candidate_tile.yaml",
       "18:45",
       {"gpu.gemm.candidate_tiles[2]", "duplicate tile [128, 128]"}},
      {"p_split_out_of_range.yaml",
       "20:18",
       {"gpu.gemm.max_split_k", "expected an integer in 1..256, got 0"}},
      {"p_candidate_tile_too_large.yaml",
       "18:36",
       {"gpu.gemm.candidate_tiles[1][0]", "expected an integer in 1..1024, got 2048"}},
      {"p_cta_overhead_missing_provenance.yaml",
       "20:21",
       {"gpu.gemm.cta_overhead_k: no provenance entry"}},
      {"p_kernels_attention_class.yaml",
       "14:5",
       {"gpu.kernels.attention", "a compute-bound class", "gpu.attention {efficiency"}},
      {"p_attention_fraction.yaml",
       "14:17",
       {"gpu.attention.efficiency", "expected a fraction in (0, 1], got 1.5"}},
      {"p_attention_missing_backward.yaml",
       "14:5",
       {"missing required key \"backward_efficiency\"", "gpu.attention.backward_efficiency"}},
  };
  return cases;
}

TEST_CASE("bad profiles: each fails with its own error") {
  for (const BadInput& b : bad_profiles()) {
    CAPTURE(b.file);
    check(b);
  }
}

TEST_CASE("bad inputs: every file under data/bad/ is covered by a case above") {
  std::set<std::string> covered;
  for (const BadInput& b : bad_scenarios())
    covered.insert(b.file);
  for (const BadInput& b : bad_profiles())
    covered.insert(b.file);
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(bad)) {
    if (entry.path().extension() == ".yaml") files.insert(entry.path().filename().string());
  }
  CHECK(files == covered);
  CHECK(files.size() >= 20);
}

TEST_CASE("bad inputs: a missing file names its path") {
  const std::string scenario = error_of(bad / "does-not-exist.yaml");
  CHECK(scenario.find("does-not-exist.yaml") != std::string::npos);
  CHECK(scenario.find("no such file") != std::string::npos);
  CHECK_THROWS_AS(load_hardware_profile(bad / "p_none.yaml"), ConfigError);
}

TEST_CASE("binary junk quoted in an error comes out escaped, text and UTF-8 unchanged") {
  const std::filesystem::path junk = std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "tests" /
                                     "fuzz" / "regressions" / "scenario" / "binary-junk.yaml";
  try {
    (void)inputs::load_scenario(junk);
    FAIL("binary junk was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("expected a mapping") != std::string::npos);
    CHECK(what.find("\\x01") != std::string::npos);
    for (const char c : what) {
      const auto u = static_cast<unsigned char>(c);
      CHECK_MESSAGE((u >= 0x20 || u == '\n' || u == '\t'), "raw control byte " << int(u));
    }
  }
  const ConfigError plain({"f.yaml", 1, 1}, "got \"h\u00e9llo\"\tand\x7f");
  CHECK(std::string(plain.what()) == "f.yaml:1:1: got \"h\u00e9llo\"\tand\\x7F");
}
