#include "reports/reproductions/reproduction.hpp"

#include "reports/reproductions/korthikanti2022.hpp"

namespace trainsim::reports {

const std::vector<Reproduction>& reproductions() {
  static const std::vector<Reproduction> all{
      {"korthikanti2022",
       "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models "
       "(arXiv 2205.05198)",
       run_korthikanti2022},
  };
  return all;
}

}  // namespace trainsim::reports
