//===- Doc.h - A layout document and its printer ---------------*- C++ -*-===//
//
// The formatter builds one Doc per file and prints it at a column limit, in
// the manner of Wadler's "prettier printer" (and of the JavaScript
// formatter of that name): text, line breaks that a group takes either all
// or none of, nesting, and two things comments need. A trailing line comment
// is a line suffix: it goes at the end of the line its token is on, and a
// group that would put more code after it on that line breaks instead. An
// own-line comment breaks every group around it (breakParent).
//
// Docs live in a DocArena and are referred to by index; they are built once
// and printed once.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_FORMAT_DOC_H
#define ARECIPE_LIB_FORMAT_DOC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace arecipe::format {

using Doc = unsigned;

class DocArena {
public:
  /// Doc 0 is the empty text, so 0 can stand for "no doc" too.
  DocArena() { text(""); }

  enum class Kind : uint8_t {
    Text,        ///< Str, on one line (may be empty)
    Verbatim,    ///< Str with line breaks (a multi-line block comment)
    Concat,      ///< Kids, one after another
    Line,        ///< a space, or a line break when its group breaks
    SoftLine,    ///< nothing, or a line break when its group breaks
    HardLine,    ///< always a line break (and breaks every enclosing group)
    Group,       ///< Kids[0] flat if it fits, else broken
    Nest,        ///< Kids[0] with the indentation increased by N
    IfBreak,     ///< Kids[0] when the enclosing group breaks, else Kids[1]
    LineSuffix,  ///< Str (a line comment) at the end of the current line
    BreakParent, ///< breaks every enclosing group
    AlignLine,   ///< spaces up to column N (at least one), or a line break
                 ///< to column N when its group breaks
    LineStart,   ///< a line break unless nothing but indentation is on the
                 ///< current line (an own-line comment starts a line)
    Fill,        ///< Kids alternate content and separators (Line); each
                 ///< separator breaks only if the next content does not fit
  };

  Doc text(llvm::StringRef S);
  /// Text that may go before a pending trailing comment on its line (the
  /// comma the layout adds after the last element of a broken list: it
  /// belongs before the element's comment, not on a line of its own).
  Doc addedComma();
  Doc verbatim(llvm::StringRef S);
  Doc concat(llvm::ArrayRef<Doc> Kids);
  Doc line() { return make(Kind::Line); }
  Doc softLine() { return make(Kind::SoftLine); }
  Doc hardLine() { return make(Kind::HardLine); }
  Doc group(Doc D);
  Doc nest(int N, Doc D);
  Doc ifBreak(Doc Broken, Doc Flat);
  Doc lineSuffix(llvm::StringRef Comment);
  Doc breakParent() { return make(Kind::BreakParent); }
  Doc alignLine(unsigned Column);
  Doc lineStart() { return make(Kind::LineStart); }
  Doc fill(llvm::ArrayRef<Doc> Kids);
  Doc empty() { return text(""); }

  /// The width of D printed flat on one line, or none if D cannot be flat
  /// (a hard line break, an own-line comment, or code after a trailing line
  /// comment). A line suffix at the very end is allowed and not counted.
  std::optional<unsigned> flatWidth(Doc D) const;

  /// One line of output: its code, and the trailing comment printed after
  /// it (empty if none), which the caller aligns.
  struct OutputLine {
    std::string Code;
    std::string Comment;
  };

  /// Prints D at ColumnLimit: every group is flat if it fits in what is left
  /// of its line, else broken. Trailing whitespace is never written.
  std::vector<OutputLine> print(Doc D, unsigned ColumnLimit);

private:
  struct Node {
    Kind K = Kind::Text;
    bool Broken = false; ///< Group: contains a forced break.
    bool Added = false;  ///< Text: may precede a pending line suffix.
    int N = 0;
    std::string Str;
    std::vector<Doc> Kids;
  };
  friend class Printer;

  Doc make(Kind K) {
    Nodes.emplace_back();
    Nodes.back().K = K;
    return static_cast<Doc>(Nodes.size() - 1);
  }
  /// Marks every group that contains a forced break as broken; returns
  /// whether D contains one.
  bool propagateBreaks(Doc D, std::vector<signed char> &Memo);

  std::vector<Node> Nodes;
};

/// The display width of S in columns: its code points (recipes are UTF-8;
/// non-ASCII only appears in strings and comments).
unsigned displayWidth(llvm::StringRef S);

} // namespace arecipe::format

#endif // ARECIPE_LIB_FORMAT_DOC_H
