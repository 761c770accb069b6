#pragma once
// A floor on a layout's iteration from the bytes its busiest link must carry: the reduced
// layout's communication (layout_estimate: one stage, l layers, m micro batches, l, m in
// {1, 2}) tallied link by link (sim/link_traffic), each link's seconds (bytes / capacity)
// fitted bilinearly in (l, m) like the estimate's time and taken at the stage's L/p layers and
// the layout's m micro batches; the floor is the largest over the links. No replay moves a
// link's bytes faster than its capacity, whatever overlaps, so where communication dominates
// (ZeRO-3 gathering every layer over thousands of GPUs, tensor groups across nodes) this floor
// is far above the tensor block's compute floor, and `plan` bounds such layouts out without
// replaying them (layout_search.hpp). The tally costs a few Program builds, not a replay.
// `plan` also tallies a layout's compute_layout (its tensor block alone, d = 1): the block's
// own traffic, part of every layout's on it, so a floor for them all.
//
// Extrapolated like the estimate, the floor shares its approximation at pipeline size p > 1:
// the one stage carries the embedding's and the head's traffic, which p stages split; ZeRO 2
// and 3 pipelines are taken at their runs' count of micro batches (data_parallel_rounds), as
// they gather and reduce once per run where the reduced run does it every micro batch.

#include <cstdint>
#include <vector>

#include "models/byte_codec.hpp"
#include "models/model_spec.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/analysis/program_shelf.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

class TrafficFloor {
 public:
  /// Tallies `reduced` (a reduced_layout) at l, m in {1, 2}. Throws Infeasible when the
  /// executor rejects a reduced Program.
  /// `shelf`: where its Programs are left for the layout's ReducedFit, or null.
  TrafficFloor(const ModelSpec& model, const Layout& reduced, const hw::HardwareProfile& hardware,
               ProgramShelf* shelf = nullptr);

  /// The busiest link's seconds for `layout` (whose reduced_layout was tallied) at
  /// `global_batch`.
  Time floor(const ModelSpec& model, const Layout& layout, std::int64_t global_batch) const;

  /// Links whose fits are kept: the distinct ones no other exceeds in every coefficient.
  std::size_t links() const { return links_.size(); }

  void encode(ByteWriter& out) const { out.put_vector(links_); }
  static TrafficFloor decode(ByteReader& in);

 private:
  TrafficFloor() = default;
  std::vector<Bilinear> links_;  ///< seconds at (l, m)
};

}  // namespace trainsim::sim
