// Optimus (Xu et al. 2021, arXiv 2104.05343; published-results.md §3): on 64 GPUs of TACC
// Frontera, 2D over Megatron's 1D: 1.48x training, 1.78x inference, 8x the largest batch. The
// paper's configurations are not known; the stated setup is scenarios/optimus2021/ (the
// authors' benchmark script's layers, batch 192; reproductions/optimus2021/README.md says why).

#include <memory>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reproductions/claims/paper_maps.hpp"
#include "reproductions/claims/tensor_claim.hpp"

namespace trainsim::reproductions::claim_maps {
namespace {

constexpr const char* kSource = "Xu et al. 2021, Optimus (arXiv 2104.05343), abstract";

// The unknowns of a speed comparison (training, inference); the paper's machine is the stated
// setup. Why each value is or is not plausible: the `why` strings (hardware-data.md §2.2 for
// Frontera's rtx nodes).
std::vector<TensorAxis> speed_axes() {
  return {
      {"hidden size",
       "the authors' benchmark script (xuqifan897/Optimus, published-results.md §3) uses 2048; the "
       "paper's larger models are not known to us, so every size at which 1D fits a batch is "
       "plausible",
       1,
       {hidden_change(1024), hidden_change(2048), hidden_change(4096), hidden_change(8192)}},
      {"batch",
       "the script's 96 and its multiples; 192, the stated one, is the largest multiple of 96 "
       "that 1D holds in 16 GB; a benchmark compares the schemes at a batch both hold",
       3,
       {batch_change(24), batch_change(48), batch_change(96), batch_change(192),
        batch_change(384)}},
      {"sequence",
       "the script's 512; GPT-2's 1024 as plausible",
       0,
       {sequence_change(512), sequence_change(1024)}},
      {"recomputation",
       "the authors' benchmark script checkpoints activations (a 16-GPU script, not the 64-GPU "
       "runs); checkpointing is a flag, so without it is plausible (no source says which the "
       "paper's runs used)",
       0,
       {recompute_change(Recompute::full), recompute_change(Recompute::none)}},
      {"2D rank order",
       "ColossalAI numbers the grid row-major (a row of 8 spans 2 nodes); how the paper's "
       "launcher placed ranks is not known, so column-major is as plausible",
       0,
       {grid_order_change(TensorKind::two_d, GridOrder::row_major),
        grid_order_change(TensorKind::two_d, GridOrder::column_major)}},
      {"NIC per node",
       "Frontera's documented node link is HDR-100; the rtx nodes' NIC is not stated "
       "(hardware-data.md §2.2), so a full HDR port is plausible too",
       0,
       {nic_bandwidth_change(Bandwidth::gb_per_s(12.5), "HDR-100 12.5 GB/s"),
        nic_bandwidth_change(Bandwidth::gb_per_s(25.0), "HDR 25 GB/s")}},
      {"GPU-to-GPU path in a node",
       "PCIe 3.0 only; NCCL models cross-socket Broadwell QPI at 6 GB/s and the GPUs' split over "
       "the two sockets is not documented (hardware-data.md §2.2): all traffic crossing QPI (the "
       "profile) or none (one PCIe switch, 15.75 GB/s) are both plausible",
       0,
       {host_bridge_change(Bandwidth::gb_per_s(6.0), "QPI 6 GB/s"),
        host_bridge_change(Bandwidth::gb_per_s(15.75), "PCIe switch 15.75 GB/s")}},
      {"Megatron 1D layout",
       "the paper compares tensor-parallel schemes on the same 64 GPUs, so 1D is t = 64; 1D "
       "inside a node with data parallelism is another comparison (shown, not plausible)",
       0,
       {baseline_layout_change(64, 64), baseline_layout_change(16, 64, false),
        baseline_layout_change(4, 64, false)}},
  };
}

// The unknowns of the largest-batch comparison: only what sets memory.
std::vector<TensorAxis> memory_axes() {
  return {
      {"hidden size",
       "as for the speed ratios: 2048 in the authors' script, every size plausible",
       1,
       {hidden_change(1024), hidden_change(2048), hidden_change(4096), hidden_change(8192)}},
      {"recomputation",
       "the authors' benchmark script checkpoints activations (a 16-GPU script, not the 64-GPU "
       "runs); the largest-batch experiment's configuration is not published and "
       "checkpointing is a flag, so both are plausible (no source says which it used)",
       0,
       {recompute_change(Recompute::full), recompute_change(Recompute::none)}},
      {"sequence",
       "the script's 512; GPT-2's 1024 as plausible",
       0,
       {sequence_change(512), sequence_change(1024)}},
  };
}

}  // namespace

std::vector<ClaimMapSpec> optimus2021_maps(const std::filesystem::path& root) {
  const std::filesystem::path dir = root / "scenarios/optimus2021";
  TensorSetup stated{
      {inputs::load_scenario(dir / "gpt-1d.yaml"), inputs::load_scenario(dir / "gpt-2d.yaml"), 0},
      {},
      {}};
  stated.hardware = inputs::scenario_hardware(stated.main.baseline);
  auto cache = std::make_shared<TensorRunCache>();
  auto claim = [&](std::string id, std::string what, double published, TensorMetric metric,
                   std::vector<TensorAxis> axes) {
    return tensor_claim_map({std::move(id), "optimus2021", std::move(what), kSource, published,
                             0.20, metric, stated, std::move(axes), 0, 1},
                            cache);
  };
  ClaimMapSpec largest =
      claim("optimus-max-batch", "Optimus 2D over 1D, largest training batch, 64 GPUs", 8.0,
            TensorMetric::max_batch, memory_axes());
  largest.decides = "the setup of the largest-batch row";
  return {
      claim("optimus-training", "Optimus 2D over 1D, training step, 64 GPUs of Frontera", 1.48,
            TensorMetric::step, speed_axes()),
      claim("optimus-inference", "Optimus 2D over 1D, inference, 64 GPUs of Frontera", 1.78,
            TensorMetric::inference, speed_axes()),
      std::move(largest),
  };
}

}  // namespace trainsim::reproductions::claim_maps
