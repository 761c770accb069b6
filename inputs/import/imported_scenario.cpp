#include "inputs/import/imported_scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace trainsim::inputs::import {

namespace {

// A scalar as YAML would read it back unchanged: plain where yaml-cpp leaves it plain,
// quoted where it would not (a path with ':', a leading '#', ...).
std::string yaml_scalar(const std::string& text) {
  YAML::Emitter out;
  out << text;
  return out.c_str();
}

// Text for a `#` comment: a line break in a value or a file name would end the comment and
// let the rest be read as YAML, so control characters are written as escapes.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

// Header comment lines: "# " + text, wrapped at nothing (one item per line).
void comment_lines(std::string& out, std::string_view title,
                   const std::vector<std::string>& items) {
  if (items.empty()) return;
  out += fmt::format("#\n# {}:\n", title);
  for (const std::string& item : items)
    out += fmt::format("#   {}\n", one_line(item));
}

// Writes the keys under `section` ("" = the document) at `depth`: each name once, in the
// order its first key was set, a nested section as a mapping holding its own keys.
void emit_level(std::string& out, const std::vector<ImportedKey>& keys, const std::string& section,
                std::size_t depth) {
  const std::string lead = section.empty() ? "" : section + ".";
  std::vector<std::string> names;
  for (const ImportedKey& k : keys) {
    if (!k.key.starts_with(lead)) continue;
    const std::string rest = k.key.substr(lead.size());
    const std::string name = rest.substr(0, rest.find('.'));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  for (const std::string& name : names) {
    const auto leaf = std::find_if(keys.begin(), keys.end(),
                                   [&](const ImportedKey& k) { return k.key == lead + name; });
    if (leaf != keys.end()) {
      const std::string line =
          fmt::format("{:{}}{}: {}", "", 2 * depth, name, yaml_scalar(leaf->value));
      out += fmt::format("{:<40} # {}\n", line, one_line(leaf->source));
      continue;
    }
    out += fmt::format("{:{}}{}:\n", "", 2 * depth, name);
    emit_level(out, keys, lead + name, depth + 1);
  }
}

}  // namespace

void ImportedScenario::set(std::string key, std::string value, std::string source) {
  for (ImportedKey& k : keys) {
    if (k.key == key) {
      k.value = std::move(value);
      k.source = std::move(source);
      return;
    }
  }
  keys.push_back({std::move(key), std::move(value), std::move(source)});
}

std::optional<std::string> ImportedScenario::value(const std::string& key) const {
  for (const ImportedKey& k : keys)
    if (k.key == key) return k.value;
  return std::nullopt;
}

std::string ImportedScenario::to_yaml() const {
  std::string out = fmt::format("# Imported from {} by `trainsim import`.\n", one_line(origin));
  out +=
      "# Each value's comment names the setting it came from; keys not written take trainsim's\n"
      "# defaults (`trainsim simulate --help` lists them).\n";
  comment_lines(out, "Notes", notes);
  comment_lines(out, "Ignored (no effect on a training step's time)", ignored);
  comment_lines(out, "Unknown to trainsim (not used; check that none changes the step)", unknown);
  emit_level(out, keys, "", 0);
  return out;
}

std::string ImportedScenario::summary() const {
  std::string out = fmt::format("{}: {} scenario keys set, {} settings ignored, {} unknown\n",
                                origin, keys.size(), ignored.size(), unknown.size());
  for (const std::string& u : unknown)
    out += fmt::format("  unknown, not used: {}\n", u);
  for (const std::string& n : notes)
    out += fmt::format("  note: {}\n", n);
  return out;
}

}  // namespace trainsim::inputs::import
