//===- Sema.h - Semantic analysis of a recipe and its imports ---*- C++ -*-===//
//
// The entry point of semantic analysis (docs/sema.md): loads a parsed file's
// imports (relative paths, -I directories, the installed std/ directory),
// builds each file's scope, resolves names against closed knob sets, and
// evaluates every recipe into resolved cells (Cell.h) with exact values and
// provenance. Every mistake in user input goes to the DiagnosticEngine
// (collect and continue); the result is complete only when no error was
// reported. It never sees parse-tree types, renders no plan and runs
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_SEMA_H
#define ARECIPE_SEMA_SEMA_H

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace arecipe {
class DiagnosticEngine;
namespace ast {
class ASTContext;
class File;
} // namespace ast

namespace sema {

struct SemaOptions {
  /// `-I DIR`, searched in order after the importing file's directory.
  std::vector<std::string> IncludeDirs;
  /// The directory that contains `std/` (see findStdRoot); searched last.
  std::string StdRoot;
  /// `--set name=value`, in command-line order.
  std::vector<std::string> Sets;
};

/// The directory holding the standard library's `std/` folder: next to the
/// installed executable (`<prefix>/share/arecipe`), else the source tree
/// this compiler was built from. Argv0 and MainAddr locate the executable
/// as llvm::sys::fs::getMainExecutable does. Empty if neither exists.
std::string findStdRoot(const char *Argv0, void *MainAddr);

class SemaImpl;

/// One analysis: the main file, every file it imports, and the recipes'
/// cells. SM, Diags and Ctx must outlive it; imported files are added to SM
/// as buffers named by their import path as resolved ("std/engines/atom.arecipe"
/// for the std directory), so output never shows absolute paths that were
/// not written.
class Compilation {
public:
  Compilation(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
              ast::ASTContext &Ctx, SemaOptions Opts);
  ~Compilation();
  Compilation(const Compilation &) = delete;
  Compilation &operator=(const Compilation &) = delete;

  /// Analyzes the already parsed main file (buffer MainBufferID of SM).
  /// Returns false when an error was reported.
  bool run(unsigned MainBufferID, ast::File *MainFile);

  /// The recipes of the main file, in source order.
  llvm::ArrayRef<std::unique_ptr<RecipeCells>> recipes() const;

  const llvm::SourceMgr &getSourceMgr() const;

private:
  std::unique_ptr<SemaImpl> Impl;
};

/// One built-in function or constructor as docs/language.md §6.7 lists it.
struct BuiltinInfo {
  std::string Name;
  std::string Signature; ///< "(int, int) → int"
  std::string Doc;       ///< One line of markdown.
};

/// Every built-in function, then every constructor, in table order
/// (`arecipec --list-builtins`).
std::vector<BuiltinInfo> listBuiltins();

/// `--emit cells`: every recipe's cells as deterministic JSON (keys in a
/// fixed order, knobs sorted by name, one knob per line), each value with
/// its provenance `file:line:col` and level.
void emitCellsJSON(const Compilation &C, llvm::raw_ostream &OS);

/// `--explain KNOB --conc N [--arm A]`: the value of KNOB in cell N (of arm
/// A, needed when several arms have a cell N), the formula that defined it,
/// each operand's value and where it came from (recursively for derived
/// operands), and the assignments it shadowed. KNOB may name a role's value
/// (`prefill.tp`). Returns false (after reporting to Diags) when there is no
/// such cell or knob.
bool explainKnob(const Compilation &C, llvm::StringRef Knob, int64_t Conc,
                 llvm::StringRef Arm, llvm::raw_ostream &OS,
                 DiagnosticEngine &Diags);

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_SEMA_SEMA_H
