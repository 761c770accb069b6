// The bash reader's lexer (shell_lexer.hpp): characters into tokens, each word kept as the
// pieces it was written in; here-document bodies and $(...) are skipped, never run.
#include "inputs/import/shell_lexer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainsim::inputs::import::detail {

namespace {

void add_literal(RawWord& word, char c, Position at, bool quoted) {
  if (word.pieces.empty() || word.pieces.back().kind != PieceKind::literal ||
      word.pieces.back().quoted != quoted) {
    Piece piece;
    piece.quoted = quoted;
    piece.where = at;
    word.pieces.push_back(std::move(piece));
  }
  word.pieces.back().text.push_back(c, at);
}

/// Quotes with nothing inside were written here: the word exists ("" is an empty argument). A
/// quote holding an expansion is left to it ("${EMPTY[@]}" is no word at all).
void add_empty_quote(RawWord& word, Position at) {
  if (!word.pieces.empty() && word.pieces.back().kind == PieceKind::literal &&
      word.pieces.back().quoted)
    return;
  Piece piece;
  piece.quoted = true;
  piece.where = at;
  word.pieces.push_back(std::move(piece));
}

}  // namespace

/// The assignment a word spells, if its first piece is an unquoted `NAME=` or `NAME+=`.
std::optional<Assignment> as_assignment(const RawWord& word) {
  if (word.pieces.empty() || word.pieces[0].kind != PieceKind::literal || word.pieces[0].quoted)
    return {};
  const Text& first = word.pieces[0].text;
  const std::size_t eq = first.chars().find('=');
  if (eq == std::string::npos) return {};
  Assignment a;
  a.append = eq > 0 && first.chars()[eq - 1] == '+';
  a.name = first.chars().substr(0, a.append ? eq - 1 : eq);
  if (!is_name(a.name)) return {};
  if (eq + 1 < first.size()) {
    Piece rest;
    rest.where = first.position_at(eq + 1);
    rest.text.append(first, eq + 1);
    a.value.pieces.push_back(std::move(rest));
  }
  a.value.pieces.insert(a.value.pieces.end(), word.pieces.begin() + 1, word.pieces.end());
  return a;
}

/// `NAME[...]=` as the start of a word: an array element assignment, outside the subset.
bool is_element_assignment(const RawWord& word) {
  if (word.pieces.empty() || word.pieces[0].kind != PieceKind::literal || word.pieces[0].quoted)
    return false;
  const std::string& s = word.pieces[0].text.chars();
  const std::size_t bracket = s.find('[');
  return bracket != std::string::npos && is_name(std::string_view(s).substr(0, bracket)) &&
         s.find("]=", bracket) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Lexer

/// `\` and a line break join two lines (outside single quotes and comments).
void Lexer::skip_continuations() {
  while (looking_at("\\\n")) {
    take();
    take();
  }
}

/// Blanks, continuations and a comment (a `#` where a word would start).
void Lexer::skip_blanks() {
  while (true) {
    skip_continuations();
    if (at_end()) return;
    if (is_blank(current())) {
      take();
    } else if (current() == '#') {
      while (!at_end() && current() != '\n')
        take();
    } else {
      return;
    }
  }
}

Token Lexer::lex() {
  skip_blanks();
  Token t;
  t.where = at_;
  if (at_end()) {
    if (!heredocs_.empty())
      script_.fail(heredocs_.front().where, unterminated_heredoc(heredocs_.front()));
    return t;
  }
  const char c = current();
  if (c == '\n') {
    take();
    read_heredoc_bodies();
    t.kind = TokenKind::newline;
    return t;
  }
  if (c == '<' || c == '>') return read_redirection(t.where, "");
  if (std::string_view(";&|()").find(c) != std::string_view::npos) return read_operator();
  if (is_digit(c)) {
    std::size_t n = 0;
    while (is_digit(current(n)))
      ++n;
    if (current(n) == '<' || current(n) == '>') {
      std::string number;
      for (std::size_t k = 0; k < n; ++k)
        number.push_back(take());
      return read_redirection(t.where, number);
    }
  }
  t.kind = TokenKind::word;
  t.word = read_word(0);
  if (current() == '(' && t.word.plain() && t.word.plain()->ends_with("=") &&
      as_assignment(t.word)) {
    t.kind = TokenKind::array;
    t.elements = read_array(t.where, std::string(*t.word.plain()));
  }
  return t;
}

Token Lexer::read_operator() {
  Token t;
  t.where = at_;
  if (looking_at("&>")) {
    t.kind = TokenKind::redirect;
    t.op = looking_at("&>>") ? "&>>" : "&>";
    for (std::size_t k = 0; k < t.op.size(); ++k)
      take();
    return t;
  }
  static constexpr std::string_view ops[] = {";;&", ";;", ";&", "&&", "||", "|&",
                                             ";",   "&",  "|",  "(",  ")"};
  for (std::string_view op : ops) {
    if (!looking_at(op)) continue;
    for (std::size_t k = 0; k < op.size(); ++k)
      take();
    t.kind = TokenKind::op;
    t.op = op.starts_with(";;") || op == ";&" ? ";;" : std::string(op);
    return t;
  }
  t.kind = TokenKind::op;
  t.op = std::string(1, take());
  return t;
}

Token Lexer::read_redirection(Position start, std::string number) {
  static constexpr std::string_view ops[] = {"<<<", "<<-", "<<", "<>", "<&", "<(",
                                             "<",   ">>",  ">&", ">|", ">(", ">"};
  std::string_view op = ">";
  for (std::string_view candidate : ops) {
    if (looking_at(candidate)) {
      op = candidate;
      break;
    }
  }
  if (op == "<(" || op == ">(")
    script_.fail(start, fmt::format("process substitution {}...) is not followed by the "
                                    "importer: write the command's words out",
                                    op));
  for (std::size_t k = 0; k < op.size(); ++k)
    take();
  Token t;
  t.kind = TokenKind::redirect;
  t.where = start;
  t.op = number + std::string(op);
  if (op == "<<" || op == "<<-") {
    skip_blanks();
    if (at_end() || is_word_end(current()))
      script_.fail(start, "a here-document << needs its delimiter word after it (<<EOF)");
    const RawWord word = read_word(1);
    Heredoc h{"", op == "<<-", start};
    for (const Piece& p : word.pieces)
      if (p.kind == PieceKind::literal) h.delimiter += p.text.chars();
    heredocs_.push_back(std::move(h));
  }
  return t;
}

std::string Lexer::unterminated_heredoc(const Heredoc& h) const {
  return fmt::format("unterminated here-document: no line `{}` ends the << opened here",
                     excerpt(h.delimiter));
}

/// Skips the bodies of the here-documents opened on the line just ended.
void Lexer::read_heredoc_bodies() {
  for (const Heredoc& h : heredocs_) {
    while (true) {
      if (at_end()) script_.fail(h.where, unterminated_heredoc(h));
      const std::size_t start = pos_;
      while (!at_end() && current() != '\n')
        take();
      std::string_view line = text_.substr(start, pos_ - start);
      if (!at_end()) take();
      if (h.strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
      if (line == h.delimiter) break;
    }
  }
  heredocs_.clear();
}

/// The elements of `NAME=( ... )`: words across lines, with comments between them.
std::vector<RawWord> Lexer::read_array(Position open, const std::string& prefix) {
  take();  // (
  std::vector<RawWord> elements;
  while (true) {
    skip_blanks();
    if (current() == '\n') {
      take();
      read_heredoc_bodies();
      continue;
    }
    if (at_end())
      script_.fail(open, fmt::format("unterminated array: the ( of {}( opened here has no "
                                     "closing )",
                                     prefix));
    if (current() == ')') {
      take();
      break;
    }
    if (is_word_end(current()))
      script_.fail(at_, fmt::format("unexpected `{}` inside the array {}( ... ): elements are "
                                    "words, and ) closes the array",
                                    current(), prefix));
    elements.push_back(read_word(1));
  }
  if (!at_end() && !is_word_end(current()))
    script_.fail(at_, fmt::format("unexpected `{}` right after the ) that closes {}( ... ): "
                                  "put a space or a line break after it",
                                  current(), prefix));
  return elements;
}

/// An unquoted word up to a blank, a line break or an operator character.
RawWord Lexer::read_word(int depth) {
  RawWord word;
  const std::size_t start = pos_;
  while (true) {
    skip_continuations();
    if (at_end() || is_word_end(current())) break;
    read_word_char(word, depth);
  }
  if (pos_ == start) script_.fail(at_, fmt::format("unexpected `{}`", current()));
  return word;
}

/// One character of an unquoted word, or the quoted string or expansion it starts.
void Lexer::read_word_char(RawWord& word, int depth) {
  const Position at = at_;
  switch (current()) {
    case '\\':
      take();
      if (at_end()) {
        add_literal(word, '\\', at, false);
      } else {
        const Position escaped = at_;
        add_literal(word, take(), escaped, true);
      }
      return;
    case '\'':
      read_single_quoted(word);
      return;
    case '"':
      read_double_quoted(word, depth + 1);
      return;
    case '$':
      read_dollar(word, false, depth + 1);
      return;
    case '`':
      read_backticks(word, false);
      return;
    default:
      add_literal(word, take(), at, false);
  }
}

void Lexer::read_single_quoted(RawWord& word) {
  const Position open = at_;
  const std::size_t pieces = word.pieces.size();
  take();
  while (true) {
    if (at_end())
      script_.fail(open, "unterminated single quote: the ' opened here has no closing '");
    const Position at = at_;
    const char c = take();
    if (c == '\'') break;
    add_literal(word, c, at, true);
  }
  if (word.pieces.size() == pieces) add_empty_quote(word, open);
}

void Lexer::read_double_quoted(RawWord& word, int depth) {
  check_depth(depth);
  const Position open = at_;
  const std::size_t pieces = word.pieces.size();
  take();
  while (true) {
    skip_continuations();
    if (at_end())
      script_.fail(open, "unterminated double quote: the \" opened here has no closing \"");
    const Position at = at_;
    switch (current()) {
      case '"':
        take();
        if (word.pieces.size() == pieces) add_empty_quote(word, open);
        return;
      case '\\':
        take();
        if (!at_end() && std::string_view("$`\"\\").find(current()) != std::string_view::npos) {
          const Position escaped = at_;
          add_literal(word, take(), escaped, true);
        } else {
          add_literal(word, '\\', at, true);
        }
        break;
      case '$':
        read_dollar(word, true, depth + 1);
        break;
      case '`':
        read_backticks(word, true);
        break;
      default:
        add_literal(word, take(), at, true);
    }
  }
}

void Lexer::check_depth(int depth) const {
  if (depth > kMaxNesting)
    script_.fail(at_, fmt::format("quotes and expansions nested more than {} deep: the importer "
                                  "reads launch scripts, not generated puzzles",
                                  kMaxNesting));
}

/// `$` and what follows it.
void Lexer::read_dollar(RawWord& word, bool quoted, int depth) {
  check_depth(depth);
  const Position open = at_;
  if (looking_at("$((")) return read_arithmetic(word, quoted, depth);
  if (looking_at("$(")) return read_substitution(word, quoted);
  if (looking_at("${")) return read_parameter(word, quoted, depth);
  const char next = current(1);
  Piece piece;
  piece.kind = PieceKind::parameter;
  piece.quoted = quoted;
  piece.where = open;
  if (is_name_start(next)) {
    take();
    while (is_name_char(current()))
      piece.name.push_back(take());
  } else if (is_digit(next) || std::string_view("#@*?$!-").find(next) != std::string_view::npos) {
    take();
    piece.name = std::string(1, take());
  } else if (!quoted && next == '\'') {
    script_.fail(open,
                 "$'...' strings are not read by the importer: write the value in '...' "
                 "or \"...\"");
  } else if (!quoted && next == '"') {
    take();  // $"..." is "..." without a translation catalogue
    return;
  } else {
    add_literal(word, take(), open, quoted);
    return;
  }
  word.pieces.push_back(std::move(piece));
}

void Lexer::unterminated_brace(Position open) const {
  script_.fail(open, "unterminated ${: the ${ opened here has no closing }");
}

/// ${NAME}, ${#NAME}, ${NAME[@]}, ${NAME:-word} and the other operators of the subset.
void Lexer::read_parameter(RawWord& word, bool quoted, int depth) {
  const Position open = at_;
  take();
  take();
  Piece piece;
  piece.kind = PieceKind::parameter;
  piece.quoted = quoted;
  piece.where = open;
  if (current() == '#' && current(1) != '}' && pos_ + 1 < text_.size()) {
    take();
    piece.length = true;
  }
  if (current() == '!')
    script_.fail(open,
                 "${!...} (indirect expansion) is not followed by the importer: name the "
                 "variable directly");
  if (is_name_start(current())) {
    while (is_name_char(current()))
      piece.name.push_back(take());
  } else if (is_digit(current())) {
    while (is_digit(current()))
      piece.name.push_back(take());
  } else if (!at_end() && std::string_view("#@*?$!-").find(current()) != std::string_view::npos) {
    piece.name = std::string(1, take());
  } else if (at_end()) {
    unterminated_brace(open);
  } else {
    script_.fail(open, fmt::format("bad substitution: ${{ followed by `{}`; a ${{...}} starts "
                                   "with a variable name",
                                   current()));
  }
  if (current() == '[') read_subscript(piece, open);
  if (at_end() || current() == '\n') unterminated_brace(open);
  if (current() == '}') {
    take();
    word.pieces.push_back(std::move(piece));
    return;
  }
  for (std::string_view op : {":-", ":=", ":+", ":?", "-", "=", "+", "?"}) {
    if (looking_at(op)) {
      piece.op = std::string(op);  // not `= op`: GCC 12 at -O3 warns falsely (-Wrestrict)
      break;
    }
  }
  if (piece.op.empty() || piece.length)
    script_.fail(at_, fmt::format("${{{}{}...}} is not followed by the importer: it reads "
                                  "${{NAME}}, ${{#NAME}}, ${{NAME[@]}}, ${{NAME:-default}}, "
                                  "${{NAME-default}}, ${{NAME:=default}}, ${{NAME:+other}}",
                                  piece.name, current()));
  for (std::size_t k = 0; k < piece.op.size(); ++k)
    take();
  piece.operand.push_back(read_operand(quoted, open, depth + 1));
  word.pieces.push_back(std::move(piece));
}

void Lexer::read_subscript(Piece& piece, Position open) {
  take();  // [
  std::string index;
  while (!at_end() && current() != ']' && current() != '}' && current() != '\n')
    index.push_back(take());
  if (current() != ']') unterminated_brace(open);
  take();
  if (index == "@") {
    piece.subscript = Subscript::all_words;
  } else if (index == "*") {
    piece.subscript = Subscript::joined;
  } else if (is_digits(index) && index.size() <= 9) {
    piece.subscript = Subscript::index;
    piece.index = std::stoul(index);
  } else {
    script_.fail(open, fmt::format("array index [{}] is not followed by the importer: it reads "
                                   "${{NAME[@]}}, ${{NAME[*]}} and ${{NAME[N]}}",
                                   excerpt(index)));
  }
}

/// The word after a ${NAME op ...} operator, up to the closing }.
RawWord Lexer::read_operand(bool quoted, Position open, int depth) {
  check_depth(depth);
  RawWord word;
  while (true) {
    skip_continuations();
    if (at_end()) unterminated_brace(open);
    const Position at = at_;
    switch (current()) {
      case '}':
        take();
        return word;
      case '\\':
        take();
        if (at_end()) unterminated_brace(open);
        add_literal(word, take(), at, true);
        break;
      case '\'':
        if (quoted)
          add_literal(word, take(), at, true);
        else
          read_single_quoted(word);
        break;
      case '"':
        read_double_quoted(word, depth + 1);
        break;
      case '$':
        read_dollar(word, quoted, depth + 1);
        break;
      case '`':
        read_backticks(word, quoted);
        break;
      default:
        add_literal(word, take(), at, quoted);
    }
  }
}

/// $(( ... )): the expression is a word (its $-expansions run first), evaluated later.
void Lexer::read_arithmetic(RawWord& word, bool quoted, int depth) {
  const Position open = at_;
  for (int k = 0; k < 3; ++k)
    take();
  RawWord expression;
  int parentheses = 0;
  while (true) {
    skip_continuations();
    if (at_end()) script_.fail(open, "unterminated $((: the $(( opened here has no closing ))");
    const Position at = at_;
    const char c = current();
    if (c == ')' && parentheses == 0) {
      if (current(1) != ')')
        script_.fail(at,
                     "the $(( opened earlier is closed by a single ): arithmetic ends "
                     "with ))");
      take();
      take();
      break;
    }
    if (c == '$') {
      read_dollar(expression, true, depth + 1);
      continue;
    }
    if (c == '`') {
      read_backticks(expression, true);
      continue;
    }
    if (c == '(') ++parentheses;
    if (c == ')') --parentheses;
    add_literal(expression, take(), at, true);
  }
  Piece piece;
  piece.kind = PieceKind::arithmetic;
  piece.quoted = quoted;
  piece.where = open;
  piece.operand.push_back(std::move(expression));
  word.pieces.push_back(std::move(piece));
}

/// $( ... ): skipped (balanced parentheses, quotes respected), never run.
void Lexer::read_substitution(RawWord& word, bool quoted) {
  const Position open = at_;
  take();
  take();
  const auto unterminated = [&] {
    script_.fail(open, "unterminated $(: the $( opened here has no closing )");
  };
  int parentheses = 0;
  while (true) {
    if (at_end()) unterminated();
    const char c = take();
    if (c == '\\') {
      if (!at_end()) take();
    } else if (c == '\'') {
      while (!at_end() && current() != '\'')
        take();
      if (at_end()) unterminated();
      take();
    } else if (c == '"') {
      while (!at_end() && current() != '"') {
        if (take() == '\\' && !at_end()) take();
      }
      if (at_end()) unterminated();
      take();
    } else if (c == '(') {
      ++parentheses;
    } else if (c == ')') {
      if (parentheses-- == 0) break;
    }
  }
  Piece piece;
  piece.kind = PieceKind::substitution;
  piece.quoted = quoted;
  piece.where = open;
  piece.op = "$(";
  word.pieces.push_back(std::move(piece));
}

void Lexer::read_backticks(RawWord& word, bool quoted) {
  const Position open = at_;
  take();
  while (true) {
    if (at_end()) script_.fail(open, "unterminated backtick: the ` opened here has no closing `");
    const char c = take();
    if (c == '\\' && !at_end()) {
      take();
    } else if (c == '`') {
      break;
    }
  }
  Piece piece;
  piece.kind = PieceKind::substitution;
  piece.quoted = quoted;
  piece.where = open;
  piece.op = "`";
  word.pieces.push_back(std::move(piece));
}

}  // namespace trainsim::inputs::import::detail
