// bash's $((...)) on 64-bit integers for the launch-script reader (shell_arithmetic.hpp).
#include "inputs/import/shell_arithmetic.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <limits>
#include <string>

namespace trainsim::inputs::import::detail {

namespace {

/// $((a)) evaluates a's value as an expression in turn (bash does); a chain this long is a loop.
constexpr int kMaxArithmeticRecursion = 32;
/// What one variable read inside $((...)) counts against the expansion budget.
constexpr std::size_t kArithmeticStepCost = 256;

/// $(( ... )) on 64-bit integers, wrapping as bash does: + - * / % and parentheses, unary minus
/// and plus, numbers (decimal, 0x hex, leading-0 octal) and variable names, whose values are
/// evaluated as expressions in turn.
class Arithmetic {
 public:
  Arithmetic(std::string_view expression, Position where, Shell& shell, int recursion)
      : s_(expression), where_(where), shell_(shell), recursion_(recursion) {}

  std::int64_t evaluate() {
    skip_spaces();
    if (i_ == s_.size()) return 0;  // $(( )) is 0
    const std::int64_t value = sum(0);
    skip_spaces();
    if (i_ != s_.size())
      fail(fmt::format("has `{}` where an operator was expected", excerpt(s_.substr(i_), 10)));
    return value;
  }

 private:
  static std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }

  std::int64_t sum(int depth) {
    std::int64_t value = product(depth);
    while (true) {
      skip_spaces();
      if (i_ == s_.size() || (s_[i_] != '+' && s_[i_] != '-')) return value;
      const char op = s_[i_++];
      const auto rhs = static_cast<std::uint64_t>(product(depth));
      const auto lhs = static_cast<std::uint64_t>(value);
      value = wrap(op == '+' ? lhs + rhs : lhs - rhs);
    }
  }

  std::int64_t product(int depth) {
    std::int64_t value = unary(depth);
    while (true) {
      skip_spaces();
      if (i_ == s_.size() || std::string_view("*/%").find(s_[i_]) == std::string_view::npos ||
          (s_[i_] == '*' && i_ + 1 < s_.size() && s_[i_ + 1] == '*'))
        return value;
      const char op = s_[i_++];
      const std::int64_t rhs = unary(depth);
      if (op == '*') {
        value = wrap(static_cast<std::uint64_t>(value) * static_cast<std::uint64_t>(rhs));
      } else if (rhs == 0) {
        fail("divides by zero", false);
      } else if (value == std::numeric_limits<std::int64_t>::min() && rhs == -1) {
        value = op == '/' ? value : 0;  // the one quotient beyond 64 bits wraps
      } else {
        value = op == '/' ? value / rhs : value % rhs;
      }
    }
  }

  std::int64_t unary(int depth) {
    if (depth > kMaxNesting) fail(fmt::format("nests more than {} deep", kMaxNesting));
    skip_spaces();
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) {
      const char op = s_[i_++];
      const std::int64_t v = unary(depth + 1);
      return op == '-' ? wrap(0 - static_cast<std::uint64_t>(v)) : v;
    }
    return primary(depth);
  }

  std::int64_t primary(int depth) {
    skip_spaces();
    if (i_ == s_.size()) fail("ends where a number, a variable or ( was expected");
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      const std::int64_t v = sum(depth + 1);
      skip_spaces();
      if (i_ == s_.size() || s_[i_] != ')') fail("has a ( without its )");
      ++i_;
      return v;
    }
    if (is_digit(c)) return number();
    if (is_name_start(c)) return variable();
    fail(fmt::format("has `{}` where a number, a variable or ( was expected", c));
  }

  std::int64_t number() {
    int base = 10;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      base = 16;
      i_ += 2;
    } else if (s_[i_] == '0') {
      base = 8;
    }
    const std::size_t start = i_;
    std::uint64_t value = 0;
    // 2^63 is allowed: it wraps to the most negative integer, so -9223372036854775808 reads.
    constexpr auto max = std::uint64_t{1} << 63;
    while (i_ < s_.size() && is_name_char(s_[i_])) {
      const char c = s_[i_];
      int digit = 99;
      if (is_digit(c)) digit = c - '0';
      if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit >= base)
        fail(fmt::format("has `{}`, not a base-{} number", excerpt(s_.substr(start), 24), base));
      if (value > (max - static_cast<std::uint64_t>(digit)) / static_cast<std::uint64_t>(base))
        fail(fmt::format("has {}, beyond 64-bit integers", excerpt(s_.substr(start), 24)), false);
      value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
      ++i_;
    }
    if (i_ == start) fail("has 0x without hex digits");
    if (i_ < s_.size() && s_[i_] == '#') fail("has base#number, which the importer does not read");
    return wrap(value);
  }

  std::int64_t variable() {
    std::string name;
    while (i_ < s_.size() && is_name_char(s_[i_]))
      name.push_back(s_[i_++]);
    const Variable* v = shell_.find(name);
    if (v == nullptr || v->elements.empty()) {
      if (shell_.first_note_about(name))
        shell_.note(
            fmt::format("${} ({}): not set in the script, 0 in arithmetic (the "
                        "environment is not read)",
                        name, shell_.script().where(where_)));
      return 0;
    }
    const std::string& value = v->elements.front().chars();
    if (recursion_ + 1 > kMaxArithmeticRecursion)
      fail(fmt::format("refers to `{}` through more than {} variables (does it refer to itself?)",
                       name, kMaxArithmeticRecursion),
           false);
    // a='b+b' b='c+c' ... doubles the work per level: each evaluation counts against the budget.
    shell_.charge(kArithmeticStepCost + value.size(), where_);
    return Arithmetic(value, where_, shell_, recursion_ + 1).evaluate();
  }

  void skip_spaces() {
    while (i_ < s_.size() && (is_blank(s_[i_]) || s_[i_] == '\n'))
      ++i_;
  }

  /// `syntax`: the expression is outside the subset, so the message says what is inside it.
  [[noreturn]] void fail(const std::string& why, bool syntax = true) const {
    shell_.script().fail(
        where_, fmt::format("$(({})) {}{}", excerpt(s_), why,
                            syntax ? ": the importer evaluates integers with + - * / % and "
                                     "parentheses"
                                   : ""));
  }

  std::string_view s_;
  std::size_t i_ = 0;
  Position where_;
  Shell& shell_;
  int recursion_;
};

}  // namespace

std::int64_t evaluate_arithmetic(std::string_view expression, Position where, Shell& shell) {
  return Arithmetic(expression, where, shell, 0).evaluate();
}

}  // namespace trainsim::inputs::import::detail
