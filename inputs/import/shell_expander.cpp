// bash's expansion of words into fields for the launch-script reader (shell_expander.hpp).
#include "inputs/import/shell_expander.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

#include "inputs/import/shell_arithmetic.hpp"

namespace trainsim::inputs::import::detail {

/// Collects expansion output into fields with bash's word splitting, or into one text
/// (assignments and [[ ]] operands, which bash does not split).
class FieldBuilder {
 public:
  explicit FieldBuilder(bool split) : split_(split) {}

  /// A quote was written here: the current field survives being empty.
  void keep(Position at) {
    if (!current_.kept && current_.text.empty()) current_.kept_at = at;
    current_.kept = true;
  }
  /// Text from a quoted piece goes in whole; unquoted text splits at blanks and line breaks.
  void add(const Text& text, bool quoted) {
    if (!split_ || quoted) {
      current_.text.append(text);
      return;
    }
    const std::string& s = text.chars();
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
      if (i < s.size() && !is_blank(s[i]) && s[i] != '\n') continue;
      current_.text.append(text, begin, i);
      if (i < s.size()) delimit();
      begin = i + 1;
    }
  }
  /// Between the elements of "${A[@]}": each is a word of its own (a space when not splitting).
  void next_quoted_element(Position at) {
    if (!split_) return current_.text.append(Text::at(" ", at));
    fields_.push_back(std::move(current_));
    current_ = Field();
    keep(at);
  }
  /// Between the elements of an unquoted ${A[@]}: a non-empty field ends.
  void next_unquoted_element(Position at) {
    if (!split_) return current_.text.append(Text::at(" ", at));
    delimit();
  }
  const Text& current() const { return current_.text; }

  std::vector<Field> finish() {
    if (!split_) return {std::move(current_)};
    delimit();
    return std::move(fields_);
  }

 private:
  void delimit() {
    if (current_.text.empty() && !current_.kept) return;
    fields_.push_back(std::move(current_));
    current_ = Field();
  }
  bool split_;
  std::vector<Field> fields_;
  Field current_;
};

std::vector<Field> Expander::fields(const RawWord& word) {
  FieldBuilder out(true);
  expand(word, out);
  return out.finish();
}

Text Expander::text(const RawWord& word) {
  FieldBuilder out(false);
  expand(word, out);
  return std::move(out.finish().front().text);
}

void Expander::expand(const RawWord& word, FieldBuilder& out) {
  for (const Piece& piece : word.pieces)
    expand_piece(piece, out);
}

void Expander::emit(const Text& text, bool quoted, Position at, FieldBuilder& out) {
  shell_.charge(text.cost(), at);
  out.add(text, quoted);
  shell_.check_size(out.current(), at);
}

void Expander::expand_piece(const Piece& piece, FieldBuilder& out) {
  if (piece.quoted && piece.kind != PieceKind::parameter) out.keep(piece.where);
  switch (piece.kind) {
    case PieceKind::literal:
      emit(piece.text, piece.quoted, piece.where, out);
      return;
    case PieceKind::substitution:
      shell_.note(fmt::format("{} at {} not run: empty", piece.op == "`" ? "`...`" : "$(...)",
                              shell_.script().where(piece.where)));
      return;
    case PieceKind::arithmetic: {
      const Text expression = text(piece.operand.front());
      const std::int64_t value = evaluate_arithmetic(expression.chars(), piece.where, shell_);
      emit(Text::at(std::to_string(value), piece.where), piece.quoted, piece.where, out);
      return;
    }
    case PieceKind::parameter:
      expand_parameter(piece, out);
      return;
  }
}

void Expander::expand_parameter(const Piece& piece, FieldBuilder& out) {
  Lookup v = look_up(piece);
  // "${A[@]}" of an empty array is no word at all; every other quoted expansion is one.
  if (piece.quoted && !(v.multiple && !v.joined)) out.keep(piece.where);
  if (piece.length) {
    const std::size_t n = v.multiple ? v.values.size() : (v.set ? v.values[0].size() : 0);
    emit(Text::at(std::to_string(n), piece.where), piece.quoted, piece.where, out);
    return;
  }
  const bool null = v.values.empty() || (v.values.size() == 1 && v.values[0].empty());
  const bool missing = !v.set || (piece.op.starts_with(":") && null);
  switch (piece.op.empty() ? '\0' : piece.op.back()) {
    case '-':
      if (missing) return expand(piece.operand.front(), out);
      break;
    case '+':
      if (!missing) expand(piece.operand.front(), out);
      return;
    case '?':
      if (missing) {
        shell_.note(fmt::format("${} ({}): no value, empty (bash would stop the script here)",
                                piece.name, shell_.script().where(piece.where)));
        return;
      }
      break;
    case '=':
      if (missing) {
        if (!is_name(piece.name) || piece.subscript != Subscript::none)
          shell_.script().fail(piece.where,
                               fmt::format("${{{}{}...}} cannot assign: only a plain variable "
                                           "name can take a default this way",
                                           piece.name, piece.op));
        const Text value = text(piece.operand.front());
        shell_.assign(piece.name, value, false, piece.where);
        v = Lookup{true, false, false, {value}};
      }
      break;
    default:
      if (!v.set) note_unset(piece);
  }
  emit_values(piece, v, out);
}

void Expander::emit_values(const Piece& piece, const Lookup& v, FieldBuilder& out) {
  if (!v.multiple) {
    if (v.set) emit(v.values.front(), piece.quoted, piece.where, out);
    return;
  }
  if (piece.quoted && v.joined) {
    Text all;
    for (std::size_t i = 0; i < v.values.size(); ++i) {
      if (i > 0) all.append(Text::at(" ", piece.where));
      all.append(v.values[i]);
    }
    emit(all, true, piece.where, out);
    return;
  }
  for (std::size_t i = 0; i < v.values.size(); ++i) {
    if (i == 0 && piece.quoted) out.keep(piece.where);
    if (i > 0 && piece.quoted) out.next_quoted_element(v.values[i].position_at(0));
    if (i > 0 && !piece.quoted) out.next_unquoted_element(piece.where);
    emit(v.values[i], piece.quoted, piece.where, out);
  }
}

Expander::Lookup Expander::look_up(const Piece& piece) {
  Lookup r;
  const std::string& name = piece.name;
  if (name == "@" || name == "*") {  // no arguments are ever given
    r.set = true;
    r.multiple = true;
    r.joined = name == "*";
    return r;
  }
  r.multiple = piece.subscript == Subscript::all_words || piece.subscript == Subscript::joined;
  r.joined = piece.subscript == Subscript::joined;
  if (name == "0") {
    r.set = true;
    r.values.push_back(Text::at(shell_.script().file().string(), piece.where));
  } else if (name == "#" || name == "?") {
    r.set = true;
    const int value = name == "#" ? 0 : shell_.last_status;
    r.values.push_back(Text::at(std::to_string(value), piece.where));
  } else if (const Variable* var = is_name(name) ? shell_.find(name) : nullptr) {
    if (r.multiple) {
      r.set = true;
      r.values = var->elements;
    } else {
      const std::size_t i = piece.subscript == Subscript::index ? piece.index : 0;
      r.set = i < var->elements.size();
      if (r.set) r.values.push_back(var->elements[i]);
    }
    return r;
  }
  if (!r.set && r.multiple) r.set = true;  // an unset array expands to no words
  return r;
}

/// $1 (no arguments are given) and names the script never sets (the environment is not read).
void Expander::note_unset(const Piece& piece) {
  if (is_digits(piece.name)) {
    shell_.note(
        fmt::format("${} ({}): no value, empty", piece.name, shell_.script().where(piece.where)));
  } else if ((!is_name(piece.name) || shell_.find(piece.name) == nullptr) &&
             shell_.first_note_about(piece.name)) {
    shell_.note(
        fmt::format("${} ({}): not set in the script, empty (the environment is not "
                    "read)",
                    piece.name, shell_.script().where(piece.where)));
  }
}

}  // namespace trainsim::inputs::import::detail
