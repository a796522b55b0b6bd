//===- TextDiff.h - Line differences between two texts ----------*- C++ -*-===//
//
// What formatting changed, in the two forms its users need: a unified diff
// for `arecipe-fmt --check` (what a reviewer reads in CI), and line edits for
// an editor, which applies a format as a few replacements rather than a
// whole new buffer (the cursor and undo history stay where they were). The
// difference is the shortest edit script over lines (Myers' algorithm).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_FORMAT_TEXTDIFF_H
#define ARECIPE_FORMAT_TEXTDIFF_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace arecipe::format {

/// Replace lines [StartLine, EndLine) of the old text (0-based; equal for an
/// insertion) with NewText (whole lines, each ending in '\n' but perhaps the
/// last line of the new text).
struct LineEdit {
  unsigned StartLine;
  unsigned EndLine;
  std::string NewText;
};

/// The edits that turn Old into New, in increasing line order and not
/// overlapping; none when the texts are equal.
std::vector<LineEdit> diffLines(llvm::StringRef Old, llvm::StringRef New);

/// A unified diff (`diff -u` format, Context lines around each change) from
/// Old, labelled OldLabel, to New, labelled NewLabel; empty when the texts
/// are equal.
std::string unifiedDiff(llvm::StringRef Old, llvm::StringRef New,
                        llvm::StringRef OldLabel, llvm::StringRef NewLabel,
                        unsigned Context = 3);

} // namespace arecipe::format

#endif // ARECIPE_FORMAT_TEXTDIFF_H
