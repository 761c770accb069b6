#include "inputs/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "inputs/quantity.hpp"

namespace trainsim::inputs {
YamlValue::YamlValue(YAML::Node node, std::shared_ptr<const std::filesystem::path> file,
                     std::string path, SourceLocation fallback)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      fallback_(std::move(fallback)) {}

SourceLocation YamlValue::location() const {
  const YAML::Mark mark = node_.Mark();
  if (mark.is_null() || mark.line < 0) {
    SourceLocation where = fallback_;
    if (where.file.empty()) where.file = *file_;
    return where;
  }
  return SourceLocation{*file_, mark.line + 1, mark.column + 1};
}

YamlValue YamlValue::synthetic(std::string path, std::string_view text,
                               SourceLocation where) const {
  return synthetic(std::move(path), YAML::Node(std::string(text)), std::move(where));
}

YamlValue YamlValue::synthetic(std::string path, YAML::Node node, SourceLocation where) const {
  return YamlValue(std::move(node), file_, std::move(path), std::move(where));
}

std::string YamlValue::text() const {
  if (node_.IsScalar()) return node_.Scalar();
  if (node_.IsMap()) return "<mapping>";
  if (node_.IsSequence()) return "<sequence>";
  return "<empty>";
}

void YamlValue::fail(std::string_view message) const {
  throw ConfigError(location(),
                    path_.empty() ? std::string(message) : fmt::format("{}: {}", path_, message));
}

std::string YamlValue::as_string() const {
  if (!node_.IsScalar() || node_.Scalar().empty()) {
    fail(fmt::format("expected a non-empty string, got {}", text()));
  }
  return node_.Scalar();
}

std::int64_t YamlValue::as_int() const {
  if (!node_.IsScalar()) fail(fmt::format("expected an integer, got {}", text()));
  const std::string& s = node_.Scalar();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) {
    fail(fmt::format("expected an integer, got \"{}\" (out of range)", s));
  }
  if (ec != std::errc() || end != s.data() + s.size()) {
    double real = 0.0;
    const auto [rend, rec] = std::from_chars(s.data(), s.data() + s.size(), real);
    if (rec == std::errc() && rend == s.data() + s.size()) {
      fail(
          fmt::format("expected an integer written with digits only, got \"{}\" (a real "
                      "number)",
                      s));
    }
    fail(fmt::format("expected an integer, got \"{}\"", s));
  }
  return value;
}

std::int64_t YamlValue::as_int_in(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t value = as_int();
  if (value < lo || value > hi) {
    if (hi == std::numeric_limits<std::int64_t>::max()) {
      fail(fmt::format("expected an integer >= {}, got {}", lo, value));
    }
    fail(fmt::format("expected an integer in {}..{}, got {}", lo, hi, value));
  }
  return value;
}

bool YamlValue::as_bool() const {
  if (node_.IsScalar()) {
    if (node_.Scalar() == "true") return true;
    if (node_.Scalar() == "false") return false;
  }
  fail(fmt::format("expected true or false, got \"{}\"", text()));
}

double YamlValue::as_double() const {
  if (!node_.IsScalar()) fail(fmt::format("expected a number, got {}", text()));
  const std::string& s = node_.Scalar();
  double value = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    fail(fmt::format("expected a number without unit, got \"{}\"", s));
  }
  return value;
}

double YamlValue::as_double_in(double lo, double hi) const {
  const double value = as_double();
  if (value < lo || value > hi) {
    fail(fmt::format("expected a number in [{}, {}], got {}", lo, hi, text()));
  }
  return value;
}

double YamlValue::as_fraction() const {
  const double value = as_double();
  if (!(value > 0.0 && value <= 1.0)) {
    fail(fmt::format("expected a fraction in (0, 1], got {}", text()));
  }
  return value;
}

std::size_t YamlValue::as_choice(std::span<const std::string_view> choices) const {
  if (node_.IsScalar()) {
    const auto it = std::find(choices.begin(), choices.end(), node_.Scalar());
    if (it != choices.end()) return static_cast<std::size_t>(it - choices.begin());
  }
  std::vector<std::string> names(choices.begin(), choices.end());
  std::string message =
      fmt::format("invalid value \"{}\"; valid values: {}", text(), join(choices));
  if (node_.IsScalar()) {
    if (auto best = closest_match(node_.Scalar(), names)) {
      message += fmt::format(" (did you mean \"{}\"?)", *best);
    }
  }
  fail(message);
}

namespace {
template <typename Parse>
auto parse_quantity_at(const YamlValue& v, Parse parse, Dimension d) {
  if (!v.is_scalar()) {
    v.fail(fmt::format("expected {} such as {}, got {}", describe(d), examples(d), v.text()));
  }
  try {
    return parse(v.node().Scalar());
  } catch (const QuantityError& e) {
    v.fail(e.what());
  }
}
}  // namespace

Time YamlValue::as_time() const {
  return parse_quantity_at(*this, parse_time, Dimension::time);
}
Bytes YamlValue::as_bytes() const {
  return parse_quantity_at(*this, parse_bytes, Dimension::bytes);
}
Bandwidth YamlValue::as_bandwidth() const {
  return parse_quantity_at(*this, parse_bandwidth, Dimension::bandwidth);
}
FlopRate YamlValue::as_flop_rate() const {
  return parse_quantity_at(*this, parse_flop_rate, Dimension::flop_rate);
}
Flops YamlValue::as_flops() const {
  return parse_quantity_at(*this, parse_flops, Dimension::flops);
}
InterruptionRate YamlValue::as_interruption_rate() const {
  return parse_quantity_at(*this, parse_interruption_rate, Dimension::interruption_rate);
}

YamlMap YamlValue::as_map(std::vector<std::string> known_keys) const {
  if (!node_.IsMap()) {
    if (known_keys.empty()) fail(fmt::format("expected a mapping, got {}", text()));
    fail(fmt::format("expected a mapping with keys {}, got {}", join(known_keys), text()));
  }
  std::vector<YamlMap::Entry> entries;
  std::map<std::string, int> first_line;
  for (const auto& pair : node_) {
    if (!pair.first.IsScalar()) {
      YamlValue(pair.first, file_, path_, location())
          .fail(fmt::format("expected a scalar key, got {}",
                            YamlValue(pair.first, file_, "").text()));
    }
    const std::string& name = pair.first.Scalar();
    const std::string child = path_.empty() ? name : fmt::format("{}.{}", path_, name);
    const YamlValue key_at_child(pair.first, file_, child, location());
    if (auto [it, inserted] = first_line.emplace(name, key_at_child.location().line); !inserted) {
      key_at_child.fail(
          fmt::format("duplicate key \"{}\" (first written at line {})", name, it->second));
    }
    entries.push_back(
        {key_at_child, YamlValue(pair.second, file_, child, key_at_child.location())});
  }
  return YamlMap(*this, std::move(entries), std::move(known_keys));
}

YamlMap YamlValue::as_open_map() const {
  return as_map({});
}

std::vector<YamlValue> YamlValue::as_sequence() const {
  if (!node_.IsSequence()) fail(fmt::format("expected a sequence [a, b, ...], got {}", text()));
  std::vector<YamlValue> out;
  std::size_t i = 0;
  for (const auto& element : node_) {
    out.emplace_back(element, file_, fmt::format("{}[{}]", path_, i++), location());
  }
  return out;
}

YamlMap::YamlMap(YamlValue self, std::vector<Entry> entries, std::vector<std::string> known_keys)
    : self_(std::move(self)), entries_(std::move(entries)), known_keys_(std::move(known_keys)) {
  if (known_keys_.empty()) return;  // open mapping
  for (const Entry& entry : entries_) {
    const std::string& name = entry.key.node().Scalar();
    if (std::find(known_keys_.begin(), known_keys_.end(), name) != known_keys_.end()) continue;
    std::string message =
        fmt::format("unknown key \"{}\"{}", name,
                    self_.path().empty() ? std::string() : fmt::format(" in {}", self_.path()));
    if (auto best = closest_match(name, known_keys_)) {
      message += fmt::format("; did you mean \"{}\"?", *best);
    }
    message += fmt::format(" valid keys: {}", join(known_keys_));
    throw ConfigError(entry.key.location(), fmt::format("{}: {}", entry.key.path(), message));
  }
}

std::optional<YamlValue> YamlMap::find(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key.node().Scalar() == key) return entry.value;
  }
  return std::nullopt;
}

YamlValue YamlMap::required(std::string_view key) const {
  if (auto value = find(key)) return *value;
  throw ConfigError(self_.location(),
                    fmt::format("missing required key \"{}\" ({})", key, child_path(key)));
}

std::string YamlMap::child_path(std::string_view key) const {
  return self_.path().empty() ? std::string(key) : fmt::format("{}.{}", self_.path(), key);
}

void require_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw ConfigError(SourceLocation{file, 0, 0},
                      fmt::format("cannot open \"{}\": no such file", file.string()));
  }
}

YamlValue load_yaml_file(const std::filesystem::path& file) {
  require_file(file);
  std::ifstream in(file);
  if (!in) {
    throw ConfigError(SourceLocation{file, 0, 0},
                      fmt::format("cannot open \"{}\" for reading", file.string()));
  }
  std::stringstream content;
  content << in.rdbuf();
  auto shared = std::make_shared<const std::filesystem::path>(file);
  try {
    YAML::Node root = YAML::Load(content.str());
    return YamlValue(root, shared, "", SourceLocation{file, 1, 1});
  } catch (const YAML::Exception& e) {
    const SourceLocation where = e.mark.is_null()
                                     ? SourceLocation{file, 0, 0}
                                     : SourceLocation{file, e.mark.line + 1, e.mark.column + 1};
    throw ConfigError(where, fmt::format("invalid YAML: {}", e.msg));
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates) {
  // A word that starts a candidate ("selene" for "selene-a100-80gb") is a likely abbreviation.
  if (word.size() >= 3) {
    for (const std::string& candidate : candidates) {
      if (candidate.starts_with(word)) return candidate;
    }
  }
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string join(std::span<const std::string> items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string join(std::span<const std::string_view> items, std::string_view separator) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace trainsim::inputs
