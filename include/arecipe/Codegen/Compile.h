//===- Compile.h - The compiler as a library -------------------*- C++ -*-===//
//
// One call from a recipe file to launch-plan JSON text: parse, analyse and
// lower, with every mistake reported through the caller's DiagnosticEngine.
// This is how tools other than arecipec (arecipe-run given a `.arecipe`)
// embed the compiler; it must not print, exit or read anything but the
// recipe and its imports.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_COMPILE_H
#define ARECIPE_CODEGEN_COMPILE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace arecipe {
class DiagnosticEngine;

namespace codegen {

struct CompileOptions {
  std::vector<std::string> IncludeDirs; ///< `-I DIR`
  std::string StdRoot;                  ///< the directory holding `std/`
  std::vector<std::string> Sets;        ///< `--set name=value`
  bool EvalMode = false;                ///< `--mode eval`
  std::string Recipe;                   ///< `--recipe NAME`; empty: all
};

/// Compiles the recipe at Path (added to SM as a buffer named Path) into
/// the launch plan's JSON text, byte for byte what `arecipec --emit plan`
/// writes. Returns nullopt after reporting to Diags; a file that cannot be
/// read is reported without a location.
std::optional<std::string> compileToPlanJSON(llvm::StringRef Path, const CompileOptions &Opts,
                                             llvm::SourceMgr &SM, DiagnosticEngine &Diags);

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_COMPILE_H
