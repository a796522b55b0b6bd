//===- CompilerInvocation.h - What one compilation is asked ----*- C++ -*-===//
//
// Everything that decides the result of compiling a recipe, as one value:
// the main file, the import search path (importing file's directory, -I
// directories, the std root), the `--set` overrides, the plan mode, the
// recipe to lower, the parser's limits and the error limit -- plus
// in-memory contents that replace files of given paths. A tool fills one
// from its command line; a tuner copies one and changes the overrides; an
// editor adds its unsaved buffers as Overrides. Nothing here reads a file
// or the environment: locating the std root (next to the executable, the
// install layout) is the tool's business, and its result is StdRoot.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_FRONTEND_COMPILERINVOCATION_H
#define ARECIPE_FRONTEND_COMPILERINVOCATION_H

#include "arecipe/Parse/Parser.h"

#include <map>
#include <string>
#include <vector>

namespace arecipe::frontend {

struct CompilerInvocation {
  /// The recipe to compile; "-" reads standard input (named `<stdin>`).
  /// Diagnostics and outputs name it exactly as written here.
  std::string MainFile;
  /// `-I DIR`, searched in order after the importing file's directory.
  std::vector<std::string> IncludeDirs;
  /// The directory that contains `std/`, searched last; empty: none.
  std::string StdRoot;
  /// `--set name=value`, in command-line order.
  std::vector<std::string> Sets;
  /// `--mode eval`: the recipe with `mode = eval` at the command-line
  /// level, so every knob that reads `mode` follows and the plan shows
  /// where the mode came from.
  bool EvalMode = false;
  /// `--recipe NAME`: lower only this recipe of the file; empty: all.
  std::string Recipe;
  parse::ParseLimits Limits;
  /// Errors kept before "too many errors emitted" (0: no limit).
  unsigned ErrorLimit = 20;
  /// Contents that replace the file at a path (an editor's unsaved buffer,
  /// a generated candidate). Keys are paths as imports and MainFile reach
  /// them; relative ones are taken from the current directory. A path
  /// here exists whether or not a file is on disk.
  std::map<std::string, std::string> Overrides;
};

} // namespace arecipe::frontend

#endif // ARECIPE_FRONTEND_COMPILERINVOCATION_H
