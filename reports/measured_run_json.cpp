#include "reports/measured_run_json.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/errors.hpp"

namespace trainsim::reports {

namespace {

using nlohmann::json;

constexpr std::array kClasses{OpClass::gemm, OpClass::kernel, OpClass::collective, OpClass::p2p};
constexpr std::array kPhases{program::Phase::forward, program::Phase::backward,
                             program::Phase::recompute, program::Phase::optimizer};

// An enum value by its to_string name; ConfigError listing the valid names otherwise.
template <typename E, std::size_t N>
E parse_enum(const std::array<E, N>& all, const std::string& text, std::string_view field,
             const std::filesystem::path& source) {
  std::string valid;
  for (E e : all) {
    if (to_string(e) == text) return e;
    valid += fmt::format("{}{}", valid.empty() ? "" : ", ", to_string(e));
  }
  throw ConfigError({source}, fmt::format("{} '{}' is not one of {}", field, text, valid));
}

std::array<program::Stream, program::kStreamCount> all_streams() {
  std::array<program::Stream, program::kStreamCount> s{};
  for (int i = 0; i < program::kStreamCount; ++i)
    s[static_cast<std::size_t>(i)] = static_cast<program::Stream>(i);
  return s;
}

// The field of an object, checked to exist and have the expected kind.
const json& field(const json& object, const char* name, json::value_t kind, std::string_view where,
                  const std::filesystem::path& source) {
  const auto it = object.find(name);
  const bool number = kind == json::value_t::number_float;
  if (it == object.end() || (number ? !it->is_number() : it->type() != kind)) {
    throw ConfigError({source}, fmt::format("{}{} is missing or not a {}", where, name,
                                            number ? "number" : json(kind).type_name()));
  }
  return *it;
}

}  // namespace

std::string measured_run_to_json(const MeasuredRun& run) {
  json ops = json::array();
  for (const MeasuredOp& op : run.ops) {
    json o = json::object();
    o["name"] = op.name;
    o["class"] = std::string(to_string(op.op_class));
    o["layer"] = op.tag.layer;
    o["micro_batch"] = op.tag.micro_batch;
    o["phase"] = std::string(program::to_string(op.tag.phase));
    o["stream"] = std::string(program::to_string(op.stream));
    o["time_s"] = op.seconds;
    ops.push_back(std::move(o));
  }
  // Per layer (sums of the ops above; kNoLayer = -1: embedding, loss, optimizer), for
  // readers that want no aggregation of their own; the reader recomputes them from the ops.
  std::map<std::int32_t, double> layer_seconds;
  for (const MeasuredOp& op : run.ops)
    layer_seconds[op.tag.layer] += op.seconds;
  json layers = json::array();
  for (const auto& [layer, seconds] : layer_seconds)
    layers.push_back({{"layer", layer}, {"time_s", seconds}});
  json skipped = json::array();
  for (const SkippedCollective& s : run.skipped)
    skipped.push_back({{"name", s.name}, {"group", s.group}, {"count", s.count}});
  json out = json::object();
  out["scenario"] = run.scenario;
  out["hardware"] = run.hardware;
  out["rank"] = run.rank;
  out["device"] = run.device;
  out["warmup"] = run.warmup;
  out["repetitions"] = run.repetitions;
  out["iteration_s"] = run.iteration_seconds;
  out["layers"] = std::move(layers);
  out["skipped_collectives"] = std::move(skipped);
  out["ops"] = std::move(ops);
  return out.dump(2) + "\n";
}

MeasuredRun measured_run_from_json(std::string_view text, const std::filesystem::path& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    // A syntax error (parse_error), and a number beyond a double (out_of_range: 1e400).
    throw ConfigError({source}, fmt::format("not valid JSON: {}", e.what()));
  }
  if (!doc.is_object()) throw ConfigError({source}, "the top level must be a JSON object");
  using V = json::value_t;
  const auto integer = [&](const json& o, const char* name, std::string_view where) {
    const json& v = field(o, name, V::number_float, where, source);
    if (!v.is_number_integer()) {
      throw ConfigError({source},
                        fmt::format("{}{} = {} must be an integer", where, name, v.dump()));
    }
    return v.get<std::int64_t>();
  };
  // Tags are int32 in the Program; a value beyond is not a tag this program wrote.
  const auto int32 = [&](const json& o, const char* name, std::string_view where) {
    const std::int64_t v = integer(o, name, where);
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max()) {
      throw ConfigError({source},
                        fmt::format("{}{} = {} is outside the int32 range", where, name, v));
    }
    return static_cast<std::int32_t>(v);
  };
  MeasuredRun run;
  run.scenario = field(doc, "scenario", V::string, "", source).get<std::string>();
  run.hardware = field(doc, "hardware", V::string, "", source).get<std::string>();
  run.rank = integer(doc, "rank", "");
  run.device = field(doc, "device", V::string, "", source).get<std::string>();
  run.warmup = integer(doc, "warmup", "");
  run.repetitions = integer(doc, "repetitions", "");
  run.iteration_seconds = field(doc, "iteration_s", V::number_float, "", source).get<double>();
  if (run.iteration_seconds < 0.0) {
    throw ConfigError({source},
                      fmt::format("iteration_s = {} must not be negative", run.iteration_seconds));
  }
  const json& skipped = field(doc, "skipped_collectives", V::array, "", source);
  for (std::size_t i = 0; i < skipped.size(); ++i) {
    const std::string where = fmt::format("skipped_collectives[{}].", i);
    run.skipped.push_back({field(skipped[i], "name", V::string, where, source).get<std::string>(),
                           field(skipped[i], "group", V::string, where, source).get<std::string>(),
                           integer(skipped[i], "count", where)});
  }
  const json& ops = field(doc, "ops", V::array, "", source);
  const auto streams = all_streams();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string where = fmt::format("ops[{}].", i);
    const json& o = ops[i];
    MeasuredOp op;
    op.name = field(o, "name", V::string, where, source).get<std::string>();
    op.op_class =
        parse_enum(kClasses, field(o, "class", V::string, where, source).get<std::string>(),
                   where + "class", source);
    op.tag.layer = int32(o, "layer", where);
    op.tag.micro_batch = int32(o, "micro_batch", where);
    op.tag.phase =
        parse_enum(kPhases, field(o, "phase", V::string, where, source).get<std::string>(),
                   where + "phase", source);
    op.stream = parse_enum(streams, field(o, "stream", V::string, where, source).get<std::string>(),
                           where + "stream", source);
    op.seconds = field(o, "time_s", V::number_float, where, source).get<double>();
    if (op.seconds < 0.0) {
      throw ConfigError({source},
                        fmt::format("{}time_s = {} must not be negative", where, op.seconds));
    }
    run.ops.push_back(std::move(op));
  }
  return run;
}

MeasuredRun load_measured_run(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file}, "cannot read the measured-run file");
  std::ostringstream text;
  text << in.rdbuf();
  return measured_run_from_json(text.str(), file);
}

}  // namespace trainsim::reports
