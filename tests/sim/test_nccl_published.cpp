// The shipped profiles' collective model against the published multi-node NCCL measurements we
// have (hardware-data.md §3.6, fidelity-data.md §4.1-4.3), none of which the profiles were
// fitted to: the inter-node curve is a guess shared by every profile (see each profile's
// provenance). Each check states its tolerance and why before the figure.

#include <doctest/doctest.h>

#include <filesystem>
#include <numeric>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "sim/collective_model.hpp"
#include "sim/topology.hpp"

using namespace trainsim;
using namespace trainsim::sim;
using program::CollectiveKind;

namespace {
hw::HardwareProfile shipped(const char* name) {
  return inputs::load_hardware_profile(std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles" /
                                       (std::string(name) + ".yaml"));
}

/// nccl-tests' all-reduce over the first `gpus` GPUs: the estimate and its bus bandwidth.
struct Sweep {
  CollectiveEstimate estimate;
  double busbw_gb_s = 0.0;
};
Sweep all_reduce(const hw::HardwareProfile& hw, std::int32_t gpus, Bytes size) {
  Topology topology(hw, gpus);
  std::vector<std::int32_t> group(static_cast<std::size_t>(gpus));
  std::iota(group.begin(), group.end(), 0);
  Sweep s;
  s.estimate = estimate_collective_parts(CollectiveKind::all_reduce, size, group, topology, hw);
  s.busbw_gb_s = bus_factor(CollectiveKind::all_reduce, gpus) * size.as_double() /
                 s.estimate.total().seconds() / 1e9;
  return s;
}
const Bytes k16GiB = Bytes::of(std::int64_t{16} << 30);
}  // namespace

TEST_CASE("H100: large all-reduces over 2 and 4 nodes (nccl-tests #309)") {
  // hardware-data.md §3.6 (medium, a user's report): 8 x 400 Gb/node, large messages, 2 nodes
  // about 470 GB/s busbw, 4 nodes (32 GPUs) 365.84. Tolerance 10 %: a single user report of
  // unstated size, and on 2 nodes NCCL ran NVLSTree (NVLink SHARP inside the node), which the
  // model does not have: its tree's NVLink chains are its ceiling there.
  const auto hw = shipped("dgx-h100");
  const Sweep two = all_reduce(hw, 16, k16GiB);
  CHECK(two.estimate.algorithm == CollectiveAlgorithm::tree);
  CHECK(two.busbw_gb_s == doctest::Approx(470.0).epsilon(0.10));
  const Sweep four = all_reduce(hw, 32, k16GiB);
  CHECK(four.busbw_gb_s == doctest::Approx(365.84).epsilon(0.10));
  // fidelity-data.md §4.1 (high, maintainers): on exactly 2 nodes the tree's busbw exceeds
  // the NICs' rate (8 x 50 GB/s); beyond, it does not.
  CHECK(two.busbw_gb_s > 400.0);
  CHECK(four.busbw_gb_s < 400.0);
}

TEST_CASE("H100-class: a 32 KiB all-reduce over 2 nodes costs ~47 us, a few bytes less") {
  // fidelity-data.md §4.3 (medium): 2 nodes x 8 H20 (H100's NVLink and NICs), NCCL 2.21.5,
  // NVLSTree, 4 B - 512 B: 46-48 us flat. The model's time for 32 KiB, its curves' first
  // point, lands there (tolerance 25 %: another GPU, a guessed inter-node curve); below that
  // it falls towards NCCL's latency priors alone (base 8.4 us + the tree's hops), half the
  // measured floor: the known gap of fidelity-data.md §4.3, kept visible here rather than
  // hidden in a curve (the profile's base_latency is NCCL's prior, not a measured floor).
  const auto hw = shipped("dgx-h100");
  CHECK(all_reduce(hw, 16, Bytes::of(32 << 10)).estimate.total().us() ==
        doctest::Approx(47.0).epsilon(0.25));
  const double tiny = all_reduce(hw, 16, Bytes::of(4)).estimate.total().us();
  CHECK(tiny < 47.0 * 0.6);
  CHECK(tiny > 47.0 * 0.4);
}

TEST_CASE("A100: 2 nodes' tree beats the NICs, many nodes' ring reaches NVIDIA's 192 GB/s") {
  // fidelity-data.md §4.2 (high, NVIDIA): DGX A100 with 8 x HDR 200 Gb/s, large all-reduce,
  // 192 GB/s busbw, the figure the inter-node curve's top (0.96) comes from: the ring at
  // 16 nodes lands within 3 % of it (what is left is its 2(n-1)/n and the hops). On 2 nodes
  // the tree's NVLink chains, at the node's own all-reduce ceiling, are the bound: busbw
  // above the NICs' 200 GB/s (fidelity-data.md §4.1), about the 8-GPU figure.
  const auto hw = shipped("selene-a100-80gb");
  const Sweep many = all_reduce(hw, 128, k16GiB);
  CHECK(many.estimate.algorithm == CollectiveAlgorithm::ring);
  CHECK(many.busbw_gb_s == doctest::Approx(192.0).epsilon(0.03));
  const Sweep two = all_reduce(hw, 16, k16GiB);
  CHECK(two.estimate.algorithm == CollectiveAlgorithm::tree);
  CHECK(two.busbw_gb_s > 200.0);
  CHECK(two.busbw_gb_s == doctest::Approx(all_reduce(hw, 8, k16GiB).busbw_gb_s).epsilon(0.10));
}
