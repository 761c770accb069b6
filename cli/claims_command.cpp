#include "cli/claims_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"
#include "reproductions/claims/claim_map_report.hpp"
#include "reproductions/claims/paper_maps.hpp"

namespace trainsim::cli {
namespace {

struct ClaimsOptions {
  std::vector<std::string> names;  ///< map ids or paper names; empty: every map
  bool list = false;
  std::string json;
  std::string plots;
  unsigned threads = 0;
};

// A map to run, with the number of its setups evaluated at once.
struct Selected {
  reproductions::claim_maps::ClaimMapSpec spec;
  unsigned threads = 0;
};

// The maps `names` selects (a map id, or a paper for all of its maps), in registry order.
std::vector<Selected> selected(const std::filesystem::path& root, const ClaimsOptions& o) {
  std::vector<Selected> out;
  std::vector<std::string> unmatched = o.names;
  std::string known;
  for (const reproductions::claim_maps::PaperMaps& paper :
       reproductions::claim_maps::paper_maps()) {
    const auto named = [&](const std::string& n) {
      return std::find(o.names.begin(), o.names.end(), n) != o.names.end();
    };
    const bool whole = o.names.empty() || named(paper.paper);
    std::erase(unmatched, paper.paper);
    for (reproductions::claim_maps::ClaimMapSpec& spec : paper.build(root)) {
      known += fmt::format("{}{} ({})", known.empty() ? "" : ", ", spec.id, paper.paper);
      std::erase(unmatched, spec.id);
      if (whole || named(spec.id)) {
        out.push_back({std::move(spec), o.threads != 0 ? o.threads : paper.threads});
      }
    }
  }
  if (!unmatched.empty()) {
    throw Infeasible(fmt::format("no claim map or paper named '{}'; known: {}", unmatched.front(),
                                 known));
  }
  return out;
}

void run_claims(const ClaimsOptions& o) {
  if (!o.json.empty()) documents::check_destination(o.json);
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  std::vector<Selected> specs = selected(root, o);
  if (o.list) {
    for (const Selected& one : specs) {
      const reproductions::claim_maps::ClaimMapSpec& s = one.spec;
      fmt::print("{}  {} ({}): published {:g}{}\n", s.id, s.claim, s.paper, s.published, s.unit);
    }
    return;
  }
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  std::vector<reproductions::claim_maps::ClaimMap> done;
  ProgressBar bar;
  for (Selected& one : specs) {
    bar.update("claims", done.size(), specs.size());
    const reproductions::claim_maps::ClaimMap map =
        reproductions::claim_maps::run_claim_map(std::move(one.spec), one.threads);
    bar.clear();
    fmt::print("{}\n", reproductions::claim_maps::format_claim_map(map));
    if (!o.json.empty()) json.push_back(reproductions::claim_maps::claim_map_json(map));
    if (!o.plots.empty()) {
      std::filesystem::create_directories(o.plots);
      const std::filesystem::path file =
          std::filesystem::path(o.plots) / ("map-" + map.spec.id + ".svg");
      documents::write_atomically(file,
                                  documents::render_svg(reproductions::claim_maps::heatmap(map)));
      fmt::print("wrote {}\n\n", file.string());
    }
    done.push_back(map);
  }
  fmt::print("Summary:\n{}", reproductions::claim_maps::format_claim_summary(done));
  if (!o.json.empty()) documents::write_atomically(o.json, json.dump(2) + "\n");
}

}  // namespace

void add_claims_command(CLI::App& app) {
  auto o = std::make_shared<ClaimsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "claims",
      "Map where each seed paper's published ratio arises among the setups the paper leaves "
      "unknown: our ratio along each unknown through the paper's machine, a grid of two, and "
      "the closest plausible setup (reproductions/claims/README.md)");
  cmd->add_option("names", o->names,
                  "Map ids or paper names (default: every map; --list shows them)");
  cmd->add_flag("--list", o->list, "List the maps and their published figures, run nothing");
  cmd->add_option("--json", o->json, "Write every map (lines, grid, search) as JSON to FILE");
  cmd->add_option("--plots", o->plots, "Write each map's heat map as DIR/map-<id>.svg");
  cmd->add_option("--threads", o->threads,
                  "Setups of a map evaluated at once (0: the map's own, one per core except "
                  "where each setup already uses every core)");
  cmd->callback([o] { run_claims(*o); });
}

}  // namespace trainsim::cli
