#pragma once
// Claim maps of the tensor-parallel papers (Optimus, Tesseract, the 3D paper): a published
// ratio of a proposed scheme over a baseline (2D over Megatron's 1D, …) on one model, batch and
// GPU count, and the unknowns of the paper's setup as changes to the stated scenarios and the
// machine's profile. Other ratios the paper states of the same runs, or of the same machine,
// can be required to hold at the same setup (`TensorSetup::also`): one setup must give every
// figure of one experiment, one machine every experiment of one paper. The schemes run through
// compare_tensor_schemes, one scheme per run, each run cached so that the maps of one paper that
// share setups replay each setup once.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "reports/analyses/scheme_comparison.hpp"
#include "reproductions/claims/claim_map.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::reproductions::claim_maps {

/// The two schemes of one published ratio, each a scenario whose plan states its layout.
struct TensorPair {
  Scenario baseline;
  Scenario proposed;
  /// Which experiment of the paper the pair belongs to (strong or weak scaling, 0 and 1): the
  /// changes of an experiment's own unknowns (its hidden size, its batch) apply to its pairs
  /// only; every other change applies to every pair.
  int experiment = 0;
};

/// A ratio that must hold at the same setup as the map's own.
struct TensorConstraint {
  std::string name;  ///< "3D over 2D"
  TensorPair pair;
  double published = 0.0;
  double tolerance = 0.20;
};

/// A setup: the map's pair, the machine, and the ratios that must hold beside it.
struct TensorSetup {
  TensorPair main;
  hw::HardwareProfile hardware;
  std::vector<TensorConstraint> also;

  /// Calls `change` on every scenario of `experiment` (every scenario when nullopt).
  void for_each_scenario(std::optional<int> experiment,
                         const std::function<void(Scenario&)>& change);
};

/// What the published ratio measures, the proposed scheme over the baseline.
enum class TensorMetric {
  step,              ///< training step: baseline time / proposed time
  inference,         ///< forward passes of the same batch: baseline time / proposed time
  forward_backward,  ///< forward + backward without the optimizer: baseline / proposed
  max_batch,         ///< largest training batch that fits: proposed / baseline
};

/// One value of an unknown and what it changes in a setup.
struct TensorChange {
  AxisValue value;
  std::function<void(TensorSetup&)> apply;
};

/// One unknown of a tensor-parallel paper's setup, with the change each of its values makes.
struct TensorAxis {
  std::string name;
  std::string why;  ///< the plausible values and the source that says so
  std::size_t paper = 0;
  std::vector<TensorChange> values;
};

/// One scheme's results per setup, computed once; safe to share between threads and maps.
class TensorRunCache {
 public:
  /// The scheme `scenario` states, run on its model, batch and GPUs (training step, forward
  /// + backward and inference; the max-batch search when `max_batch`).
  reports::SchemeResult run(const Scenario& scenario, const hw::HardwareProfile& hardware,
                            bool max_batch);

 private:
  std::mutex mutex_;
  std::map<std::string, reports::SchemeResult> results_;
};

/// A tensor-parallel claim: its published figure, the stated setup (the paper's machine) and
/// its unknowns.
struct TensorClaim {
  std::string id;
  std::string paper;
  std::string claim;
  std::string source;
  double published = 0.0;
  double tolerance = 0.20;
  TensorMetric metric = TensorMetric::step;
  TensorSetup stated;  ///< the paper's machine: every axis at its `paper` value changes nothing
  std::vector<TensorAxis> axes;
  std::size_t grid_x = 0;
  std::size_t grid_y = 1;
};

/// The claim as a map: a point applies its axes' changes to the stated setup in axis order,
/// then gives every scheme one micro batch per data-parallel replica, and runs the schemes.
/// Infeasible where a scheme cannot lay out the model or (except for max_batch, whose point is
/// what fits) does not fit in memory, or a ratio of `also` is outside its tolerance; the note
/// says which.
ClaimMapSpec tensor_claim_map(TensorClaim claim, std::shared_ptr<TensorRunCache> cache);

/// Our ratio at a setup (as tensor_claim_map evaluates it).
MapValue evaluate_tensor_setup(const TensorSetup& setup, TensorMetric metric,
                               TensorRunCache& cache);

// Changes that the papers' unknowns share. `plausible` marks a value as plausible for the
// paper's machine; each axis's `why` says which are and why. `experiment`, where given, limits a
// change to the pairs of one experiment (TensorPair::experiment).

/// Hidden size h (ffn 4h, heads unchanged).
TensorChange hidden_change(std::int64_t hidden, bool plausible = true,
                           std::optional<int> experiment = std::nullopt);
/// Global batch.
TensorChange batch_change(std::int64_t batch, bool plausible = true,
                          std::optional<int> experiment = std::nullopt);
/// Sequence length.
TensorChange sequence_change(std::int64_t seq_len, bool plausible = true);
/// Activation recomputation.
TensorChange recompute_change(Recompute recompute, bool plausible = true);
/// The rank layout (grid or cube order) of every scheme of `kind` in the setup.
TensorChange grid_order_change(TensorKind kind, GridOrder order, bool plausible = true);
/// NICs per node.
TensorChange nics_change(std::int64_t nics, bool plausible = true);
/// Bandwidth of each NIC per direction, labelled ("HDR 200 Gb/s").
TensorChange nic_bandwidth_change(Bandwidth bandwidth, std::string label, bool plausible = true);
/// GPUs per node (the GPU count and the per-GPU links unchanged).
TensorChange gpus_per_node_change(std::int64_t gpus, bool plausible = true);
/// The PCIe host bridge every intra-node transfer of a PCIe node crosses, labelled.
TensorChange host_bridge_change(Bandwidth bandwidth, std::string label, bool plausible = true);
/// The per-GPU bandwidth into the node's fabric (NVLink or PCIe), labelled; the fabric's kind
/// is unchanged (a PCIe board is modelled as its per-GPU bandwidth into a switch).
TensorChange intra_node_change(Bandwidth bandwidth, std::string label, bool plausible = true);
/// GPU memory, labelled ("32 GB").
TensorChange gpu_memory_change(Bytes memory, std::string label, bool plausible = true);
/// Megatron's 1D layout, for every 1D scheme of the setup: a block of `tensor` of its `gpus`
/// GPUs, replicated over data-parallel groups (labelled "t 64" or "t 16 × DP 4").
TensorChange baseline_layout_change(std::int64_t tensor, std::int64_t gpus, bool plausible = true);

}  // namespace trainsim::reproductions::claim_maps
