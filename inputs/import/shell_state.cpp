// The bash reader's shell state (shell_state.hpp): variables with a journal back to the
// training command, and the caps on word size and total expansion output.
#include "inputs/import/shell_state.hpp"

#include <fmt/format.h>

namespace trainsim::inputs::import::detail {

namespace {

/// One word or variable value.
constexpr std::size_t kMaxWordBytes = std::size_t{1} << 20;
/// Everything the script's expansions produce (characters and their positions), so that doubling
/// a variable on every line cannot exhaust memory.
constexpr std::size_t kMaxExpansionBytes = std::size_t{4} << 20;

}  // namespace

std::string Variable::joined() const {
  std::string s;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) s.push_back(' ');
    s += elements[i].chars();
  }
  return s;
}

void Shell::assign(const std::string& name, const Text& value, bool append, Position at) {
  remember(name, at);
  Variable& v = variables_[name];
  if (v.elements.empty()) v.elements.emplace_back();
  Text& target = v.elements.front();
  if (!append) target = Text();
  target.append(value);
  check_size(target, at);
  charge(value.cost(), at);
}

void Shell::assign_array(const std::string& name, std::vector<Text> elements, bool append,
                         Position at) {
  remember(name, at);
  Variable& v = variables_[name];
  if (!append) v.elements.clear();
  for (Text& e : elements) {
    charge(e.cost(), at);
    v.elements.push_back(std::move(e));
  }
}

void Shell::mark_exported(const std::string& name, Position at) {
  remember(name, at);
  if (const auto it = variables_.find(name); it != variables_.end()) it->second.exported = true;
}

void Shell::unset(const std::string& name, Position at) {
  remember(name, at);
  variables_.erase(name);
}

std::map<std::string, Variable> Shell::variables_at_mark() const {
  std::map<std::string, Variable> variables = variables_;
  for (auto it = journal_.rbegin(); it != journal_.rend(); ++it) {
    if (it->second)
      variables[it->first] = *it->second;
    else
      variables.erase(it->first);
  }
  return variables;
}

void Shell::charge(std::size_t bytes, Position at) {
  spent_ += bytes;
  if (spent_ > kMaxExpansionBytes)
    script_.fail(at, fmt::format("the script's expansions add up to more than {} MiB, far "
                                 "beyond a launch script's: the importer stops here",
                                 kMaxExpansionBytes >> 20));
}

void Shell::check_size(const Text& text, Position at) const {
  if (text.size() > kMaxWordBytes)
    script_.fail(at, fmt::format("a word or value expands to more than {} MiB: the importer "
                                 "stops here",
                                 kMaxWordBytes >> 20));
}

void Shell::remember(const std::string& name, Position at) {
  if (!marked_) return;
  const auto it = variables_.find(name);
  if (it == variables_.end()) {
    journal_.emplace_back(name, std::nullopt);
    return;
  }
  std::size_t bytes = sizeof(Variable) + name.size();
  for (const Text& e : it->second.elements)
    bytes += e.cost();
  charge(bytes, at);
  journal_.emplace_back(name, it->second);
}

}  // namespace trainsim::inputs::import::detail
