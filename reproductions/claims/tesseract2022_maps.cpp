// Tesseract (Wang et al. 2022, arXiv 2105.14500; published-results.md §5): strong scaling,
// 2.5D tensor parallelism 1.38x faster than 1D and 1.53x faster than 2D, on nodes of 4 A100.
// The configurations are not known; the stated setup is scenarios/tesseract2022/
// (reproductions/tesseract2022/README.md says why).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reproductions/claims/paper_maps.hpp"
#include "reproductions/claims/tensor_claim.hpp"

namespace trainsim::reproductions::claim_maps {
namespace {

constexpr const char* kSource = "Wang et al. 2022, Tesseract (arXiv 2105.14500), strong scaling";

// The machine's unknowns and the runs' shared settings: 4 A100 per node (published-results.md
// §5), the rest of hgx-a100-4gpu assumed (its provenance).
std::vector<TensorAxis> machine_axes() {
  return {
      {"2.5D rank order",
       "ColossalAI numbers the 2.5D grid row-major (a row of 4 shares a node); the paper's "
       "placement is not known, so the other orders are as plausible",
       0,
       {grid_order_change(TensorKind::two_and_half_d, GridOrder::row_major),
        grid_order_change(TensorKind::two_and_half_d, GridOrder::column_major),
        grid_order_change(TensorKind::two_and_half_d, GridOrder::depth_major)}},
      {"NICs per node",
       "the paper's cluster's NICs are not known; the profile assumes one HDR port per A100 (4), "
       "as DGX-class nodes; fewer are plausible",
       2,
       {nics_change(1), nics_change(2), nics_change(4)}},
      {"GPU-to-GPU link",
       "nodes of 4 A100 with NVLink 3 between every pair (HGX A100 4-GPU, the profile) or PCIe "
       "A100 without NVLink (PCIe 4.0 x16, ~25 GB/s per direction achieved of 32, modelled as "
       "that bandwidth into the node's switch, no host bridge); the paper says 4 A100 per node, "
       "not which board, so both are plausible",
       0,
       {intra_node_change(Bandwidth::gb_per_s(300.0), "NVLink 300 GB/s"),
        intra_node_change(Bandwidth::gb_per_s(25.0), "PCIe 4.0 25 GB/s")}},
      {"A100 memory",
       "A100 SXM4 came with 40 GB (the profile) or 80 GB; the paper does not say which",
       0,
       {gpu_memory_change(Bytes::of(40LL << 30), "40 GiB"),
        gpu_memory_change(Bytes::of(80LL << 30), "80 GiB")}},
      {"recomputation",
       "the group's scripts checkpoint activations (Optimus's benchmark); without is plausible",
       0,
       {recompute_change(Recompute::full), recompute_change(Recompute::none)}},
      {"sequence",
       "the group's 512 (Optimus's script); GPT-2's 1024 as plausible",
       0,
       {sequence_change(512), sequence_change(1024)}},
  };
}

// One experiment's own unknowns: its hidden size and batch (every pair when nullopt).
TensorAxis hidden_axis(std::string name, std::optional<int> experiment) {
  return {std::move(name),
          "not published; 4096 is the stated one (twice the Optimus script's, same group, for "
          "GPUs with 2.5x the memory); every size at which 1D fits a batch is plausible",
          1,
          {hidden_change(2048, true, experiment), hidden_change(4096, true, experiment),
           hidden_change(8192, true, experiment), hidden_change(12288, true, experiment)}};
}

TensorAxis batch_axis(std::string name, std::optional<int> experiment,
                      std::vector<std::int64_t> batches, std::string why) {
  TensorAxis a{std::move(name), std::move(why), 0, {}};
  for (std::size_t i = 0; i < batches.size(); ++i) {
    if (batches[i] == 128) a.paper = i;
    a.values.push_back(batch_change(batches[i], true, experiment));
  }
  return a;
}

TensorAxis two_d_order_axis() {
  return {"2D rank order",
          "ColossalAI numbers the 2D grid row-major; the paper's placement is not known, so "
          "column-major is as plausible",
          0,
          {grid_order_change(TensorKind::two_d, GridOrder::row_major),
           grid_order_change(TensorKind::two_d, GridOrder::column_major)}};
}

constexpr const char* kStrongBatchWhy =
    "not published; a multiple of q·d = 16; 128 is the stated one; every batch every scheme "
    "holds is plausible";
constexpr const char* kWeakBatchWhy =
    "not published; weak scaling grows the problem with the GPUs, so its largest point holds at "
    "least the strong-scaling batch (128, the stated one); every batch every scheme holds is "
    "plausible";

// The experiments of the paper (TensorPair::experiment).
constexpr int kStrong = 0;
constexpr int kWeak = 1;

}  // namespace

std::vector<ClaimMapSpec> tesseract2022_maps(const std::filesystem::path& root) {
  const std::filesystem::path dir = root / "scenarios/tesseract2022";
  const Scenario one_d = inputs::load_scenario(dir / "gpt-1d.yaml");
  const Scenario two_d = inputs::load_scenario(dir / "gpt-2d.yaml");
  const Scenario two_and_half_d = inputs::load_scenario(dir / "gpt-2p5d.yaml");
  const hw::HardwareProfile hardware = inputs::scenario_hardware(two_and_half_d);
  auto cache = std::make_shared<TensorRunCache>();

  // Strong scaling, each ratio alone: the model's hidden size and batch, then the machine.
  const auto strong_axes = [&](TensorAxis last) {
    std::vector<TensorAxis> axes{
        hidden_axis("hidden size", std::nullopt),
        batch_axis("batch", std::nullopt, {16, 32, 64, 128, 256}, kStrongBatchWhy)};
    for (TensorAxis& a : machine_axes())
      axes.push_back(std::move(a));
    axes.push_back(std::move(last));
    return axes;
  };
  TensorAxis layout{
      "Megatron 1D layout",
      "strong scaling compares tensor-parallel schemes on the same 64 GPUs, so 1D is t = 64; 1D "
      "with data parallelism is another comparison (shown, not plausible)",
      0,
      {baseline_layout_change(64, 64), baseline_layout_change(16, 64, false),
       baseline_layout_change(4, 64, false)}};

  // Weak scaling, "up to" 3.4x over 1D and 1.7x over 2D in throughput: the largest point of a
  // series whose configurations are not published. At equal batch and GPUs the throughput
  // ratio is the step-time ratio, so the map asks where, on the same 64 GPUs, 3.4x arises with
  // the weak-scaling 1.7x over 2D (the same runs) and with both strong-scaling ratios at a
  // setup of their own (the same machine): one machine for the paper's two experiments.
  std::vector<TensorAxis> weak_axes{
      hidden_axis("weak-scaling hidden size", kWeak),
      batch_axis("weak-scaling batch", kWeak, {64, 128, 256, 512}, kWeakBatchWhy),
      hidden_axis("strong-scaling hidden size", kStrong),
      batch_axis("strong-scaling batch", kStrong, {32, 64, 128, 256}, kStrongBatchWhy)};
  for (TensorAxis& a : machine_axes())
    weak_axes.push_back(std::move(a));
  weak_axes.push_back(two_d_order_axis());
  TensorClaim weak{
      "tesseract-weak-scaling",
      "tesseract2022",
      "Tesseract weak scaling, 2.5D over 1D, with 1.7x over 2D and the strong-scaling ratios on "
      "the same machine",
      "Wang et al. 2022, Tesseract (arXiv 2105.14500), weak scaling",
      3.4,
      0.20,
      TensorMetric::step,
      {{one_d, two_and_half_d, kWeak},
       hardware,
       {{"weak 2.5D over 2D", {two_d, two_and_half_d, kWeak}, 1.7, 0.20},
        {"strong 2.5D over 1D", {one_d, two_and_half_d, kStrong}, 1.38, 0.20},
        {"strong 2.5D over 2D", {two_d, two_and_half_d, kStrong}, 1.53, 0.20}}},
      std::move(weak_axes),
      1,
      6};
  ClaimMapSpec weak_spec = tensor_claim_map(std::move(weak), cache);
  // The two experiments' own unknowns and the board, every combination: the weak-scaling
  // figures and the strong-scaling ones can only meet on one board if all five move together.
  weak_spec.exhaustive_axes = {0, 1, 2, 3, 6};
  weak_spec.decides = "the weak-scaling row";

  return {
      tensor_claim_map({"tesseract-2p5d-over-1d",
                        "tesseract2022",
                        "Tesseract 2.5D over 1D, training step, 64 A100 in nodes of 4",
                        kSource,
                        1.38,
                        0.20,
                        TensorMetric::step,
                        {{one_d, two_and_half_d, kStrong}, hardware, {}},
                        strong_axes(std::move(layout)),
                        0,
                        1},
                       cache),
      tensor_claim_map({"tesseract-2p5d-over-2d",
                        "tesseract2022",
                        "Tesseract 2.5D over 2D, training step, 64 A100 in nodes of 4",
                        kSource,
                        1.53,
                        0.20,
                        TensorMetric::step,
                        {{two_d, two_and_half_d, kStrong}, hardware, {}},
                        strong_axes(two_d_order_axis()),
                        0,
                        1},
                       cache),
      std::move(weak_spec),
  };
}

}  // namespace trainsim::reproductions::claim_maps
