#include "calibrate/profile_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

std::string fraction(double v) {
  return fmt::format("{:.6g}", v);
}

std::string microseconds(Time t) {
  return fmt::format("{:.6g} us", t.us());
}

YAML::Node curve_node(const hw::EfficiencyCurve& curve) {
  YAML::Node node(YAML::NodeType::Map);
  for (const hw::EfficiencyCurve::Point& p : curve.points())
    node[fmt::format("{} B", static_cast<std::int64_t>(std::llround(p.size)))] =
        fraction(p.efficiency);
  return node;
}

YAML::Node curves_node(const std::map<std::int64_t, hw::EfficiencyCurve>& by_group_size) {
  YAML::Node node(YAML::NodeType::Map);
  for (const auto& [group_size, curve] : by_group_size)
    node[std::to_string(group_size)] = curve_node(curve);
  return node;
}

/// Writes field `path` of `p` into `root`; false when the fitted profile has no such field
/// (an emptied map), which the caller removes.
bool set_field(YAML::Node root, const std::string& path, const hw::HardwareProfile& p) {
  const auto& c = p.collectives;
  if (path == "gpu.gemm.max_efficiency_by_dtype" && p.gpu.gemm.max_efficiency_by_dtype.empty())
    return false;
  if (path == "collectives.intra_node_efficiency_by_group_size" &&
      c.intra_node_efficiency_by_group_size.empty())
    return false;
  if (path == "collectives.inter_node_efficiency_by_group_size" &&
      c.inter_node_efficiency_by_group_size.empty())
    return false;
  if (path == "gpu.kernels.elementwise") {
    const auto it = p.gpu.kernel_efficiency.find(program::KernelClass::elementwise);
    if (it == p.gpu.kernel_efficiency.end()) return false;
    root["gpu"]["kernels"]["elementwise"] = fraction(it->second);
    return true;
  }
  if (path == "gpu.memory_efficiency") {
    root["gpu"]["memory_efficiency"] = fraction(p.gpu.memory_efficiency);
  } else if (path == "gpu.kernel_launch") {
    root["gpu"]["kernel_launch"] = microseconds(p.gpu.kernel_launch);
  } else if (path.starts_with("gpu.attention.") && p.gpu.attention) {
    const hw::AttentionSpec& a = *p.gpu.attention;
    const std::string key = path.substr(std::string("gpu.attention.").size());
    YAML::Node node = root["gpu"]["attention"];
    if (key == "efficiency") {
      node["efficiency"] = fraction(a.efficiency);
    } else if (key == "backward_efficiency") {
      node["backward_efficiency"] = fraction(a.backward_efficiency);
    } else if (key == "fixed_time") {
      node["fixed_time"] = microseconds(a.fixed_time);
    } else if (key == "backward_fixed_time") {
      node["backward_fixed_time"] = microseconds(a.backward_fixed_time);
    } else {
      throw std::logic_error("no attention field " + key);
    }
  } else if (path == "gpu.gemm.max_efficiency") {
    root["gpu"]["gemm"]["max_efficiency"] = fraction(p.gpu.gemm.max_efficiency);
  } else if (path == "gpu.gemm.max_efficiency_by_dtype") {
    YAML::Node by_dtype(YAML::NodeType::Map);
    for (const auto& [dtype, efficiency] : p.gpu.gemm.max_efficiency_by_dtype)
      by_dtype[std::string(to_string(dtype))] = fraction(efficiency);
    root["gpu"]["gemm"]["max_efficiency_by_dtype"] = by_dtype;
  } else if (path == "gpu.gemm.operand_bandwidth") {
    root["gpu"]["gemm"]["operand_bandwidth"] =
        fmt::format("{:.6g} GB/s", p.gpu.gemm.operand_bandwidth.gb_per_s());
  } else if (path == "gpu.gemm.cta_overhead_k") {
    root["gpu"]["gemm"]["cta_overhead_k"] = fmt::format("{:.6g}", p.gpu.gemm.cta_overhead_k);
  } else if (path == "gpu.gemm.tile") {
    YAML::Node tile(YAML::NodeType::Sequence);
    tile.push_back(p.gpu.gemm.tile_m);
    tile.push_back(p.gpu.gemm.tile_n);
    tile.SetStyle(YAML::EmitterStyle::Flow);
    root["gpu"]["gemm"]["tile"] = tile;
  } else if (path == "collectives.base_latency") {
    root["collectives"]["base_latency"] = microseconds(p.collectives.base_latency);
  } else if (path == "collectives.intra_node_efficiency") {
    root["collectives"]["intra_node_efficiency"] = curve_node(p.collectives.intra_node_efficiency);
  } else if (path == "collectives.inter_node_efficiency") {
    root["collectives"]["inter_node_efficiency"] = curve_node(p.collectives.inter_node_efficiency);
  } else if (path == "collectives.intra_node_efficiency_by_group_size") {
    root["collectives"]["intra_node_efficiency_by_group_size"] =
        curves_node(p.collectives.intra_node_efficiency_by_group_size);
  } else if (path == "collectives.inter_node_efficiency_by_group_size") {
    root["collectives"]["inter_node_efficiency_by_group_size"] =
        curves_node(p.collectives.inter_node_efficiency_by_group_size);
  } else if (path == "collectives.p2p.base_latency" && c.p2p.base_latency) {
    root["collectives"]["p2p"]["base_latency"] = microseconds(*p.collectives.p2p.base_latency);
  } else if (path == "collectives.p2p.intra_node_efficiency") {
    root["collectives"]["p2p"]["intra_node_efficiency"] =
        curve_node(p.collectives.p2p.intra_node_efficiency);
  } else if (path == "collectives.p2p.inter_node_efficiency") {
    root["collectives"]["p2p"]["inter_node_efficiency"] =
        curve_node(p.collectives.p2p.inter_node_efficiency);
  } else if (path.starts_with("host.dispatch.") && p.host) {
    const std::string kind = path.substr(std::string("host.dispatch.").size());
    const Time t = kind == "gemm"         ? p.host->gemm
                   : kind == "kernel"     ? p.host->kernel
                   : kind == "collective" ? p.host->collective
                   : kind == "p2p"        ? p.host->p2p
                                          : throw std::logic_error("no host dispatch " + kind);
    root["host"]["dispatch"][kind] = microseconds(t);
  } else if (path == "host.sync_latency" && p.host) {
    root["host"]["sync_latency"] = microseconds(p.host->sync_latency);
  } else if (path == "interference.compute_slowdown_during_comm") {
    root["interference"]["compute_slowdown_during_comm"] = fraction(p.compute_slowdown_during_comm);
  } else {
    throw std::logic_error("fitted_profile_yaml: no writer for field " + path);
  }
  return true;
}

std::string environment_text(const MeasurementSource& source) {
  std::string out;
  for (const auto& [key, value] : source.environment)
    out += fmt::format(", {} {}", key, value);
  return out;
}

}  // namespace

std::string fitted_profile_yaml(const std::filesystem::path& base_file, const ProfileFit& fit,
                                const MeasurementSource& measurements, std::string_view name) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(base_file.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError({base_file, 0, 0}, fmt::format("cannot read the base profile: {}", e.what()));
  }
  const std::string source = measurements.file.filename().string();
  root["name"] = std::string(name);
  root["description"] =
      fmt::format("{} (calibrated: fitted from {})", root["description"].as<std::string>(), source);
  for (const FitSummary& s : fit.fits) {
    const std::string provenance = fmt::format(
        "fitted from {} ({} {} rows{}; {}; {}), held-out median {:.2f} %, p90 {:.2f} % ({} rows, "
        "{})",
        source, s.fitted_rows + s.held_out.rows, s.what, environment_text(measurements), s.ranges,
        s.values, s.held_out.median * 100.0, s.held_out.p90 * 100.0, s.held_out.rows,
        s.holdout_rule);
    std::string parts;
    for (const FitSummary& part : s.parts) {
      parts += fmt::format("; {}: {}, held-out median {:.2f} %, p90 {:.2f} % ({} rows)", part.what,
                           part.values, part.held_out.median * 100.0, part.held_out.p90 * 100.0,
                           part.held_out.rows);
    }
    for (const std::string& field : s.fields) {
      if (set_field(root, field, fit.profile)) {
        root["provenance"][field] = provenance + parts;
      } else {
        const auto dot = field.rfind('.');
        YAML::Node grandparent = root;
        YAML::Node parent = root;
        std::string parent_key;
        for (std::size_t begin = 0, end = 0; begin < dot; begin = end + 1) {
          end = field.find('.', begin);
          grandparent.reset(parent);
          parent_key = field.substr(begin, end - begin);
          parent.reset(parent[parent_key]);
        }
        parent.remove(field.substr(dot + 1));
        // A map left empty (gpu.kernels without its one class) goes too: the loader wants
        // at least one entry in a map it is given.
        if (parent.IsMap() && parent.size() == 0 && !parent_key.empty())
          grandparent.remove(parent_key);
        root["provenance"].remove(field);
      }
    }
  }
  YAML::Emitter out;
  out << root;
  return fmt::format(
      "# Calibrated profile written by `trainsim fit {}`\n"
      "# from the base profile {}: the fitted fields say so under provenance:,\n"
      "# the others are the base profile's.\n{}\n",
      source, base_file.filename().string(), out.c_str());
}

hw::HardwareProfile write_fitted_profile(const std::filesystem::path& out,
                                         const std::filesystem::path& base_file,
                                         const ProfileFit& fit, const MeasurementSource& source) {
  documents::write_atomically(out,
                              fitted_profile_yaml(base_file, fit, source, out.stem().string()));
  return inputs::load_hardware_profile(out);
}

}  // namespace trainsim::calibrate
