#include "inputs/hwprofile_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <map>
#include <system_error>

#include "inputs/profile_keys.hpp"
#include "inputs/quantity.hpp"
#include "inputs/yaml_reader.hpp"
#include "units/format.hpp"

namespace trainsim::inputs {
namespace {

constexpr std::array<std::string_view, 6> dtype_names{"fp64", "fp32", "tf32",
                                                      "bf16", "fp16", "fp8"};
constexpr std::array<std::string_view, 2> fabric_names{"nvswitch", "pcie"};

/// Records which fields a profile wrote, so that provenance can be checked against them.
// Physically plausible ranges for any GPU system, wide enough for decades of hardware: a
// value outside is a typo (a missing prefix, "1e-300 GB/s") that would otherwise give a
// wildly wrong prediction without complaint.
template <typename Quantity>
Quantity within(const YamlValue& v, Quantity value, Quantity low, Quantity high) {
  if (value < low || value > high) {
    v.fail(fmt::format("expected a value between {} and {}, got {}", low, high, v.text()));
  }
  return value;
}
const Bandwidth kMinBandwidth = Bandwidth::bytes_per_second(1e6);
const Bandwidth kMaxBandwidth = Bandwidth::bytes_per_second(1e15);
const FlopRate kMinFlopRate = FlopRate::flops_per_second(1e9);
const FlopRate kMaxFlopRate = FlopRate::flops_per_second(1e17);
const Time kMaxLatency = Time::from_seconds(1.0);
constexpr Bytes kMinMemory = Bytes::of(std::int64_t{1} << 20);
constexpr Bytes kMaxMemory = Bytes::of(std::int64_t{1} << 50);

Bandwidth bandwidth_in_range(const YamlValue& v) {
  return within(v, v.as_bandwidth(), kMinBandwidth, kMaxBandwidth);
}
Time latency_in_range(const YamlValue& v) {
  return within(v, v.as_time(), Time::zero(), kMaxLatency);
}

class FieldRecorder {
 public:
  /// A numeric field: it must have a provenance entry.
  const YamlValue& numeric(const YamlValue& v) {
    numeric_.emplace(v.path(), v.location());
    return v;
  }
  /// A descriptive field: provenance is allowed but not required.
  const YamlValue& descriptive(const YamlValue& v) {
    descriptive_.push_back(v.path());
    return v;
  }

  /// Every provenance key names a recorded field; every numeric field has a provenance entry.
  std::map<std::string, std::string> check_provenance(const YamlMap& provenance) const {
    std::vector<std::string> known;
    for (const auto& [path, where] : numeric_)
      known.push_back(path);
    known.insert(known.end(), descriptive_.begin(), descriptive_.end());
    std::sort(known.begin(), known.end());

    std::map<std::string, std::string> out;
    for (const YamlMap::Entry& entry : provenance.entries()) {
      const std::string& field = entry.key.node().Scalar();
      if (!std::binary_search(known.begin(), known.end(), field)) {
        std::string message =
            fmt::format("provenance for \"{}\", which is not a field of this profile", field);
        if (auto best = closest_match(field, known))
          message += fmt::format("; did you mean \"{}\"?", *best);
        message += fmt::format(" fields: {}", join(known));
        throw ConfigError(entry.key.location(), fmt::format("{}: {}", entry.key.path(), message));
      }
      const std::string source = entry.value.as_string();
      out.emplace(field, source);
    }
    for (const auto& [path, where] : numeric_) {
      if (!out.contains(path)) {
        throw ConfigError(where, fmt::format("{}: no provenance entry; add `{}: \"<source>\"` (or "
                                             "\"guess: <why>\") under provenance:",
                                             path, path));
      }
    }
    return out;
  }

 private:
  std::map<std::string, SourceLocation> numeric_;
  std::vector<std::string> descriptive_;
};

/// A curve written as {size: efficiency}; sizes are bytes or FLOPs, sorted on return.
hw::EfficiencyCurve read_curve(const YamlValue& value, Dimension size_dimension) {
  const YamlMap map = value.as_open_map();
  if (map.entries().empty()) value.fail("expected at least one {size: efficiency} point");
  struct Written {
    hw::EfficiencyCurve::Point point;
    const YamlMap::Entry* entry;
  };
  std::vector<Written> points;
  for (const YamlMap::Entry& entry : map.entries()) {
    double size = 0.0;
    if (size_dimension == Dimension::bytes) {
      size = entry.key.as_bytes().as_double();
    } else {
      size = entry.key.as_flops().count();
    }
    if (size <= 0.0)
      entry.key.fail(fmt::format("size must be positive, got \"{}\"", entry.key.text()));
    points.push_back({{size, entry.value.as_fraction()}, &entry});
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const Written& a, const Written& b) { return a.point.size < b.point.size; });
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].point.size == points[i - 1].point.size) {
      const Written& later =
          points[i].entry->key.location().line >= points[i - 1].entry->key.location().line
              ? points[i]
              : points[i - 1];
      const Written& earlier = &later == &points[i] ? points[i - 1] : points[i];
      later.entry->key.fail(fmt::format("duplicate size \"{}\": the same as \"{}\" at line {}",
                                        later.entry->key.text(), earlier.entry->key.text(),
                                        earlier.entry->key.location().line));
    }
  }
  std::vector<hw::EfficiencyCurve::Point> sorted;
  for (const Written& w : points)
    sorted.push_back(w.point);
  return hw::EfficiencyCurve(std::move(sorted));
}

/// gpu.kernels: {kernel class: fraction of HBM peak}, one provenance entry per class.
std::map<program::KernelClass, double> read_kernel_efficiency(const YamlValue& value,
                                                              FieldRecorder& rec) {
  const YamlMap map = value.as_open_map();
  if (map.entries().empty()) {
    value.fail("expected at least one {kernel class: fraction of HBM peak} entry");
  }
  std::vector<std::string_view> names;
  // The compute-bound attention classes have their own section (gpu.attention).
  for (int c = 0; c < program::kMemoryKernelClassCount; ++c)
    names.push_back(program::to_string(static_cast<program::KernelClass>(c)));
  std::map<program::KernelClass, double> out;
  for (const YamlMap::Entry& entry : map.entries()) {
    const auto named = program::kernel_class_from_string(entry.key.text());
    if (named && !program::memory_bound(*named)) {
      entry.key.fail(fmt::format(
          "\"{}\" is a compute-bound class: give the fused attention kernels' share of the "
          "bf16 peak in gpu.attention {{efficiency, backward_efficiency}}",
          entry.key.text()));
    }
    const auto kernel_class = static_cast<program::KernelClass>(entry.key.as_choice(names));
    if (!out.emplace(kernel_class, rec.numeric(entry.value).as_fraction()).second)
      entry.key.fail(fmt::format("duplicate kernel class \"{}\"", entry.key.text()));
  }
  return out;
}

/// A CTA tile [m, n]: positive, at most 1024 (a CTA holds its tile of C in registers).
hw::GemmTile read_tile(const YamlValue& value) {
  const std::vector<YamlValue> dims = value.as_sequence();
  if (dims.size() != 2)
    value.fail(fmt::format("expected [tile_m, tile_n], got {} values", dims.size()));
  return {dims[0].as_int_in(1, 1024), dims[1].as_int_in(1, 1024)};
}

/// The optional fields of cuBLAS's heuristic (candidate tiles, operand bandwidth, per-CTA
/// overhead, split-K). They come together: candidate_tiles needs operand_bandwidth and
/// the base tile among the candidates; the other two mean nothing without candidates.
void read_gemm_heuristic(const YamlMap& gemm, const YamlValue& tile_value, hw::GemmModel& model,
                         FieldRecorder& rec) {
  const auto candidates = gemm.find("candidate_tiles");
  if (!candidates) {
    for (const char* key : {"operand_bandwidth", "cta_overhead_k", "max_split_k"}) {
      if (auto v = gemm.find(key)) {
        v->fail(
            fmt::format("{} applies only with candidate_tiles (the tiles cuBLAS chooses "
                        "among); add gpu.gemm.candidate_tiles or remove {}",
                        key, key));
      }
    }
    return;
  }
  const std::vector<YamlValue> tiles = rec.numeric(*candidates).as_sequence();
  if (tiles.empty()) candidates->fail("expected at least one [tile_m, tile_n] tile");
  for (const YamlValue& t : tiles) {
    const hw::GemmTile tile = read_tile(t);
    if (std::find(model.candidate_tiles.begin(), model.candidate_tiles.end(), tile) !=
        model.candidate_tiles.end()) {
      t.fail(fmt::format("duplicate tile [{}, {}]", tile.m, tile.n));
    }
    model.candidate_tiles.push_back(tile);
  }
  const hw::GemmTile base{model.tile_m, model.tile_n};
  if (std::find(model.candidate_tiles.begin(), model.candidate_tiles.end(), base) ==
      model.candidate_tiles.end()) {
    tile_value.fail(
        fmt::format("tile [{}, {}] (the tile max_efficiency was measured with) is not among "
                    "candidate_tiles; list it there",
                    base.m, base.n));
  }
  const auto bandwidth = gemm.find("operand_bandwidth");
  if (!bandwidth) {
    candidates->fail(
        "candidate_tiles needs gpu.gemm.operand_bandwidth (the L2 bandwidth feeding the "
        "tiles' operands): without it every tile would reach max_efficiency and the smallest "
        "would always win");
  }
  model.operand_bandwidth = bandwidth_in_range(rec.numeric(*bandwidth));
  if (auto overhead = gemm.find("cta_overhead_k"))
    model.cta_overhead_k = rec.numeric(*overhead).as_double_in(0.0, 65536.0);
  if (auto split = gemm.find("max_split_k"))
    model.max_split_k = rec.numeric(*split).as_int_in(1, 256);
}

hw::GpuSpec read_gpu(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap gpu = value.as_map(profile_keys_under("gpu"));
  hw::GpuSpec spec;
  spec.model = rec.descriptive(gpu.required("model")).as_string();
  const YamlMap peak = gpu.required("peak").as_open_map();
  if (peak.entries().empty()) peak.self().fail("expected at least one {dtype: FLOP rate} entry");
  for (const YamlMap::Entry& entry : peak.entries()) {
    const auto dtype = dtype_from_string(dtype_names[entry.key.as_choice(dtype_names)]);
    spec.peak.emplace(*dtype, within(entry.value, rec.numeric(entry.value).as_flop_rate(),
                                     kMinFlopRate, kMaxFlopRate));
  }
  spec.sm_count = rec.numeric(gpu.required("sm_count")).as_positive_int();
  spec.memory = within(gpu.required("memory"), rec.numeric(gpu.required("memory")).as_bytes(),
                       kMinMemory, kMaxMemory);
  if (spec.memory <= Bytes::zero()) gpu.required("memory").fail("expected a positive size");
  spec.memory_bandwidth = bandwidth_in_range(rec.numeric(gpu.required("memory_bandwidth")));
  if (spec.memory_bandwidth <= Bandwidth{})
    gpu.required("memory_bandwidth").fail("expected a positive bandwidth");
  spec.memory_efficiency = rec.numeric(gpu.required("memory_efficiency")).as_fraction();
  if (auto kernels = gpu.find("kernels"))
    spec.kernel_efficiency = read_kernel_efficiency(*kernels, rec);
  if (auto attention = gpu.find("attention")) {
    const YamlMap map = attention->as_map(profile_keys_under("gpu.attention"));
    spec.attention = hw::AttentionSpec{
        rec.numeric(map.required("efficiency")).as_fraction(),
        rec.numeric(map.required("backward_efficiency")).as_fraction(), Time{}, Time{}};
    if (auto t = map.find("fixed_time"))
      spec.attention->fixed_time = latency_in_range(rec.numeric(*t));
    if (auto t = map.find("backward_fixed_time"))
      spec.attention->backward_fixed_time = latency_in_range(rec.numeric(*t));
  }
  spec.kernel_launch = latency_in_range(rec.numeric(gpu.required("kernel_launch")));

  const YamlMap gemm = gpu.required("gemm").as_map(profile_keys_under("gpu.gemm"));
  spec.gemm.max_efficiency = rec.numeric(gemm.required("max_efficiency")).as_fraction();
  if (auto by_dtype = gemm.find("max_efficiency_by_dtype")) {
    const YamlMap map = rec.numeric(*by_dtype).as_open_map();
    if (map.entries().empty()) by_dtype->fail("expected at least one {dtype: fraction} entry");
    for (const YamlMap::Entry& entry : map.entries()) {
      const auto dtype = dtype_from_string(dtype_names[entry.key.as_choice(dtype_names)]);
      if (!spec.peak.contains(*dtype)) {
        entry.key.fail(
            fmt::format("{} has no peak under gpu.peak; a GEMM efficiency for it "
                        "would never be used",
                        entry.key.text()));
      }
      if (!spec.gemm.max_efficiency_by_dtype.emplace(*dtype, entry.value.as_fraction()).second)
        entry.key.fail(fmt::format("duplicate dtype \"{}\"", entry.key.text()));
    }
  }
  const YamlValue tile_value = rec.numeric(gemm.required("tile"));
  const std::vector<YamlValue> tile = tile_value.as_sequence();
  if (tile.size() != 2) {
    tile_value.fail(fmt::format("expected [tile_m, tile_n], got {} values", tile.size()));
  }
  spec.gemm.tile_m = tile[0].as_positive_int();
  spec.gemm.tile_n = tile[1].as_positive_int();
  spec.gemm.ctas_per_sm = rec.numeric(gemm.required("ctas_per_sm")).as_positive_int();
  if (auto curve = gemm.find("size_efficiency")) {
    spec.gemm.size_efficiency = read_curve(rec.numeric(*curve), Dimension::flops);
  }
  read_gemm_heuristic(gemm, tile_value, spec.gemm, rec);
  return spec;
}

hw::NodeSpec read_node(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap node = value.as_map(profile_keys_under("node"));
  hw::NodeSpec spec;
  spec.gpus = rec.numeric(node.required("gpus")).as_positive_int();
  spec.fabric = rec.descriptive(node.required("fabric")).as_choice(fabric_names) == 0
                    ? hw::FabricKind::nvswitch
                    : hw::FabricKind::pcie;
  spec.gpu_bandwidth = bandwidth_in_range(rec.numeric(node.required("gpu_bandwidth")));
  spec.latency = latency_in_range(rec.numeric(node.required("latency")));
  if (auto bridge = node.find("host_bridge_bandwidth")) {
    if (spec.fabric != hw::FabricKind::pcie) {
      bridge->fail("host_bridge_bandwidth applies only to fabric: pcie (this node is nvswitch)");
    }
    spec.host_bridge_bandwidth = bandwidth_in_range(rec.numeric(*bridge));
  }
  return spec;
}

hw::NetworkSpec read_network(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap net = value.as_map(profile_keys_under("network"));
  hw::NetworkSpec spec;
  spec.nics_per_node = rec.numeric(net.required("nics_per_node")).as_positive_int();
  spec.nic_bandwidth = bandwidth_in_range(rec.numeric(net.required("nic_bandwidth")));
  spec.latency = latency_in_range(rec.numeric(net.required("latency")));
  spec.oversubscription = rec.numeric(net.required("oversubscription")).as_double_in(1.0, 1000.0);
  return spec;
}

/// {group size: curve}; intra-node sizes must fit in a node of `node_gpus`, inter-node ones
/// must not (a group fills whole nodes in rank order).
std::map<std::int64_t, hw::EfficiencyCurve> read_curves_by_group_size(const YamlValue& value,
                                                                      bool inter_node,
                                                                      std::int64_t node_gpus) {
  const YamlMap map = value.as_open_map();
  if (map.entries().empty()) value.fail("expected at least one {group size: curve} entry");
  std::map<std::int64_t, hw::EfficiencyCurve> out;
  for (const YamlMap::Entry& entry : map.entries()) {
    const std::int64_t size = entry.key.as_int();
    if (size < 2) {
      entry.key.fail(fmt::format("group size must be at least 2, got \"{}\"", entry.key.text()));
    }
    if (inter_node ? size <= node_gpus : size > node_gpus) {
      entry.key.fail(fmt::format(
          "group size {} is {} one node of {} GPUs; valid: {}", size,
          inter_node ? "within" : "more than", node_gpus,
          inter_node ? fmt::format("more than {}", node_gpus) : fmt::format("2 to {}", node_gpus)));
    }
    if (out.contains(size)) entry.key.fail(fmt::format("duplicate group size {}", size));
    out.emplace(size, read_curve(entry.value, Dimension::bytes));
  }
  return out;
}

hw::P2pSpec read_p2p(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap p2p = value.as_map(profile_keys_under("collectives.p2p"));
  if (p2p.entries().empty()) {
    value.fail(
        "expected at least one of base_latency, intra_node_efficiency, "
        "inter_node_efficiency");
  }
  hw::P2pSpec spec;
  if (auto latency = p2p.find("base_latency"))
    spec.base_latency = latency_in_range(rec.numeric(*latency));
  if (auto curve = p2p.find("intra_node_efficiency"))
    spec.intra_node_efficiency = read_curve(rec.numeric(*curve), Dimension::bytes);
  if (auto curve = p2p.find("inter_node_efficiency"))
    spec.inter_node_efficiency = read_curve(rec.numeric(*curve), Dimension::bytes);
  return spec;
}

hw::CollectiveSpec read_collectives(const YamlValue& value, std::int64_t node_gpus,
                                    FieldRecorder& rec) {
  const YamlMap coll = value.as_map(profile_keys_under("collectives"));
  hw::CollectiveSpec spec;
  if (auto algorithms = coll.find("algorithms")) {
    // NCCL_ALGO: a setting, so no provenance needed.
    rec.descriptive(*algorithms);
    std::vector<std::string_view> names;
    for (int a = 0; a < hw::kCollectiveAlgorithmCount; ++a)
      names.push_back(hw::to_string(static_cast<hw::CollectiveAlgorithm>(a)));
    spec.algorithms.fill(false);
    for (const YamlValue& algorithm : algorithms->as_sequence()) {
      const std::size_t i = algorithm.as_choice(names);
      if (spec.algorithms[i]) {
        algorithm.fail(fmt::format("duplicate algorithm \"{}\"", algorithm.text()));
      }
      spec.algorithms[i] = true;
    }
    if (!spec.allows(hw::CollectiveAlgorithm::ring)) {
      algorithms->fail("the list must hold ring: every collective kind runs on rings (NCCL "
                       "falls back to them too)");
    }
  }
  spec.base_latency = latency_in_range(rec.numeric(coll.required("base_latency")));
  spec.intra_node_efficiency =
      read_curve(rec.numeric(coll.required("intra_node_efficiency")), Dimension::bytes);
  spec.inter_node_efficiency =
      read_curve(rec.numeric(coll.required("inter_node_efficiency")), Dimension::bytes);
  if (auto by_size = coll.find("intra_node_efficiency_by_group_size")) {
    spec.intra_node_efficiency_by_group_size =
        read_curves_by_group_size(rec.numeric(*by_size), false, node_gpus);
  }
  if (auto by_size = coll.find("inter_node_efficiency_by_group_size")) {
    spec.inter_node_efficiency_by_group_size =
        read_curves_by_group_size(rec.numeric(*by_size), true, node_gpus);
  }
  if (auto p2p = coll.find("p2p")) spec.p2p = read_p2p(*p2p, rec);
  return spec;
}

hw::HostSpec read_host(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap host = value.as_map(profile_keys_under("host"));
  hw::HostSpec spec;
  spec.framework = rec.descriptive(host.required("framework")).as_string();
  const YamlMap dispatch = host.required("dispatch").as_map(profile_keys_under("host.dispatch"));
  // An eager op costs microseconds of CPU (fidelity-data.md §1.1); a millisecond per op is a
  // typo in the unit.
  const Time max_dispatch = Time::from_ms(1.0);
  auto cost = [&](const char* key) {
    const YamlValue v = dispatch.required(key);
    return within(v, rec.numeric(v).as_time(), Time::zero(), max_dispatch);
  };
  spec.gemm = cost("gemm");
  spec.kernel = cost("kernel");
  spec.collective = cost("collective");
  spec.p2p = cost("p2p");
  spec.sync_latency =
      within(host.required("sync_latency"), rec.numeric(host.required("sync_latency")).as_time(),
             Time::zero(), max_dispatch);
  const YamlValue points = host.required("sync_points");
  rec.descriptive(points);
  std::vector<std::string_view> names;
  for (int p = 0; p < program::kSyncPointCount; ++p)
    names.push_back(program::to_string(static_cast<program::SyncPoint>(p)));
  for (const YamlValue& point : points.as_sequence()) {
    const std::size_t i = point.as_choice(names);
    if (spec.sync_points[i]) point.fail(fmt::format("duplicate sync point \"{}\"", point.text()));
    spec.sync_points[i] = true;
  }
  if (auto connections = host.find("device_max_connections")) {
    // CUDA accepts 1 to 32 (CUDA_DEVICE_MAX_CONNECTIONS); a setting, so no provenance needed.
    rec.descriptive(*connections);
    spec.device_max_connections = connections->as_positive_int();
    if (spec.device_max_connections > 32) {
      connections->fail(fmt::format("expected 1 to 32 (CUDA_DEVICE_MAX_CONNECTIONS), got {}",
                                    spec.device_max_connections));
    }
  }
  return spec;
}

// A GPU interrupted more than once a day would not train at all; a larger figure is a unit
// typo (/GPU-h for /GPU-day).
const InterruptionRate kMaxInterruptionRate = InterruptionRate::per_gpu_day(1.0);

InterruptionRate interruption_rate_in_range(const YamlValue& v) {
  return within(v, v.as_interruption_rate(), InterruptionRate{}, kMaxInterruptionRate);
}

hw::ReliabilitySpec read_reliability(const YamlValue& value, FieldRecorder& rec) {
  const YamlMap section = value.as_map(profile_keys_under("reliability"));
  hw::ReliabilitySpec spec;
  const YamlMap causes = section.required("interruptions").as_open_map();
  if (causes.entries().empty())
    section.required("interruptions").fail("expected one cause or more");
  for (const YamlMap::Entry& entry : causes.entries()) {
    const std::string name = entry.key.as_string();
    const bool valid = std::islower(static_cast<unsigned char>(name.front())) != 0 &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::islower(static_cast<unsigned char>(c)) != 0 ||
                                std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
                       });
    if (!valid) {
      entry.key.fail(
          fmt::format("cause \"{}\": expected a lower-case name of letters, digits "
                      "and _ (faulty_gpu)",
                      name));
    }
    spec.unplanned.push_back({name, interruption_rate_in_range(rec.numeric(entry.value))});
  }
  spec.planned = interruption_rate_in_range(rec.numeric(section.required("planned_interruptions")));
  const Time day = Time::from_seconds(86400.0);
  auto duration = [&](const char* key) {
    const YamlValue v = section.required(key);
    return within(v, rec.numeric(v).as_time(), Time::zero(), day);
  };
  spec.detect = duration("detect");
  spec.restart = duration("restart");
  const YamlMap path =
      section.required("checkpoint").as_map(profile_keys_under("reliability.checkpoint"));
  auto bandwidth = [&](const char* key) {
    return bandwidth_in_range(rec.numeric(path.required(key)));
  };
  spec.checkpoint.device_to_host = bandwidth("device_to_host");
  spec.checkpoint.node_write = bandwidth("node_write");
  spec.checkpoint.node_read = bandwidth("node_read");
  spec.checkpoint.filesystem_write = bandwidth("filesystem_write");
  spec.checkpoint.filesystem_read = bandwidth("filesystem_read");
  constexpr std::array<std::string_view, 2> modes{"sync", "async"};
  spec.checkpoint.asynchronous = rec.descriptive(path.required("mode")).as_choice(modes) == 1;
  return spec;
}

}  // namespace

std::filesystem::path hwprofiles_directory() {
  std::vector<std::filesystem::path> candidates;
#ifdef TRAINSIM_SOURCE_ROOT
  candidates.push_back(std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles");
#endif
  if (const char* root = std::getenv("TRAINSIM_ROOT"); root != nullptr && *root != '\0') {
    candidates.push_back(std::filesystem::path(root) / "hwprofiles");
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (std::filesystem::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      candidates.push_back(dir / "hwprofiles");
      if (dir == dir.root_path()) break;
    }
  }
  std::vector<std::string> tried;
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_directory(candidate, ec)) return candidate;
    tried.push_back(candidate.string());
  }
  throw ConfigError(SourceLocation{"hwprofiles/", 0, 0},
                    fmt::format("cannot find the hwprofiles/ directory (set TRAINSIM_ROOT to the "
                                "project root); tried: {}",
                                join(tried)));
}

std::vector<std::string> available_profiles() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(hwprofiles_directory())) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path resolve_hardware_profile(std::string_view hardware,
                                               const std::filesystem::path& base_dir,
                                               const SourceLocation& where,
                                               std::string_view field) {
  std::error_code ec;
  if (hardware.find('/') != std::string_view::npos || hardware.ends_with(".yaml")) {
    std::filesystem::path file(hardware);
    if (file.is_relative()) file = base_dir / file;
    file = file.lexically_normal();
    if (!std::filesystem::is_regular_file(file, ec)) {
      throw ConfigError(where, fmt::format("{}: no such profile file \"{}\" (resolved to {})",
                                           field, hardware, file.string()));
    }
    return file;
  }
  const std::filesystem::path dir = hwprofiles_directory();
  const std::filesystem::path file = dir / fmt::format("{}.yaml", hardware);
  if (std::filesystem::is_regular_file(file, ec)) return file;
  const std::vector<std::string> names = available_profiles();
  std::string message = fmt::format("{}: unknown hardware profile \"{}\"", field, hardware);
  if (auto best = closest_match(hardware, names)) {
    message += fmt::format("; did you mean \"{}\"?", *best);
  }
  message += fmt::format(" available profiles (in {}): {}; or give a path to a .yaml file",
                         dir.string(), join(names));
  throw ConfigError(where, message);
}

hw::HardwareProfile load_hardware_profile(const std::filesystem::path& file) {
  const YamlValue root = load_yaml_file(file);
  const YamlMap top = root.as_map(profile_keys_under(""));
  FieldRecorder rec;
  hw::HardwareProfile profile;
  profile.file = file;
  profile.name = top.required("name").as_string();
  profile.description = top.required("description").as_string();
  profile.gpu = read_gpu(top.required("gpu"), rec);
  profile.node = read_node(top.required("node"), rec);
  profile.network = read_network(top.required("network"), rec);
  profile.collectives = read_collectives(top.required("collectives"), profile.node.gpus, rec);
  if (auto host = top.find("host")) profile.host = read_host(*host, rec);
  if (auto reliability = top.find("reliability"))
    profile.reliability = read_reliability(*reliability, rec);
  const YamlMap interference =
      top.required("interference").as_map(profile_keys_under("interference"));
  profile.compute_slowdown_during_comm =
      rec.numeric(interference.required("compute_slowdown_during_comm")).as_double_in(0.0, 1.0);
  profile.comm_slowdown_during_compute =
      rec.numeric(interference.required("comm_slowdown_during_compute")).as_double_in(0.0, 3.0);
  profile.provenance = rec.check_provenance(top.required("provenance").as_open_map());
  return profile;
}

}  // namespace trainsim::inputs
