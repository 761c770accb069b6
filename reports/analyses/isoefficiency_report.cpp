#include "reports/analyses/isoefficiency_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "documents/gnuplot_plot.hpp"

namespace trainsim::reports {
namespace {

std::string fit_text(const sim::SchemeIsoefficiency& s) {
  std::string ps;
  for (const sim::IsoPoint& p : s.points) {
    if (!p.at_floor()) ps += fmt::format("{}{}", ps.empty() ? "" : ",", p.gpus);
  }
  if (!s.fit) return fmt::format("- (p = {})", ps.empty() ? "none" : ps);
  return fmt::format("{:.2f} (p = {})", s.fit->exponent, ps);
}

nlohmann::ordered_json point_json(const sim::IsoPoint& p) {
  nlohmann::ordered_json j;
  j["gpus"] = p.gpus;
  j["size"] = p.size;
  j["step"] = p.step;
  j["work_flop"] = p.work.count();
  j["efficiency"] = p.efficiency;
  j["t1_s"] = p.single_gpu_time.seconds();
  j["tp_s"] = p.parallel_time.seconds();
  j["probes"] = p.probes.size();
  j["at_floor"] = p.at_floor();
  return j;
}

}  // namespace

// Derivation (sim/analysis/README.md): per layer W ∝ T·h² (T = batch·seq tokens); every
// scheme divides it by p, so E stays fixed when the total communication volume p·V (§6.2)
// grows like W. 1D: p·T·h; 2D: √p·(T·h + h²); 2.5D (d fixed, q = √(p/d)): q·T·h + d·q·h²;
// 3D: p^(1/3)·(T·h + h²). Bandwidth terms only; latency (O(q) collectives) is left out.
IsoClosedForm iso_closed_form(TensorKind kind, sim::IsoAxis axis) {
  const bool hidden = axis == sim::IsoAxis::hidden;
  IsoClosedForm f;
  if (kind == TensorKind::one_d) {
    f.published = "W ~ p^3 (Megatron; closed form (unverified, §3.6))";
    if (hidden) {
      f.derived = "h ~ p, W ~ p^2 (ours)";
      f.derived_exponent = 2.0;
    } else {
      f.derived = "none: E does not grow with the batch (ours)";
    }
  } else if (kind == TensorKind::two_d) {
    f.published = "W ~ (sqrt(p) log p)^3 (Optimus; closed form (unverified, §3.6))";
    f.derived = hidden ? "h ~ sqrt(p), W ~ p while T >> sqrt(p) (ours)"
                       : "T ~ sqrt(p), W ~ p^0.5 while h >> sqrt(p) (ours)";
    f.derived_exponent = hidden ? 1.0 : 0.5;
  } else if (kind == TensorKind::two_and_half_d) {
    f.derived = hidden ? "h ~ sqrt(p/d), W ~ p at fixed d (ours)"
                       : "T ~ sqrt(p·d), W ~ p^0.5 at fixed d (ours)";
    f.derived_exponent = hidden ? 1.0 : 0.5;
  } else {
    f.derived = hidden ? "h ~ p^(1/3), W ~ p^(2/3) (ours)" : "T ~ p^(1/3), W ~ p^(1/3) (ours)";
    f.derived_exponent = hidden ? 2.0 / 3.0 : 1.0 / 3.0;
  }
  return f;
}

std::string isoefficiency_text(const IsoRequest& request,
                               std::span<const sim::SchemeIsoefficiency> schemes) {
  const Scenario& sc = *request.scenario;
  const sim::IsoSearch& search = request.options.search;
  const bool hidden = search.axis == sim::IsoAxis::hidden;
  std::string out = fmt::format(
      "isoefficiency of {} on {}: E = T1/(p·Tp) = {}, growing the {} ({} fixed at {}), up to {} "
      "GPUs and {} {}; 2.5d depth {}; W = model FLOPs of one iteration\n\n",
      sc.name, request.hardware, search.target, to_string(search.axis),
      hidden ? "batch" : "hidden size", hidden ? sc.training.micro_batch : sc.model.hidden,
      request.options.max_gpus, to_string(search.axis), search.max_size, request.options.depth);
  out += fmt::format("{:<6} {:>5} {:>8} {:>6} {:>10} {:>7} {:>7}\n", "scheme", "p",
                     to_string(search.axis), "step", "W (FLOP)", "E", "probes");
  for (const sim::SchemeIsoefficiency& s : schemes) {
    for (const sim::IsoPoint& p : s.points) {
      out += fmt::format("{:<6} {:>5} {:>8} {:>6} {:>10.3e} {:>7.3f} {:>7}{}\n", to_string(s.kind),
                         p.gpus, p.size, p.step, p.work.count(), p.efficiency, p.probes.size(),
                         p.at_floor() ? "  at the smallest size: not fitted" : "");
    }
    // Counts the target was not reached at get a line each; counts whose plan the executor
    // rejects at every size (heads or batch not divisible) one line together, with the field.
    std::string rejected;
    for (const sim::SkippedCount& k : s.skipped) {
      if (k.best_efficiency) {
        out += fmt::format("{:<6} {:>5}  not reached: {}\n", to_string(s.kind), k.gpus, k.reason);
      } else {
        rejected += fmt::format("{}{} ({})", rejected.empty() ? "" : ", ", k.gpus,
                                k.reason.substr(0, k.reason.find(':')));
      }
    }
    if (!rejected.empty()) {
      out += fmt::format("{:<6} plan rejected at p = {} (reasons in the JSON)\n", to_string(s.kind),
                         rejected);
    }
  }
  out +=
      "\ngrowth exponent k of W ~ p^k (least squares on log W, log p; points at the smallest "
      "size left out)\n";
  out += fmt::format("{:<6} {:<28} {:<48} {}\n", "scheme", "fitted k (points)", "derived",
                     "published");
  for (const sim::SchemeIsoefficiency& s : schemes) {
    const IsoClosedForm f = iso_closed_form(s.kind, search.axis);
    out += fmt::format("{:<6} {:<28} {:<48} {}\n", to_string(s.kind), fit_text(s), f.derived,
                       f.published.empty() ? "-" : f.published);
  }
  return out;
}

nlohmann::ordered_json isoefficiency_json(const IsoRequest& request,
                                          std::span<const sim::SchemeIsoefficiency> schemes) {
  const sim::IsoSearch& search = request.options.search;
  nlohmann::ordered_json j;
  j["scenario"] = request.scenario->name;
  j["hardware"] = request.hardware;
  j["target"] = search.target;
  j["axis"] = std::string(to_string(search.axis));
  j["max_size"] = search.max_size;
  j["max_gpus"] = request.options.max_gpus;
  j["depth_2p5d"] = request.options.depth;
  j["work"] = "model FLOPs of one iteration";
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const sim::SchemeIsoefficiency& s : schemes) {
    nlohmann::ordered_json js;
    js["scheme"] = std::string(to_string(s.kind));
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const sim::IsoPoint& p : s.points)
      points.push_back(point_json(p));
    js["points"] = points;
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const sim::SkippedCount& k : s.skipped) {
      nlohmann::ordered_json jk;
      jk["gpus"] = k.gpus;
      jk["reason"] = k.reason;
      if (k.best_efficiency) jk["best_efficiency"] = *k.best_efficiency;
      skipped.push_back(jk);
    }
    js["skipped"] = skipped;
    if (s.fit) {
      js["fit"] = {{"exponent", s.fit->exponent},
                   {"coefficient", s.fit->coefficient},
                   {"points", s.fit->points}};
    }
    const IsoClosedForm f = iso_closed_form(s.kind, search.axis);
    js["closed_form_derived"] = f.derived;
    if (f.derived_exponent) js["closed_form_derived_exponent"] = *f.derived_exponent;
    if (!f.published.empty()) js["closed_form_published"] = f.published;
    list.push_back(js);
  }
  j["schemes"] = list;
  return j;
}

documents::PlotSpec isoefficiency_plot(const IsoRequest& request,
                                       std::span<const sim::SchemeIsoefficiency> schemes) {
  documents::PlotSpec plot;
  plot.title = fmt::format("isoefficiency of {} (E = {}, {} axis)", request.scenario->name,
                           request.options.search.target, to_string(request.options.search.axis));
  plot.x_label = "GPUs p";
  plot.y_label = "W (model FLOPs per iteration)";
  plot.log_x = true;
  plot.log_y = true;
  for (const sim::SchemeIsoefficiency& s : schemes) {
    documents::PlotSeries series;
    series.name = std::string(to_string(s.kind));
    for (const sim::IsoPoint& p : s.points)
      series.points.push_back({static_cast<double>(p.gpus), p.work.count()});
    plot.series.push_back(series);
  }
  return plot;
}

void write_isoefficiency_plot(const std::filesystem::path& path, const IsoRequest& request,
                              std::span<const sim::SchemeIsoefficiency> schemes) {
  documents::write_svg(path, isoefficiency_plot(request, schemes));
}

documents::ReportContent isoefficiency_content(const IsoRequest& request,
                                               std::span<const sim::SchemeIsoefficiency> schemes) {
  const Scenario& sc = *request.scenario;
  const sim::IsoSearch& search = request.options.search;
  const bool hidden = search.axis == sim::IsoAxis::hidden;
  documents::ReportContent content;
  content.add_block(
      "setup",
      fmt::format("Scenario `{}` on `{}`: E = T1/(p·Tp) = {}, growing the {} ({} fixed at {}), up "
                  "to {} GPUs and {} {}; 2.5d depth {}; W = model FLOPs of one iteration.\n",
                  sc.name, request.hardware, search.target, to_string(search.axis),
                  hidden ? "batch" : "hidden size",
                  hidden ? sc.training.micro_batch : sc.model.hidden, request.options.max_gpus,
                  to_string(search.axis), search.max_size, request.options.depth));
  const std::string axis(to_string(search.axis));
  documents::ReportTable points{
      "points",
      {"scheme", "p", axis, "step", "W (FLOP)", "E", "T1 (s)", "Tp (s)", "probes", "note"},
      {}};
  documents::ReportTable skipped{"skipped", {"scheme", "p", "reason"}, {}};
  documents::ReportTable fit{"fit", {"scheme", "fitted k (points)", "derived", "published"}, {}};
  for (const sim::SchemeIsoefficiency& s : schemes) {
    const std::string kind(to_string(s.kind));
    for (const sim::IsoPoint& p : s.points) {
      points.add_row(
          {kind, fmt::format("{}", p.gpus), fmt::format("{}", p.size), fmt::format("{}", p.step),
           fmt::format("{:.4g}", p.work.count()), fmt::format("{:.3f}", p.efficiency),
           fmt::format("{:.4g}", p.single_gpu_time.seconds()),
           fmt::format("{:.4g}", p.parallel_time.seconds()), fmt::format("{}", p.probes.size()),
           p.at_floor() ? "at the smallest size: not fitted" : ""});
    }
    for (const sim::SkippedCount& k : s.skipped)
      skipped.add_row({kind, fmt::format("{}", k.gpus), k.reason});
    const IsoClosedForm f = iso_closed_form(s.kind, search.axis);
    fit.add_row({kind, fit_text(s), f.derived, f.published.empty() ? "-" : f.published});
  }
  content.add_table(std::move(points));
  content.add_table(std::move(skipped));
  content.add_table(std::move(fit),
                    "Growth exponent k of W ~ p^k: least squares on log W, log p; points at the "
                    "smallest size left out.\n");
  content.add_plot("isoefficiency", isoefficiency_plot(request, schemes));
  return content;
}

}  // namespace trainsim::reports
