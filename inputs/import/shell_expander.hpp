#pragma once
// Internal to inputs/import/: words as bash expands them when their statement runs, for the
// launch-script reader (shell_script.cpp): parameters and arrays with the ${NAME op word}
// operators, $((...)), quoting and word splitting. $(...) and `...` are not run (empty, with a
// note); every character keeps the position it was written at.

#include <cstddef>
#include <string>
#include <vector>

#include "inputs/import/shell_lexer.hpp"
#include "inputs/import/shell_state.hpp"
#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import::detail {

/// One word of expansion output, and whether a quote keeps it when it is empty.
struct Field {
  Text text;
  bool kept = false;
  Position kept_at;
  Position where() const { return text.empty() ? kept_at : text.position_at(0); }
};

class FieldBuilder;

/// Expands words as bash would, with the shell's variables at the time of the call.
class Expander {
 public:
  explicit Expander(Shell& shell) : shell_(shell) {}

  /// The fields of `word`: split at blanks outside quotes; a word of nothing but an empty
  /// unquoted expansion is no field at all.
  std::vector<Field> fields(const RawWord& word);
  /// `word` as one text, not split (assignment values, [[ ]] operands).
  Text text(const RawWord& word);

 private:
  struct Lookup {
    bool set = false;
    bool multiple = false;  ///< ${A[@]}, ${A[*]}, $@, $*
    bool joined = false;    ///< ${A[*]}, $*
    std::vector<Text> values;
  };

  void expand(const RawWord& word, FieldBuilder& out);
  void emit(const Text& text, bool quoted, Position at, FieldBuilder& out);
  void expand_piece(const Piece& piece, FieldBuilder& out);
  void expand_parameter(const Piece& piece, FieldBuilder& out);
  void emit_values(const Piece& piece, const Lookup& v, FieldBuilder& out);
  Lookup look_up(const Piece& piece);
  void note_unset(const Piece& piece);

  Shell& shell_;
};

}  // namespace trainsim::inputs::import::detail
