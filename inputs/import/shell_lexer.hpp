#pragma once
// Internal to inputs/import/: the launch script's characters into tokens for the bash reader
// (shell_script.cpp): words, arrays `NAME=( ... )`, operators, redirections and line breaks. A
// word keeps its structure (literal runs, quoted or not, and the expansions $NAME, ${...},
// $((...)), $(...), `...`) so that nothing is expanded before its statement runs.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import::detail {

struct RawWord;

enum class PieceKind { literal, parameter, arithmetic, substitution };
enum class Subscript { none, all_words, joined, index };  // ${A}, ${A[@]}, ${A[*]}, ${A[N]}

/// One part of a word as written: a literal run, or an expansion to do when its statement runs.
struct Piece {
  PieceKind kind = PieceKind::literal;
  bool quoted = false;  ///< in quotes or escaped: never split, and keeps an empty word
  Position where;
  Text text;  ///< literal: its characters
  // parameter: ${#NAME[subscript] op operand}
  std::string name;
  Subscript subscript = Subscript::none;
  std::size_t index = 0;
  bool length = false;
  std::string op;                ///< "", ":-", "-", ":=", "=", ":+", "+", ":?", "?"; "`" for `...`
  std::vector<RawWord> operand;  ///< parameter: the word after op; arithmetic: the expression
};

/// A word as written.
struct RawWord {
  std::vector<Piece> pieces;

  /// The text of a word written as one unquoted literal (`if`, `==`, `NAME=1`), else nothing.
  std::optional<std::string_view> plain() const {
    if (pieces.size() != 1 || pieces[0].kind != PieceKind::literal || pieces[0].quoted) return {};
    return std::string_view(pieces[0].text.chars());
  }
};

/// `NAME=value` or `NAME+=value` as written.
struct Assignment {
  std::string name;
  bool append = false;
  RawWord value;
};

/// The assignment a word spells, if its first piece is an unquoted `NAME=` or `NAME+=`.
std::optional<Assignment> as_assignment(const RawWord& word);

/// `NAME[...]=` as the start of a word: an array element assignment, outside the subset.
bool is_element_assignment(const RawWord& word);

enum class TokenKind { word, array, op, redirect, newline, end };

struct Token {
  TokenKind kind = TokenKind::end;
  Position where;
  std::string op;                 ///< op and redirect: ";", "&&", "|", "(", ">", "2>&", "<<"
  RawWord word;                   ///< word; array: its `NAME=` or `NAME+=`
  std::vector<RawWord> elements;  ///< array: the element words
};

/// Tokens on demand, one ahead. Throws ConfigError for an unterminated quote, expansion, array
/// or here-document, and for syntax outside the subset it can tell from the characters.
class Lexer {
 public:
  explicit Lexer(const Script& script) : script_(script), text_(script.text()) {}

  const Token& peek() {
    if (!peeked_) peeked_ = lex();
    return *peeked_;
  }
  Token next() {
    peek();
    Token t = std::move(*peeked_);
    peeked_.reset();
    return t;
  }
  Position position() const { return at_; }

 private:
  /// A here-document whose body starts at the next line break.
  struct Heredoc {
    std::string delimiter;
    bool strip_tabs = false;
    Position where;
  };

  // The cursor.
  bool at_end() const { return pos_ >= text_.size(); }
  char current(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool looking_at(std::string_view s) const { return text_.substr(pos_).starts_with(s); }
  char take() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++at_.line;
      at_.column = 1;
    } else {
      ++at_.column;
    }
    return c;
  }
  void skip_continuations();
  void skip_blanks();

  Token lex();
  Token read_operator();
  Token read_redirection(Position start, std::string number);
  std::string unterminated_heredoc(const Heredoc& h) const;
  void read_heredoc_bodies();
  std::vector<RawWord> read_array(Position open, const std::string& prefix);
  RawWord read_word(int depth);
  void read_word_char(RawWord& word, int depth);
  void read_single_quoted(RawWord& word);
  void read_double_quoted(RawWord& word, int depth);
  void check_depth(int depth) const;
  void read_dollar(RawWord& word, bool quoted, int depth);
  [[noreturn]] void unterminated_brace(Position open) const;
  void read_parameter(RawWord& word, bool quoted, int depth);
  void read_subscript(Piece& piece, Position open);
  RawWord read_operand(bool quoted, Position open, int depth);
  void read_arithmetic(RawWord& word, bool quoted, int depth);
  void read_substitution(RawWord& word, bool quoted);
  void read_backticks(RawWord& word, bool quoted);

  const Script& script_;
  std::string_view text_;
  std::size_t pos_ = 0;
  Position at_;
  std::optional<Token> peeked_;
  std::vector<Heredoc> heredocs_;
};

}  // namespace trainsim::inputs::import::detail
