#include "cli/report_sources.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "cli/critical_batch_command.hpp"
#include "cli/goodput_command.hpp"
#include "cli/isoefficiency_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/training_time_command.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/reproduction.hpp"
#include "reproductions/reproduction_content.hpp"

namespace trainsim::cli {
namespace {

const reproductions::Reproduction& reproduction(const std::string& name) {
  for (const reproductions::Reproduction& r : reproductions::reproductions()) {
    if (r.name == name) return r;
  }
  throw std::logic_error(fmt::format("no reproduction named '{}'", name));
}

// A report of one or more reproductions (run with their sweeps): the first's blocks keep their
// names, each further one's get its prefix.
struct Part {
  std::string reproduction;
  std::string prefix;
};

ReportSource reproduction_report(const std::string& name, std::vector<Part> parts) {
  return {name, std::filesystem::path("reproductions") / name,
          reproduction(parts.front().reproduction).title,
          [parts](const std::filesystem::path& root) {
            documents::ReportContent content;
            std::vector<reproductions::ReproductionRun> runs;
            for (const Part& part : parts) {
              const reproductions::Reproduction& r = reproduction(part.reproduction);
              runs.push_back({r.name, r.run(root, {true})});
              reproductions::add_reproduction(content, r.name, runs.back().report, part.prefix);
            }
            // The sets over all parts, so a set that spans them (Table 5's times) is whole.
            reproductions::add_set_summary(content, reproductions::evaluate_sets(runs));
            return content;
          }};
}

std::filesystem::path analysis_directory(const std::string& name) {
  return std::filesystem::path("reports") / "analyses" / name;
}

std::vector<ReportSource> all_sources() {
  std::vector<ReportSource> out;
  for (const reproductions::Reproduction& r : reproductions::reproductions()) {
    // Table 5's pipelined rows are told in korthikanti2022's README.
    if (r.name == "korthikanti2022-pipelines") continue;
    if (r.name == "korthikanti2022") {
      out.push_back(
          reproduction_report(r.name, {{r.name, ""}, {"korthikanti2022-pipelines", "pipelines-"}}));
    } else {
      out.push_back(reproduction_report(r.name, {{r.name, ""}}));
    }
  }
  // The analyses: one entry each, the arguments as typed after `trainsim COMMAND`.
  out.push_back({"isoefficiency", analysis_directory("isoefficiency"),
                 "isoefficiency of Korthikanti et al.'s 22B GPT per tensor scheme (selene A100)",
                 [](const std::filesystem::path& root) {
                   return isoefficiency_report(
                       root, {"scenarios/korthikanti2022/gpt-22b.yaml", "--max-gpus", "64"});
                 }});
  out.push_back(
      {"goodput", analysis_directory("goodput"),
       "goodput of Llama 3 405B on 16 384 H100 for 15.6T tokens (dgx-h100's reliability)",
       [](const std::filesystem::path& root) {
         return goodput_report(root, {"scenarios/llama3/llama3-405b.yaml", "--tokens", "15.6T"});
       }});
  out.push_back({"critical-batch", analysis_directory("critical-batch"),
                 "Kaplan's critical batch for lamy-poirier2021's 1T GPT",
                 [](const std::filesystem::path& root) {
                   return critical_batch_report(
                       root, {"--scenario", "scenarios/lamy-poirier2021/gpt-1t-1f1b.yaml"});
                 }});
  out.push_back({"plan", analysis_directory("plan"),
                 "the best layouts of Megatron's 1T GPT on 3072 A100s against the published one",
                 [](const std::filesystem::path& root) {
                   return plan_report(root, {"scenarios/megatron2021/gpt-1008b.yaml"});
                 }});
  out.push_back({"training-time", analysis_directory("training-time"),
                 "shortest time to train Korthikanti et al.'s 22B GPT to a loss of 2.2 nats on "
                 "up to 1024 A100s",
                 [](const std::filesystem::path& root) {
                   return training_time_report(
                       root, {"scenarios/korthikanti2022/gpt-22b.yaml", "--target-loss", "2.2",
                              "--max-gpus", "1024", "--min-gpus", "128", "--batch-span", "2",
                              "--no-grids"});
                 }});
  return out;
}

}  // namespace

const std::vector<ReportSource>& report_sources() {
  static const std::vector<ReportSource> sources = all_sources();
  return sources;
}

}  // namespace trainsim::cli
