//===- Format.h - The canonical layout of .arecipe files --------*- C++ -*-===//
//
// arecipe-fmt's engine, callable on any buffer a SourceMgr holds (a file, or
// a language server's in-memory copy of one): it turns a recipe into its one
// canonical layout (docs/formatting.md), keeping every comment between the
// same two tokens, own-line comments on their own lines and trailing ones
// trailing. It never changes meaning, and says so only after checking it:
// formatBuffer re-parses its own output and refuses it (reporting an error,
// returning nothing) unless the syntax tree without locations is the
// input's, the comments and tokens come in the same order, and formatting
// the output again changes nothing. A buffer with syntax errors is refused
// with the parser's diagnostics, never half formatted.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_FORMAT_FORMAT_H
#define ARECIPE_FORMAT_FORMAT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace arecipe {
class DiagnosticEngine;
namespace ast {
class File;
} // namespace ast

namespace format {

/// The layout's one fixed number. It is not a user option: a canonical
/// layout that depended on a setting would not be canonical.
constexpr unsigned ColumnLimit = 100;

/// Parses buffer BufferID of SM and formats it. Syntax errors (and a
/// formatter that failed its own checks, which is a bug) are reported to
/// Diags, and the result is none. Warnings of the parser (an extra ';') are
/// reported too but do not stop formatting. AfterFormat, for tests only,
/// edits the formatted text before it is checked, to show that the checks
/// refuse a formatter that changed the meaning or moved a comment.
std::optional<std::string>
formatBuffer(const llvm::SourceMgr &SM, unsigned BufferID,
             DiagnosticEngine &Diags,
             llvm::function_ref<void(std::string &)> AfterFormat = nullptr);

/// The formatted text of F, parsed without errors from Text, or a
/// description of why the formatter could not lay it out (a bug). Unlike
/// formatBuffer it does not check its result.
std::optional<std::string> formatTree(llvm::StringRef Text, const ast::File &F,
                                      std::string &Error);

/// Why Formatted does not mean what Original means, or the empty string if
/// it does: Formatted parses without errors, its syntax tree without
/// locations equals Original's, and its comments and tokens come in the
/// same order (`;` separators and trailing commas aside) with every
/// comment still on a line of its own, or not, as in Original. Name is the
/// buffer name both are parsed under.
std::string checkSameMeaning(llvm::StringRef Original,
                             llvm::StringRef Formatted, llvm::StringRef Name);

} // namespace format
} // namespace arecipe

#endif // ARECIPE_FORMAT_FORMAT_H
