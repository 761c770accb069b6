#include "reproductions/reproduction.hpp"

#include "reproductions/bian2021_3d.hpp"
#include "reproductions/h100_published.hpp"
#include "reproductions/korthikanti2022.hpp"
#include "reproductions/lamy_poirier2021.hpp"
#include "reproductions/llama3_goodput.hpp"
#include "reproductions/megatron2021.hpp"
#include "reproductions/optimus2021.hpp"
#include "reproductions/stragglers2025.hpp"
#include "reproductions/tesseract2022.hpp"
#include "reproductions/vtrain2024.hpp"

namespace trainsim::reproductions {

const std::vector<Reproduction>& reproductions() {
  static const std::vector<Reproduction> all{
      {"korthikanti2022",
       "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models "
       "(arXiv 2205.05198)",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_korthikanti2022(root);
       }},
      {"korthikanti2022-pipelines",
       "Korthikanti et al. 2022, Table 5's pipelined rows: 175B and 530B (interleaved), 1T "
       "(1F1B), 530B with 8-way data parallelism (arXiv 2205.05198)",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_korthikanti2022_pipelines(root);
       }},
      {"megatron2021",
       "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
       "Using Megatron-LM (arXiv 2104.04473): predictions for the setups of published-results.md "
       "§2",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_megatron2021(root);
       }},
      {"lamy-poirier2021",
       "Lamy-Poirier 2021, Layered gradient accumulation and modular pipeline parallelism "
       "(arXiv 2106.02679): the abstract's claims for a 1T GPT at the critical batch",
       run_lamy_poirier2021},
      {"optimus2021",
       "Xu et al. 2021, Optimus: An Efficient 2D Method for Training Super-Large Deep Learning "
       "Models (arXiv 2104.05343)",
       run_optimus2021},
      {"tesseract2022",
       "Wang et al. 2022, Tesseract: Parallelize the Tensor Parallelism Efficiently "
       "(arXiv 2105.14500)",
       run_tesseract2022},
      {"bian2021-3d",
       "Bian et al. 2021, Maximizing Parallelism in Distributed Training for Huge Neural "
       "Networks (arXiv 2105.14450)",
       run_bian2021_3d},
      {"h100-published",
       "NVIDIA's published H100 throughput: Megatron-Core r0.8.0 GPT weak scaling (BF16) and "
       "Megatron-Bridge 25.11 Llama 3 (FP8), predicted on dgx-h100",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_h100_published(root);
       }},
      {"vtrain2024",
       "Bang et al. 2024, vTrain (MICRO 2024, arXiv 2312.12391): 1440 measured single-node A100 "
       "iteration times, fitting and held-out rows",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_vtrain2024(root);
       }},
      {"llama3-goodput",
       "Llama 3 (arXiv 2407.21783) §3.3.4: the 405B run's 54-day window on 16 384 H100, 419 "
       "unexpected interruptions, effective training time higher than 90 %",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_llama3_goodput(root);
       }},
      {"stragglers2025",
       "ByteDance's straggler study (OSDI'25, arXiv 2505.05713), qualitatively: one slow worker "
       "in a data-parallel group, an unbalanced last pipeline stage",
       [](const std::filesystem::path& root, const ReproductionOptions&) {
         return run_stragglers2025(root);
       }},
  };
  return all;
}

}  // namespace trainsim::reproductions
