#pragma once
// The claim maps of the seed papers, one function per reproduction: the published ratios, the
// unknowns of each paper's setup as axes (which values are plausible for the paper's machine,
// and the source that says so), and the stated setup of the reproduction as the paper's
// machine. The maps of one paper share one run cache.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "reproductions/claims/claim_map.hpp"

namespace trainsim::reproductions::claim_maps {

/// Optimus (Xu et al. 2021): 2D over 1D training and inference speedups and the largest
/// batch, on 64 GPUs of Frontera (scenarios/optimus2021/).
std::vector<ClaimMapSpec> optimus2021_maps(const std::filesystem::path& root);

/// The 3D paper (Bian et al. 2021): 3D over 1D and over 2D, (forward + backward) / batch, on
/// 64 V100 of Longhorn (scenarios/bian2021-3d/).
std::vector<ClaimMapSpec> bian2021_3d_maps(const std::filesystem::path& root);

/// Tesseract (Wang et al. 2022): 2.5D over 1D and over 2D, strong scaling on 64 A100 in nodes
/// of 4 (scenarios/tesseract2022/).
std::vector<ClaimMapSpec> tesseract2022_maps(const std::filesystem::path& root);

/// Lamy-Poirier 2021: the shortest time to train a 1T GPT, Megatron-LM over layered + modular
/// (the abstract's "by half"), over the Megatron baseline and the NIC bandwidth
/// (scenarios/lamy-poirier2021/). Its setups run one at a time (each search uses every core).
std::vector<ClaimMapSpec> lamy_poirier2021_maps(const std::filesystem::path& root);

/// A paper's maps in the registry: how to build them, and how many setups to run at once.
struct PaperMaps {
  std::string paper;  ///< the reproduction's name ("optimus2021")
  std::function<std::vector<ClaimMapSpec>(const std::filesystem::path& root)> build;
  unsigned threads = 0;  ///< setups of a map evaluated at once (0: one per core)
};

/// Every paper with claim maps, in the order `trainsim claims` runs them.
const std::vector<PaperMaps>& paper_maps();

}  // namespace trainsim::reproductions::claim_maps
