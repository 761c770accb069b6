#include "inputs/input_schema.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <string_view>

#include "inputs/parameters.hpp"
#include "inputs/profile_keys.hpp"

namespace trainsim::inputs {

namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kDraft = "https://json-schema.org/draft/2020-12/schema";
// A number as YAML writes it: sign, digits, fraction, exponent.
constexpr std::string_view kNumber = R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)";

json object_schema(std::string_view description) {
  json o;
  o["type"] = "object";
  if (!description.empty()) o["description"] = description;
  o["properties"] = json::object();
  o["additionalProperties"] = false;
  return o;
}

// The schema node for dotted `path` inside `root`, creating the sections on the way.
json& section_of(json& root, std::string_view path) {
  json* node = &root;
  std::size_t begin = 0;
  for (std::size_t dot = path.find('.'); dot != std::string_view::npos;
       begin = dot + 1, dot = path.find('.', begin)) {
    const std::string part(path.substr(begin, dot - begin));
    json& props = (*node)["properties"];
    if (!props.contains(part)) props[part] = object_schema("");
    node = &props[part];
  }
  return *node;
}

std::string last_part(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

void mark_required(json& section, const std::string& name) {
  if (!section.contains("required")) section["required"] = json::array();
  section["required"].push_back(name);
}

// --- scenario -----------------------------------------------------------------------------

json typed_default(const Parameter& p) {
  const std::string text(p.default_value);
  switch (p.type) {
    case ParameterType::integer:
      return std::stoll(text);
    case ParameterType::number:
      return std::stod(text);
    case ParameterType::boolean:
      return text == "true";
    case ParameterType::string:
    case ParameterType::choice:
      return text;
  }
  return text;
}

json scenario_value(const Parameter& p) {
  json v;
  switch (p.type) {
    case ParameterType::string:
      v["type"] = "string";
      v["minLength"] = 1;
      break;
    case ParameterType::integer:
      v["type"] = "integer";
      if (p.min != std::numeric_limits<std::int64_t>::min()) v["minimum"] = p.min;
      if (p.max != std::numeric_limits<std::int64_t>::max()) v["maximum"] = p.max;
      break;
    case ParameterType::number:
      v["type"] = "number";
      if (p.min != std::numeric_limits<std::int64_t>::min()) v["minimum"] = p.min;
      if (p.max != std::numeric_limits<std::int64_t>::max()) v["maximum"] = p.max;
      break;
    case ParameterType::boolean:
      v["type"] = "boolean";
      break;
    case ParameterType::choice:
      v["enum"] = json::array();
      for (std::string_view c : p.choices)
        v["enum"].push_back(c);
      break;
  }
  std::string description(p.description);
  if (p.default_kind == DefaultKind::value) {
    v["default"] = typed_default(p);
  } else if (p.default_kind == DefaultKind::derived) {
    description += fmt::format(" (default: {})", p.default_value);
  }
  v["description"] = description;
  return v;
}

// --- profile ------------------------------------------------------------------------------

json quantity(std::string_view units, std::string_view example) {
  json v;
  v["type"] = "string";
  v["pattern"] = fmt::format(R"(^\s*{}\s*({})\s*$)", kNumber, units);
  v["examples"] = json::array({example});
  return v;
}

json fraction() {
  json v;
  v["type"] = "number";
  v["exclusiveMinimum"] = 0;
  v["maximum"] = 1;
  return v;
}

constexpr std::string_view kTimeUnits = "h|min|s|ms|us|µs|ns|ps";
constexpr std::string_view kInterruptionRateUnits = "/GPU-day|/GPU-h";
constexpr std::string_view kBytesUnits = "[kMGTP]?B|[KMGTP]iB";
constexpr std::string_view kBandwidthUnits = "[kMGTP]?B/s|[KMGTP]iB/s|[kMGTP]?b/s";
constexpr std::string_view kFlopRateUnits = "[kMGTP]?FLOP/s";
constexpr std::string_view kFlopsUnits = "[kMGTP]?FLOP";

json curve(std::string_view key_units, std::string_view key_example) {
  json v;
  v["type"] = "object";
  v["minProperties"] = 1;
  v["propertyNames"] = quantity(key_units, key_example);
  v["propertyNames"].erase("examples");
  v["additionalProperties"] = fraction();
  return v;
}

json name_map(const std::vector<std::string_view>& names, json value) {
  json v;
  v["type"] = "object";
  v["minProperties"] = 1;
  v["propertyNames"]["enum"] = json::array();
  for (std::string_view n : names)
    v["propertyNames"]["enum"].push_back(n);
  v["additionalProperties"] = std::move(value);
  return v;
}

json tile() {
  json v;
  v["type"] = "array";
  v["items"] = {{"type", "integer"}, {"minimum", 1}, {"maximum", 1024}};
  v["minItems"] = 2;
  v["maxItems"] = 2;
  return v;
}

json profile_value(const ProfileKey& k) {
  json v;
  switch (k.value) {
    case ProfileValue::section:
      return object_schema(k.description);
    case ProfileValue::text:
      v["type"] = "string";
      break;
    case ProfileValue::choice:
      v["enum"] = json::array();
      for (std::string_view c : k.choices)
        v["enum"].push_back(c);
      break;
    case ProfileValue::choice_list:
      v["type"] = "array";
      v["items"]["enum"] = json::array();
      for (std::string_view c : k.choices)
        v["items"]["enum"].push_back(c);
      v["uniqueItems"] = true;
      break;
    case ProfileValue::positive_int:
      v["type"] = "integer";
      v["minimum"] = 1;
      if (k.max > 0) v["maximum"] = static_cast<std::int64_t>(k.max);
      break;
    case ProfileValue::fraction:
      v = fraction();
      break;
    case ProfileValue::number:
      v["type"] = "number";
      v["minimum"] = k.min;
      v["maximum"] = k.max;
      break;
    case ProfileValue::time:
      v = quantity(kTimeUnits, "4 us");
      break;
    case ProfileValue::bytes:
      v = quantity(kBytesUnits, "80 GiB");
      break;
    case ProfileValue::bandwidth:
      v = quantity(kBandwidthUnits, "900 GB/s");
      break;
    case ProfileValue::flop_rate:
      v = quantity(kFlopRateUnits, "989 TFLOP/s");
      break;
    case ProfileValue::flop_rate_map:
      v = name_map(k.choices, quantity(kFlopRateUnits, "989 TFLOP/s"));
      break;
    case ProfileValue::fraction_map:
      v = name_map(k.choices, fraction());
      break;
    case ProfileValue::bytes_curve:
      v = curve(kBytesUnits, "1 MiB");
      break;
    case ProfileValue::flops_curve:
      v = curve(kFlopsUnits, "1 TFLOP");
      break;
    case ProfileValue::curves_by_size:
      v["type"] = "object";
      v["minProperties"] = 1;
      v["propertyNames"]["pattern"] = "^[0-9]+$";
      v["additionalProperties"] = curve(kBytesUnits, "1 MiB");
      break;
    case ProfileValue::tile:
      v = tile();
      break;
    case ProfileValue::tile_list:
      v["type"] = "array";
      v["items"] = tile();
      v["minItems"] = 1;
      break;
    case ProfileValue::interruption_rate:
      v = quantity(kInterruptionRateUnits, "5.3e-5 /GPU-day");
      break;
    case ProfileValue::interruption_rate_map:
      v["type"] = "object";
      v["minProperties"] = 1;
      v["propertyNames"]["pattern"] = "^[a-z][a-z0-9_]*$";
      v["additionalProperties"] = quantity(kInterruptionRateUnits, "1.4e-4 /GPU-day");
      break;
    case ProfileValue::text_map:
      v["type"] = "object";
      v["additionalProperties"]["type"] = "string";
      break;
  }
  v["description"] = k.description;
  return v;
}

}  // namespace

nlohmann::ordered_json scenario_schema() {
  json root = {{"$schema", kDraft}, {"title", "trainsim scenario"}};
  root.update(
      object_schema("a trainsim scenario: model, training, parallel plan and hardware "
                    "(`trainsim simulate --help` describes every key)"));
  for (const Parameter& p : scenario_parameters()) {
    json& section = section_of(root, p.path);
    const std::string name = last_part(p.path);
    section["properties"][name] = scenario_value(p);
    if (p.default_kind == DefaultKind::required) mark_required(section, name);
  }
  // A section holding a required key must itself be written.
  for (const std::string& key : scenario_keys_under(""))
    if (root["properties"][key].value("type", "") == "object" && scenario_section_required(key))
      mark_required(root, key);
  return root;
}

nlohmann::ordered_json profile_schema() {
  json root = {{"$schema", kDraft}, {"title", "trainsim hardware profile"}};
  root.update(
      object_schema("a trainsim hardware profile: every numeric figure with its source "
                    "under provenance (inputs/README.md)"));
  for (const ProfileKey& k : profile_keys()) {
    json& section = section_of(root, k.path);
    const std::string name = last_part(k.path);
    section["properties"][name] = profile_value(k);
    if (k.required) mark_required(section, name);
  }
  return root;
}

}  // namespace trainsim::inputs
