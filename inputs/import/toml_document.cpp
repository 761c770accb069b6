// The torchtitan importer's TOML layer: toml++'s parse with located errors, a pre-scan that
// keeps toml++ out of deep recursion, values rendered as TOML writes them, and TomlDocument's
// typed reads that remember what was read.
#include "inputs/import/toml_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>

namespace trainsim::inputs::import::detail {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxKeyDots = 16;        // dots in one dotted key (torchtitan's: 2)
constexpr int kMaxInlineDepth = 16;    // inline tables inside inline tables
constexpr std::size_t kMaxShown = 80;  // characters of a value quoted in a message

}  // namespace

// ---------------------------------------------------------------------------------------
// Text as it may appear in a message or a YAML comment: one line, printable.

/// `s` with control characters and the Unicode line breaks escaped, cut at kMaxShown
/// characters (on a UTF-8 boundary).
std::string escaped(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= kMaxShown) {
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    const auto next = [&](std::size_t k) {
      return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
    };
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02X}", c);
    } else if (c == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) {  // C1 controls (NEL)
      out += fmt::format("\\u{:04X}", next(1));
      ++i;
    } else if (c == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) {
      out += fmt::format("\\u20{:02X}", next(2) - 0x80);  // U+2028, U+2029
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// A float as TOML and YAML write it: "1.0", "0.0003", "1e-08", "inf", "nan".
std::string number_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string out = fmt::format("{}", d);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

namespace {

std::string quote(std::string_view s) {
  return fmt::format("\"{}\"", escaped(s));
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
std::string key_text(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  return bare ? std::string(key) : quote(key);
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

/// A value as TOML writes it, shortened: arrays and tables show their first elements.
std::string render(const toml::node& node, int depth = 0) {
  if (const auto* s = node.as_string()) return quote(s->get());
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) return number_text(f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* a = node.as_array()) {
    if (depth >= 4) return "[...]";
    std::string out = "[";
    for (std::size_t k = 0; k < a->size(); ++k) {
      if (k == 8 || out.size() > kMaxShown) {
        out += ", ...";
        break;
      }
      out += (k == 0 ? "" : ", ") + render(*a->get(k), depth + 1);
    }
    return out + "]";
  }
  if (const auto* t = node.as_table()) {
    if (depth >= 4) return "{...}";
    std::string out = "{";
    std::size_t k = 0;
    for (const auto& [key, value] : *t) {
      if (k == 8 || out.size() > kMaxShown) {
        out += ", ...";
        break;
      }
      out += fmt::format("{}{} = {}", k++ == 0 ? "" : ", ", key_text(key.str()),
                         render(value, depth + 1));
    }
    return out + "}";
  }
  std::ostringstream os;  // dates and times
  if (const auto* d = node.as_date()) os << *d;
  if (const auto* t = node.as_time()) os << *t;
  if (const auto* dt = node.as_date_time()) os << *dt;
  return escaped(os.str());
}
// ---------------------------------------------------------------------------------------
// Nesting guard. toml++ 3.3 recurses once per nested table while it builds and destroys a
// document, so a dotted key of 50 000 parts overflows the stack before any error can be
// thrown. torchtitan's keys nest three tables deep ([quantize.linear.float8]); a key with more
// than kMaxKeyDots dots or inline tables nested deeper than kMaxInlineDepth is rejected first.
// The scan only needs to agree with TOML up to the first syntax error: toml++ stops there.

void check_nesting(std::string_view text, const fs::path& file) {
  int line = 1;
  std::size_t line_start = 0;
  int dots = 0;    // dots in the current run of key characters
  int braces = 0;  // open inline tables
  const auto fail = [&](std::size_t at, std::string message) {
    throw ConfigError({file, line, static_cast<int>(at - line_start + 1)}, message);
  };
  const auto newline = [&](std::size_t at) {
    ++line;
    line_start = at + 1;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      newline(i);
      dots = 0;
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      dots = 0;
    } else if (text.substr(i, 3) == R"(""")" || text.substr(i, 3) == "'''") {
      const std::string_view close = text.substr(i, 3);
      for (i += 3; i < text.size() && text.substr(i, 3) != close; ++i) {
        if (c == '"' && text[i] == '\\' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') newline(i);
      }
      i = std::min(text.size(), i + 3);
      dots = 0;
    } else if (c == '"' || c == '\'') {  // a one-line string: a quoted key part or a value
      for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
        if (c == '"' && text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
      }
      if (i < text.size() && text[i] == c) ++i;
    } else if (c == '.') {
      if (++dots > kMaxKeyDots) {
        fail(i, fmt::format("a dotted key of more than {} parts: torchtitan's keys nest at most "
                            "3 sections deep ([quantize.linear.float8])",
                            kMaxKeyDots + 1));
      }
      ++i;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == ' ' || c == '\t') {
      ++i;
    } else {
      if (c == '{' && ++braces > kMaxInlineDepth) {
        fail(i, fmt::format("inline tables nested more than {} deep: torchtitan's configs use "
                            "[section] tables",
                            kMaxInlineDepth));
      }
      if (c == '}' && braces > 0) --braces;
      dots = 0;
      ++i;
    }
  }
}
}  // namespace

toml::table parse_toml(std::string_view text, const fs::path& file) {
  check_nesting(text, file);
  try {
    return toml::parse(text, std::string_view(file.string()));
  } catch (const toml::parse_error& e) {
    throw ConfigError(
        {file, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
        fmt::format("not valid TOML: {}", e.description()));
  }
}

// ---------------------------------------------------------------------------------------
// TomlDocument

const toml::node* TomlDocument::node(std::string_view path) {
  const toml::node* at = &root_;
  std::string walked;
  std::string_view rest = path;
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    const std::string_view part = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    const toml::table* table = at->as_table();
    if (table == nullptr) {
      throw ConfigError(where(*at), fmt::format("{} = {}: expected a table ([{}] section), "
                                                "not {}",
                                                walked, render(*at), walked, type_name(*at)));
    }
    if (!walked.empty()) walked += '.';
    walked += part;
    at = table->get(part);
    if (at == nullptr) return nullptr;
  }
  read_.insert(std::string(path));
  return at;
}

Setting TomlDocument::find(std::initializer_list<std::string_view> names) {
  Setting found;
  for (const std::string_view name : names) {
    const toml::node* n = node(name);
    if (n == nullptr) continue;
    if (found.node != nullptr) {
      throw ConfigError(where(*n), fmt::format("{} = {}: the same setting as {} = {} (its "
                                               "name in another torchtitan version); keep one",
                                               name, render(*n), found.path, render(*found.node)));
    }
    found = {std::string(name), n};
  }
  if (found.node == nullptr) found.path = std::string(*names.begin());
  return found;
}

SourceLocation TomlDocument::where(const toml::node& n) const {
  return {file_, static_cast<int>(n.source().begin.line),
          static_cast<int>(n.source().begin.column)};
}

SourceLocation TomlDocument::where(const Setting& s) const {
  return s.node != nullptr ? where(*s.node) : SourceLocation{file_, 0, 0};
}

std::string TomlDocument::origin(const Setting& s) const {
  return fmt::format("{} = {} ({}:{})", s.path, render(*s.node), file_.filename().string(),
                     s.node->source().begin.line);
}

void TomlDocument::fail(const Setting& s, std::string_view expected) const {
  if (s.node == nullptr) throw ConfigError(where(s), fmt::format("{}: {}", s.path, expected));
  throw ConfigError(where(s), fmt::format("{} = {}: {}", s.path, render(*s.node), expected));
}

std::int64_t TomlDocument::integer(const Setting& s, std::int64_t min, std::int64_t max,
                                   std::string_view meaning) const {
  const auto* v = s.node->as_integer();
  if (v == nullptr || v->get() < min || v->get() > max) {
    fail(s, fmt::format("expected an integer from {} to {} ({}){}", min, max, meaning,
                        v == nullptr ? fmt::format(", not {}", type_name(*s.node)) : ""));
  }
  return v->get();
}

bool TomlDocument::boolean(const Setting& s) const {
  const auto* v = s.node->as_boolean();
  if (v == nullptr) fail(s, fmt::format("expected true or false, not {}", type_name(*s.node)));
  return v->get();
}

std::string TomlDocument::string(const Setting& s, std::string_view expected) const {
  const auto* v = s.node->as_string();
  if (v == nullptr) fail(s, fmt::format("expected {}, not {}", expected, type_name(*s.node)));
  return v->get();
}

std::string TomlDocument::choice(const Setting& s,
                                 std::initializer_list<std::string_view> choices) const {
  std::string valid;
  for (const std::string_view c : choices)
    valid += fmt::format("{}\"{}\"", valid.empty() ? "" : ", ", c);
  const std::string v = string(s, "a string: " + valid);
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    fail(s, fmt::format("expected one of {}", valid));
  }
  return v;
}

double TomlDocument::number(const Setting& s, double min, std::string_view meaning) const {
  double d = 0;
  if (const auto* f = s.node->as_floating_point()) {
    d = f->get();
  } else if (const auto* i = s.node->as_integer()) {
    d = static_cast<double>(i->get());
  } else {
    fail(s, fmt::format("expected a number >= {} ({}), not {}", min, meaning, type_name(*s.node)));
  }
  if (!std::isfinite(d) || d < min) {
    fail(s, fmt::format("expected a finite number >= {} ({})", min, meaning));
  }
  return d;
}

std::vector<std::string> TomlDocument::strings(const Setting& s, std::string_view meaning) const {
  const auto* a = s.node->as_array();
  std::vector<std::string> out;
  if (a != nullptr) {
    for (const toml::node& e : *a) {
      if (const auto* v = e.as_string()) {
        out.push_back(v->get());
      } else {
        a = nullptr;
        break;
      }
    }
  }
  if (a == nullptr) fail(s, fmt::format("expected an array of strings ({})", meaning));
  return out;
}

std::vector<Setting> TomlDocument::unread(std::string_view section) const {
  std::vector<Setting> out;
  const toml::node* at = section.empty() ? &root_ : lookup(section);
  if (at == nullptr || read_.contains(section)) return out;
  if (const toml::table* t = at->as_table()) {
    collect(*t, std::string(section), 0, out);
  } else {
    out.push_back({std::string(section), at});
  }
  std::stable_sort(out.begin(), out.end(), [](const Setting& a, const Setting& b) {
    const auto& x = a.node->source().begin;
    const auto& y = b.node->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return out;
}

const toml::node* TomlDocument::lookup(std::string_view path) const {
  const toml::node* at = &root_;
  std::string_view rest = path;
  while (!rest.empty() && at != nullptr) {
    const std::size_t dot = rest.find('.');
    const toml::table* table = at->as_table();
    if (table == nullptr) return nullptr;
    at = table->get(rest.substr(0, dot));
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  }
  return at;
}

void TomlDocument::collect(const toml::table& table, const std::string& prefix, int depth,
                           std::vector<Setting>& out) const {
  for (const auto& [key, value] : table) {
    std::string path = prefix.empty() ? key_text(key.str()) : prefix + "." + key_text(key.str());
    if (read_.contains(path)) continue;
    if (const toml::table* sub = value.as_table(); sub != nullptr && depth < 8) {
      collect(*sub, path, depth + 1, out);
    } else {
      out.push_back({std::move(path), &value});
    }
  }
}

}  // namespace trainsim::inputs::import::detail
