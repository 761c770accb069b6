#include "reproductions/claims/paper_maps.hpp"

namespace trainsim::reproductions::claim_maps {

const std::vector<PaperMaps>& paper_maps() {
  static const std::vector<PaperMaps> all{
      {"optimus2021", optimus2021_maps},
      {"tesseract2022", tesseract2022_maps},
      {"bian2021-3d", bian2021_3d_maps},
      {"lamy-poirier2021", lamy_poirier2021_maps, 1},
  };
  return all;
}

}  // namespace trainsim::reproductions::claim_maps
