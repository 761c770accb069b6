#include "inputs/import/shell_script.hpp"

// Design: the script is read once, front to back, by parts that share the positions of a
// cursor (1-based line and column, columns counting bytes; shell_text.hpp):
//  - Lexer (shell_lexer.hpp): characters into tokens (words, arrays `NAME=( ... )`, operators,
//    redirections, line breaks). A word keeps its structure (literal runs, quoted or not, and
//    the expansions $NAME, ${...}, $((...)), $(...), `...`) so that nothing is expanded before
//    its statement runs.
//  - Interpreter (this file): a recursive-descent reader of lists, && and ||, pipelines, `if`
//    and simple commands that executes as it reads. A statement in a branch bash would skip is
//    parsed (its syntax errors are reported) but not run. Assignments, export/declare, `[`/`[[`
//    tests (shell_test.hpp) and the training command are the only effects; every other command
//    is taken to succeed.
//  - Expander (shell_expander.hpp): a word into fields, with bash's quoting and word-splitting
//    rules and $((...)) (shell_arithmetic.hpp), over the variables of the Shell
//    (shell_state.hpp). Every character keeps the position it was written at (Text), through
//    variables and arrays, so a word split out of `"--fp8-format hybrid"` points at its own
//    column.
// Hostile input is bounded: nesting depth, arithmetic recursion and the bytes all expansions
// produce are capped with ConfigErrors, and every loop of the lexer consumes input.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inputs/import/shell_expander.hpp"
#include "inputs/import/shell_lexer.hpp"
#include "inputs/import/shell_state.hpp"
#include "inputs/import/shell_test.hpp"
#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import {
namespace detail {
namespace {

bool is_closing_keyword(std::string_view w) {
  return w == "then" || w == "elif" || w == "else" || w == "fi" || w == "do" || w == "done" ||
         w == "esac" || w == "}";
}

bool is_declaration_builtin(std::string_view w) {
  return w == "export" || w == "declare" || w == "local" || w == "readonly" || w == "typeset";
}

/// Megatron's entry points: pretrain_gpt.py, /workspace/megatron/pretrain_mamba.py, ...
bool is_pretrain_script(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
  return base.size() >= std::string_view("pretrain.py").size() && base.starts_with("pretrain") &&
         base.ends_with(".py");
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::end:
      return "the end of the script";
    case TokenKind::newline:
      return "a line break";
    case TokenKind::op:
    case TokenKind::redirect:
      return fmt::format("`{}`", t.op);
    case TokenKind::word:
    case TokenKind::array:
      break;
  }
  if (const auto w = t.word.plain()) return fmt::format("`{}`", excerpt(*w, 40));
  return "a word";
}

class Interpreter {
 public:
  explicit Interpreter(const Script& script)
      : script_(script), lexer_(script), shell_(script), expand_(shell_) {}

  LaunchCommand run() {
    run_list(true, {}, 0);
    if (!found_)
      script_.fail(lexer_.position(),
                   fmt::format("no command running pretrain*.py in {}: the importer reads the "
                               "torchrun/python line that starts Megatron's pretraining script",
                               script_.file().filename().string()));
    LaunchCommand command = std::move(*found_);
    add_variables(command);
    command.notes.assign(shell_.notes().begin(),
                         shell_.notes().begin() + static_cast<std::ptrdiff_t>(notes_at_found_));
    return command;
  }

 private:
  /// How a list of commands ended: its last status and the keyword that closed it, if any.
  struct ListEnd {
    int status = 0;
    std::string closer;
    bool empty = true;
  };

  static std::optional<std::string_view> keyword(const Token& t) {
    if (t.kind != TokenKind::word) return {};
    return t.word.plain();
  }

  void skip_newlines() {
    while (lexer_.peek().kind == TokenKind::newline)
      lexer_.next();
  }

  /// Commands up to one of `closers` (consumed) or the end of the script.
  ListEnd run_list(bool active, std::initializer_list<std::string_view> closers, int depth) {
    ListEnd end;
    while (true) {
      skip_newlines();
      const Token& t = lexer_.peek();
      if (t.kind == TokenKind::end) return end;
      if (const auto kw = keyword(t); kw && is_closing_keyword(*kw)) {
        if (std::find(closers.begin(), closers.end(), *kw) == closers.end())
          script_.fail(t.where, unexpected_keyword(*kw, closers));
        end.closer = std::string(*kw);
        lexer_.next();
        return end;
      }
      end.status = run_and_or(active, depth);
      end.empty = false;
      const Token& s = lexer_.peek();
      if (s.kind == TokenKind::op && (s.op == ";" || s.op == "&")) {
        lexer_.next();
      } else if (s.kind != TokenKind::newline && s.kind != TokenKind::end &&
                 !(keyword(s) && is_closing_keyword(*keyword(s)))) {
        script_.fail(s.where, fmt::format("unexpected {}: commands are separated by ; or a line "
                                          "break",
                                          describe(s)));
      }
    }
  }

  static std::string unexpected_keyword(std::string_view kw,
                                        std::initializer_list<std::string_view> closers) {
    if (closers.size() == 0) {
      if (kw == "then" || kw == "elif" || kw == "else" || kw == "fi")
        return fmt::format("`{}` without a matching `if`", kw);
      return fmt::format(
          "unexpected `{}`: loops, case statements and {{ }} groups are not followed by the "
          "importer",
          kw);
    }
    std::string expected;
    for (std::string_view c : closers)
      expected += fmt::format("{}`{}`", expected.empty() ? "" : " or ", c);
    return fmt::format("unexpected `{}`: expected {}", kw, expected);
  }

  /// Pipelines joined by && and ||: the right side runs when bash would run it.
  int run_and_or(bool active, int depth) {
    int status = run_pipeline(active, depth);
    while (true) {
      const Token& t = lexer_.peek();
      if (t.kind != TokenKind::op || (t.op != "&&" && t.op != "||")) return status;
      const bool on_success = t.op == "&&";
      lexer_.next();
      skip_newlines();
      const bool run = active && ((status == 0) == on_success);
      const int next = run_pipeline(run, depth);
      if (run) status = next;
    }
  }

  int run_pipeline(bool active, int depth) {
    bool negate = false;
    if (keyword(lexer_.peek()) == "!") {
      lexer_.next();
      negate = true;
    }
    int status = run_command(active, depth);
    while (lexer_.peek().kind == TokenKind::op &&
           (lexer_.peek().op == "|" || lexer_.peek().op == "|&")) {
      lexer_.next();
      skip_newlines();
      status = run_command(active, depth);
    }
    if (negate) status = status == 0 ? 1 : 0;
    if (active) shell_.last_status = status;
    return status;
  }

  int run_command(bool active, int depth) {
    const Token& t = lexer_.peek();
    if (t.kind == TokenKind::op && t.op == "(")
      script_.fail(t.where,
                   "subshells ( ... ) and (( ... )) are not followed by the importer: "
                   "write the commands out");
    if (t.kind == TokenKind::op || t.kind == TokenKind::newline || t.kind == TokenKind::end)
      script_.fail(t.where, fmt::format("expected a command, found {}", describe(t)));
    const auto kw = keyword(t);
    if (kw == "if" || kw == "[[") {
      const int status = kw == "if" ? run_if(active, depth) : run_double_bracket(active);
      skip_redirections();
      return status;
    }
    if (kw == "for" || kw == "while" || kw == "until" || kw == "select")
      script_.fail(t.where, fmt::format("`{}` loops are not followed by the importer: write the "
                                        "flags out",
                                        *kw));
    if (kw == "case")
      script_.fail(t.where,
                   "`case` statements are not followed by the importer: write the flags "
                   "out");
    if (kw == "function")
      script_.fail(t.where, "functions are not followed by the importer: write the flags out");
    if (kw == "{")
      script_.fail(t.where,
                   "`{ ... }` command groups are not followed by the importer: write the "
                   "commands out");
    return run_simple(active);
  }

  /// if LIST; then LIST; [elif LIST; then LIST;]... [else LIST;] fi
  int run_if(bool active, int depth) {
    const Token open = lexer_.next();
    if (depth >= kMaxNesting)
      script_.fail(open.where, fmt::format("`if` blocks nested more than {} deep", kMaxNesting));
    const auto without = [&](std::string_view what) {
      script_.fail(open.where, fmt::format("`if` without `{}`: the if opened here is not closed "
                                           "before the end of the script",
                                           what));
    };
    bool done = false;  // a branch was taken
    int status = 0;
    ListEnd end{0, "elif", true};
    while (end.closer == "elif") {
      const ListEnd condition = run_list(active && !done, {"then"}, depth + 1);
      if (condition.closer.empty()) without("then");
      if (condition.empty) script_.fail(open.where, "`if` needs a condition before `then`");
      const bool take = active && !done && condition.status == 0;
      end = run_list(take, {"elif", "else", "fi"}, depth + 1);
      if (take) status = end.status;
      done = done || take;
    }
    if (end.closer == "else") {
      const bool take = active && !done;
      end = run_list(take, {"fi"}, depth + 1);
      if (take) status = end.status;
    }
    if (end.closer != "fi") without("fi");
    return status;
  }

  /// [[ ... ]]: operands are expanded without word splitting; && || ( ) < > are its own.
  int run_double_bracket(bool active) {
    const Token open = lexer_.next();
    std::vector<Token> tokens;
    while (true) {
      const Token& t = lexer_.peek();
      if (t.kind == TokenKind::end)
        script_.fail(open.where, "`[[` without `]]`: the test opened here is not closed");
      if (keyword(t) == "]]") {
        lexer_.next();
        break;
      }
      const bool own_operator = (t.kind == TokenKind::op &&
                                 (t.op == "&&" || t.op == "||" || t.op == "(" || t.op == ")")) ||
                                (t.kind == TokenKind::redirect && (t.op == "<" || t.op == ">"));
      if (t.kind == TokenKind::newline) {
        lexer_.next();
      } else if (t.kind == TokenKind::word || own_operator) {
        tokens.push_back(lexer_.next());
      } else {
        script_.fail(t.where, fmt::format("unexpected {} inside [[ ... ]]", describe(t)));
      }
    }
    if (!active) return 0;
    std::vector<TestArg> args;
    for (const Token& t : tokens) {
      TestArg arg;
      arg.where = t.where;
      if (t.kind != TokenKind::word) {
        arg.text = t.op;
      } else if (const auto plain = t.word.plain()) {
        arg.text = std::string(*plain);
        arg.pattern = arg.text.find_first_of("*?") != std::string::npos;
      } else {
        arg.text = expand_.text(t.word).chars();
        arg.syntax = false;
        for (const Piece& p : t.word.pieces)
          if (p.kind == PieceKind::literal && !p.quoted &&
              p.text.chars().find_first_of("*?") != std::string::npos)
            arg.pattern = true;
      }
      args.push_back(std::move(arg));
    }
    return test_status(std::move(args), TestSyntax::double_bracket, open.where);
  }

  int test_status(std::vector<TestArg> args, TestSyntax syntax, Position where) {
    try {
      return evaluate_test(std::move(args), syntax, where, shell_) ? 0 : 1;
    } catch (const MalformedTest& m) {
      if (syntax == TestSyntax::double_bracket)
        script_.fail(m.where, fmt::format("[[ ... ]] {}", m.message));
      shell_.note(fmt::format("[ ... ] at {} {}: bash prints an error and takes it as false",
                              script_.where(m.where), m.message));
      return 2;
    }
  }

  /// Redirections after a compound command (`fi > log`): dropped.
  void skip_redirections() {
    while (lexer_.peek().kind == TokenKind::redirect)
      skip_redirection();
  }
  void skip_redirection() {
    const Token r = lexer_.next();
    if (r.op.ends_with("<<") || r.op.ends_with("<<-")) return;  // the lexer read the delimiter
    if (lexer_.peek().kind != TokenKind::word)
      script_.fail(r.where, fmt::format("the redirection {} needs a file name after it", r.op));
    lexer_.next();
  }

  /// Words, assignments and redirections up to an operator or a line break.
  int run_simple(bool active) {
    std::vector<Token> words;
    while (true) {
      const Token& t = lexer_.peek();
      if (t.kind == TokenKind::word || t.kind == TokenKind::array) {
        words.push_back(lexer_.next());
        const Token& after = lexer_.peek();
        if (words.size() == 1 && words[0].kind == TokenKind::word && after.kind == TokenKind::op &&
            after.op == "(")
          script_.fail(words[0].where,
                       "functions are not followed by the importer: write the flags out");
      } else if (t.kind == TokenKind::redirect) {
        skip_redirection();
      } else {
        break;
      }
    }
    return active ? execute(words) : 0;
  }

  int execute(const std::vector<Token>& words) {
    std::size_t first = 0;  // the command word, after the assignments
    while (first < words.size() &&
           (words[first].kind == TokenKind::array || as_assignment(words[first].word)))
      ++first;
    if (first < words.size() && is_element_assignment(words[first].word))
      script_.fail(words[first].where,
                   "assigning one array element NAME[i]=value is not followed "
                   "by the importer: assign the whole array NAME=( ... )");
    if (first == words.size()) {
      for (const Token& w : words)
        assign(w, false);
      return 0;
    }
    if (const auto name = words[first].word.plain(); name && is_declaration_builtin(*name))
      return declare(*name, words, first + 1);
    std::vector<Field> fields;
    for (std::size_t i = first; i < words.size(); ++i) {
      if (words[i].kind == TokenKind::array)
        script_.fail(words[i].where,
                     "an array NAME=( ... ) is only an assignment, not a "
                     "command's argument");
      for (Field& f : expand_.fields(words[i].word))
        fields.push_back(std::move(f));
    }
    if (fields.empty()) {  // the command expanded to nothing: the assignments stay
      for (std::size_t i = 0; i < first; ++i)
        assign(words[i], false);
      return 0;
    }
    return run_builtin_or_command(fields, words, first);
  }

  int run_builtin_or_command(const std::vector<Field>& fields, const std::vector<Token>& words,
                             std::size_t first) {
    const std::string& name = fields[0].text.chars();
    const std::string where = script_.where(fields[0].where());
    if (name == "[" || name == "test") {
      std::vector<TestArg> args;
      for (std::size_t i = 1; i < fields.size(); ++i)
        args.push_back({fields[i].text.chars(), fields[i].where(), true, false});
      if (name == "[") {
        if (args.empty() || args.back().text != "]") {
          shell_.note(
              fmt::format("[ at {} has no closing ]: bash prints an error and takes it as "
                          "false",
                          where));
          return 2;
        }
        args.pop_back();
      }
      return test_status(std::move(args), TestSyntax::single_bracket, fields[0].where());
    }
    if (name == "true" || name == ":") return 0;
    if (name == "false") return 1;
    if (name == "unset") {
      for (std::size_t i = 1; i < fields.size(); ++i)
        if (!fields[i].text.chars().starts_with("-"))
          shell_.unset(fields[i].text.chars(), fields[i].where());
      return 0;
    }
    if (name == "exit" || name == "return") {
      shell_.note(
          fmt::format("`{}` at {} not followed: the importer reads on to the training "
                      "command",
                      name, where));
      return 0;
    }
    if (name == "source" || name == ".") {
      shell_.note(fmt::format("`{} {}` at {} not read: the variables it sets are unknown", name,
                              fields.size() > 1 ? excerpt(fields[1].text.chars()) : "", where));
      return 0;
    }
    const auto names_script = std::find_if(fields.begin(), fields.end(), [](const Field& f) {
      return is_pretrain_script(f.text.chars());
    });
    if (name == "eval") {
      if (names_script != fields.end())
        script_.fail(fields[0].where(),
                     "`eval` is not followed by the importer: write the "
                     "training command out");
      shell_.note(fmt::format("`eval` at {} not run", where));
      return 0;
    }
    if (name == "echo" || name == "printf" || names_script == fields.end()) return 0;
    record_training_command(fields, static_cast<std::size_t>(names_script - fields.begin()), words,
                            first);
    return 0;
  }

  /// export / declare / local / readonly / typeset: their arguments are assignments or names.
  int declare(std::string_view builtin, const std::vector<Token>& words, std::size_t first) {
    bool exported = builtin == "export";
    bool array = false;
    for (std::size_t i = first; i < words.size(); ++i) {
      if (words[i].kind == TokenKind::array || as_assignment(words[i].word)) {
        assign(words[i], exported);
        continue;
      }
      for (const Field& f : expand_.fields(words[i].word)) {
        const std::string& s = f.text.chars();
        if (s.size() > 1 && (s[0] == '-' || s[0] == '+')) {
          if (s[0] == '-' && s.find('x') != std::string::npos) exported = true;
          if (s[0] == '-' && s.find('a') != std::string::npos) array = true;
        } else if (is_name(s)) {
          if (array && shell_.find(s) == nullptr) shell_.assign_array(s, {}, false, f.where());
          if (exported) shell_.mark_exported(s, f.where());
        }
      }
    }
    return 0;
  }

  void assign(const Token& token, bool exported) {
    const std::optional<Assignment> a = as_assignment(token.word);
    if (!a) return;
    if (token.kind == TokenKind::array) {
      std::vector<Text> elements;
      for (const RawWord& element : token.elements)
        for (Field& f : expand_.fields(element))
          elements.push_back(std::move(f.text));
      shell_.assign_array(a->name, std::move(elements), a->append, token.where);
    } else {
      shell_.assign(a->name, expand_.text(a->value), a->append, token.where);
    }
    if (exported) shell_.mark_exported(a->name, token.where);
  }

  ShellWord shell_word(const Field& f) const {
    return {f.text.chars(), script_.location(f.where())};
  }

  void record_training_command(const std::vector<Field>& fields, std::size_t script,
                               const std::vector<Token>& words, std::size_t first) {
    LaunchCommand c;
    for (std::size_t i = 0; i < script; ++i)
      c.launcher.push_back(shell_word(fields[i]));
    c.script = shell_word(fields[script]);
    for (std::size_t i = script + 1; i < fields.size(); ++i)
      c.arguments.push_back(shell_word(fields[i]));
    environment_.clear();
    for (std::size_t i = 0; i < first; ++i) {  // NAME=value torchrun ...: in its environment
      const std::optional<Assignment> a = as_assignment(words[i].word);
      if (!a || words[i].kind == TokenKind::array) continue;
      std::string value = expand_.text(a->value).chars();
      if (const Variable* v = shell_.find(a->name); a->append && v != nullptr)
        value = v->joined() + value;
      environment_.emplace_back(a->name, std::move(value));
    }
    found_ = std::move(c);
    notes_at_found_ = shell_.notes().size();
    shell_.mark();
  }

  /// The variables and exports the training command saw.
  void add_variables(LaunchCommand& c) const {
    for (const auto& [name, variable] : shell_.variables_at_mark()) {
      std::string value = variable.joined();
      if (variable.exported) c.exported[name] = value;
      c.variables[name] = std::move(value);
    }
    for (const auto& [name, value] : environment_) {
      c.exported[name] = value;
      c.variables[name] = value;
    }
  }

  const Script& script_;
  Lexer lexer_;
  Shell shell_;
  Expander expand_;
  std::optional<LaunchCommand> found_;
  std::vector<std::pair<std::string, std::string>> environment_;  ///< found_'s NAME=value prefixes
  std::size_t notes_at_found_ = 0;
};

}  // namespace
}  // namespace detail

LaunchCommand parse_launch_script(std::string_view text, const std::filesystem::path& file) {
  const detail::Script script(text, file);
  return detail::Interpreter(script).run();
}

}  // namespace trainsim::inputs::import
