//===- Sema.h - Semantic analysis of a recipe and its imports ---*- C++ -*-===//
//
// The entry point of semantic analysis (docs/sema.md): takes a parsed file,
// loads what it imports through a ModuleLoader (the front end's search path
// and parser), builds each file's scope, resolves names against closed knob
// sets, and evaluates every recipe into resolved cells (Cell.h) with exact
// values and provenance. Every mistake in user input goes to the
// DiagnosticEngine (collect and continue); the result is complete only when
// no error was reported. It never sees parse-tree types, never opens a file
// or calls the parser, renders no plan and runs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_SEMA_H
#define ARECIPE_SEMA_SEMA_H

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace arecipe {
class DiagnosticEngine;
namespace ast {
class Expr;
class File;
} // namespace ast

namespace sema {

/// A parsed file, as Sema receives it.
struct SourceFile {
  unsigned BufferID = 0; ///< Its buffer in the SourceMgr.
  /// Its syntax tree; null when the parser refused the file as a whole.
  ast::File *AST = nullptr;
  /// Its canonical path: files with the same real path are one module.
  std::string RealPath;
};

/// Where the file an import names is (found by ModuleLoader::find).
struct ImportTarget {
  std::string Path;        ///< Where to read it.
  std::string RealPath;    ///< Canonical: how a second import is recognised.
  std::string DisplayName; ///< The SourceMgr buffer name, as output shows it.
};

/// How Sema reaches the files a recipe imports. The front end implements
/// it (search path, file system, parser): Sema never opens a file and never
/// parses. Sema asks find() first, loads a target whose real path it has
/// not loaded yet, and reports a missing import and import cycles itself.
class ModuleLoader {
public:
  virtual ~ModuleLoader();
  /// The file that `import "Target"` written in a file with real path
  /// ImporterRealPath and buffer name ImporterName refers to; nullopt when
  /// there is none (Sema then reports err_import_not_found).
  virtual std::optional<ImportTarget> find(llvm::StringRef Target,
                                           llvm::StringRef ImporterRealPath,
                                           llvm::StringRef ImporterName) = 0;
  /// Reads and parses T into a new buffer of the SourceMgr, named
  /// T.DisplayName and included from ImportRange. Reports a file that
  /// cannot be read at ImportRange and returns nullopt; syntax errors are
  /// reported and the (partial) tree returned.
  virtual std::optional<SourceFile> load(const ImportTarget &T,
                                         llvm::SMRange ImportRange) = 0;
};

/// One `--set name=value` option, already parsed by the front end: a
/// command-line assignment of Value to Name in every recipe.
struct SetOption {
  std::string Name;
  llvm::SMRange Range; ///< The whole option, in its own buffer.
  llvm::SMRange NameRange;
  const ast::Expr *Value = nullptr; ///< Null when the value did not parse.
};

struct SemaOptions {
  /// Required: imports are loaded through it. Must outlive the Compilation.
  ModuleLoader *Loader = nullptr;
};

class SemaImpl;

/// One analysis: the main file, every file it imports, and the recipes'
/// cells. SM and Diags must outlive it, as must the syntax trees it is
/// given; imported files are added to SM by the ModuleLoader.
class Compilation {
public:
  Compilation(llvm::SourceMgr &SM, DiagnosticEngine &Diags, SemaOptions Opts);
  ~Compilation();
  Compilation(const Compilation &) = delete;
  Compilation &operator=(const Compilation &) = delete;

  /// Loads Main and everything it imports, builds each file's scope and
  /// checks every declaration (engines, hardware, models, constants), used
  /// or not. Returns false when an error was reported.
  bool loadModules(const SourceFile &Main);
  /// Analyzes every recipe of the main file into cells, with the
  /// command-line assignments Sets (after loadModules). Returns false when
  /// an error was reported (here or before).
  bool analyze(std::vector<SetOption> Sets);

  /// The recipes of the main file, in source order.
  llvm::ArrayRef<std::unique_ptr<RecipeCells>> recipes() const;
  /// The main file and every file it imports (transitively), in the order
  /// they were loaded, main first: where a language server looks up the
  /// declaration a name refers to.
  std::vector<SourceFile> files() const;
  /// Every `at conc` block of the main file's recipes, in source order
  /// (AtConcInfo::Range says where each is).
  std::vector<const AtConcInfo *> atConcBlocks() const;

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

/// The `--explain` text of Knob in cell C of recipe R (one of C's recipes):
/// its value, the assignment that won, the formula, each operand with its
/// origin (recursively) and the assignments it shadowed in C. False, with
/// nothing written, when C has no value of that name. explainKnob prints
/// this for the cell it finds; a language server's hover prints it for the
/// cells under the cursor.
bool explainValue(const Compilation &C, const RecipeCells &R, const Cell &Cell,
                  llvm::StringRef Knob, llvm::raw_ostream &OS);

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_SEMA_SEMA_H
