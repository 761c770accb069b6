// `[` / `test` and `[[ ]]` evaluated for the launch-script reader (shell_test.hpp).
#include "inputs/import/shell_test.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string_view>
#include <utility>

#include "inputs/import/shell_arithmetic.hpp"

namespace trainsim::inputs::import::detail {

namespace {

/// Whether `text` matches a glob with * and ? (bracket expressions read literally).
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

/// Evaluates the string and integer tests of `[`/`test` and `[[`: -z -n = == != < > -eq -ne
/// -lt -le -gt -ge, ! ( ) and the connectives (-a -o in [ ], && || in [[ ]]). File tests are
/// taken as false, with a note: the importer does not look at the machine the script runs on.
class Test {
 public:
  Test(std::vector<TestArg> args, TestSyntax syntax, Position where, Shell& shell)
      : args_(std::move(args)), syntax_(syntax), where_(where), shell_(shell) {}

  bool evaluate() {
    if (args_.empty()) return false;
    const bool value = disjunction(0);
    if (i_ != args_.size()) malformed(args_[i_].where, fmt::format("unexpected `{}`", text(i_)));
    return value;
  }

 private:
  bool is(std::size_t i, std::string_view s) const {
    return i < args_.size() && args_[i].syntax && args_[i].text == s;
  }
  std::string text(std::size_t i) const { return excerpt(args_[i].text, 40); }
  [[noreturn]] static void malformed(Position at, std::string message) {
    throw MalformedTest{at, std::move(message)};
  }
  bool double_bracket() const { return syntax_ == TestSyntax::double_bracket; }

  bool disjunction(int depth) {
    bool value = conjunction(depth);
    while (is(i_, double_bracket() ? "||" : "-o")) {
      ++i_;
      const bool rhs = conjunction(depth);
      value = value || rhs;
    }
    return value;
  }
  bool conjunction(int depth) {
    bool value = negation(depth);
    while (is(i_, double_bracket() ? "&&" : "-a")) {
      ++i_;
      const bool rhs = negation(depth);
      value = value && rhs;
    }
    return value;
  }
  bool negation(int depth) {
    if (depth > kMaxNesting) malformed(where_, fmt::format("nests more than {} deep", kMaxNesting));
    if (is(i_, "!") && i_ + 1 < args_.size()) {
      ++i_;
      return !negation(depth + 1);
    }
    return primary(depth);
  }
  bool primary(int depth) {
    if (i_ >= args_.size()) malformed(where_, "ends where an operand was expected");
    if (is(i_, "(") && i_ + 1 < args_.size()) {
      ++i_;
      const bool value = disjunction(depth + 1);
      if (!is(i_, ")")) malformed(where_, "has a ( without its )");
      ++i_;
      return value;
    }
    if (i_ + 2 < args_.size() && is_binary(i_ + 1)) {
      const std::size_t left = i_;
      i_ += 3;
      return binary(args_[left], args_[left + 1].text, args_[left + 2]);
    }
    if (is_unary(i_) && i_ + 1 < args_.size()) {
      const std::size_t op = i_;
      i_ += 2;
      return unary(args_[op].text, args_[op + 1]);
    }
    return !args_[i_++].text.empty();
  }

  bool is_binary(std::size_t i) const {
    static const std::set<std::string, std::less<>> ops = {"=",   "==",  "!=",  "<",   ">",
                                                           "-eq", "-ne", "-lt", "-le", "-gt",
                                                           "-ge", "-nt", "-ot", "-ef", "=~"};
    return i < args_.size() && args_[i].syntax && ops.count(args_[i].text) > 0;
  }
  bool is_unary(std::size_t i) const {
    return i < args_.size() && args_[i].syntax && args_[i].text.size() == 2 &&
           args_[i].text[0] == '-' &&
           std::string_view("znvoaefdrwxsLhbcpSgukOGNt").find(args_[i].text[1]) !=
               std::string_view::npos;
  }

  bool unary(const std::string& op, const TestArg& operand) {
    if (op == "-z") return operand.text.empty();
    if (op == "-n") return !operand.text.empty();
    if (op == "-v") return shell_.find(operand.text) != nullptr;
    shell_.note(
        fmt::format("test {} {} ({}): the importer does not look at files or shell "
                    "options: taken as false",
                    op, excerpt(operand.text, 40), shell_.script().where(where_)));
    return false;
  }

  bool binary(const TestArg& left, const std::string& op, const TestArg& right) {
    if (op == "=" || op == "==" || op == "!=") {
      const bool equal = double_bracket() && right.pattern ? glob_match(right.text, left.text)
                                                           : left.text == right.text;
      return op == "!=" ? !equal : equal;
    }
    if (op == "<") return left.text < right.text;
    if (op == ">") return left.text > right.text;
    if (op == "=~")
      malformed(where_,
                "=~ (a regular expression) is not evaluated by the importer: compare "
                "with == or !=");
    if (op == "-nt" || op == "-ot" || op == "-ef") {
      shell_.note(fmt::format("test {} ({}): the importer does not look at files: taken as false",
                              op, shell_.script().where(where_)));
      return false;
    }
    const std::int64_t a = integer(left, op);
    const std::int64_t b = integer(right, op);
    if (op == "-eq") return a == b;
    if (op == "-ne") return a != b;
    if (op == "-lt") return a < b;
    if (op == "-le") return a <= b;
    if (op == "-gt") return a > b;
    return a >= b;  // -ge
  }

  /// In [[ ]] an integer operand is an arithmetic expression; in [ ] it must be an integer.
  std::int64_t integer(const TestArg& arg, const std::string& op) {
    if (double_bracket()) return evaluate_arithmetic(arg.text, arg.where, shell_);
    std::string_view s = arg.text;
    while (!s.empty() && is_blank(s.front()))
      s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back()))
      s.remove_suffix(1);
    const bool negative = !s.empty() && s.front() == '-';
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
    if (!is_digits(s) || s.size() > 18)
      malformed(arg.where, fmt::format("{} compares integers, and `{}` is not one", op,
                                       excerpt(arg.text, 40)));
    const std::int64_t value = std::stoll(std::string(s));
    return negative ? -value : value;
  }

  std::vector<TestArg> args_;
  TestSyntax syntax_;
  Position where_;
  Shell& shell_;
  std::size_t i_ = 0;
};

}  // namespace

bool evaluate_test(std::vector<TestArg> args, TestSyntax syntax, Position where, Shell& shell) {
  return Test(std::move(args), syntax, where, shell).evaluate();
}

}  // namespace trainsim::inputs::import::detail
