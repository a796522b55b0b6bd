//===- CompilerInstance.h - One compilation, parse to plan -----*- C++ -*-===//
//
// The one way into the compiler. A CompilerInstance runs a
// CompilerInvocation through the pipeline -- read and parse the main file,
// load its imports through the search path (Sema's ModuleLoader), parse the
// `--set` values, analyse, lower to the launch plan -- and owns what that
// needs: the SourceMgr, the diagnostics engine, the syntax trees and Sema's
// result. arecipec (both compilations of `--against`), arecipe-run given a
// `.arecipe`, the fuzzers, and later the tuner and the language server all
// go through here, so there is one pipeline to change.
//
// An instance holds no global state and nothing outlives it: compiling
// many recipes, or one recipe many times with different Overrides, in one
// process is making many instances. Files are read through an
// llvm::vfs::FileSystem (the real one, under the invocation's Overrides).
// Each step reports mistakes in the input to the diagnostics engine and
// returns a Status; steps run in order and each runs the ones before it if
// needed.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_FRONTEND_COMPILERINSTANCE_H
#define ARECIPE_FRONTEND_COMPILERINSTANCE_H

#include "arecipe/Frontend/CompilerInvocation.h"
#include "arecipe/Sema/Tune.h"

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace arecipe {
class DiagnosticConsumer;
class DiagnosticEngine;
namespace ast {
class File;
} // namespace ast
namespace sema {
class Compilation;
struct SetOption;
} // namespace sema
namespace codegen {
class PlanLowering;
} // namespace codegen

namespace frontend {

class ModuleCache;

enum class Status {
  Ok,
  /// Errors in the recipe, its imports or its `--set` values (reported).
  Failed,
  /// The main file could not be read (reported, without a location).
  Unreadable,
};

class CompilerInstance {
public:
  /// A compilation reporting to Consumer (which must outlive it; null
  /// drops diagnostics). FS defaults to the real file system; either way
  /// the invocation's Overrides are laid over it.
  explicit CompilerInstance(
      CompilerInvocation Invocation, DiagnosticConsumer *Consumer,
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr);
  /// A compilation whose files and diagnostics go to Shared's SourceMgr
  /// and engine (`arecipec --emit changelog --against OLD`: both versions'
  /// diagnostics in one stream, one `-verify`). Shared must outlive it.
  CompilerInstance(CompilerInvocation Invocation, CompilerInstance &Shared);
  ~CompilerInstance();
  CompilerInstance(const CompilerInstance &) = delete;
  CompilerInstance &operator=(const CompilerInstance &) = delete;

  const CompilerInvocation &getInvocation() const { return Invocation; }
  /// Parses the main file and its imports through Cache (ModuleCache.h),
  /// shared with other instances: a file whose bytes were parsed before
  /// is not parsed again. Output and diagnostics are the same with or
  /// without it. Set before parse(); Cache must outlive the instance's
  /// parse() and analyze() (what the instance took from it, it keeps).
  void setModuleCache(ModuleCache *Cache);
  llvm::SourceMgr &getSourceMgr();
  DiagnosticEngine &getDiagnostics();

  /// Reads and parses the main file. Failed when it has syntax errors
  /// (the tree holds what parsed, or is null when the file was refused as
  /// a whole).
  Status parse();
  /// The main file's syntax tree, after parse(); may be null.
  ast::File *getAST() const;

  /// The invocation's `--set` options (and `mode=eval` for EvalMode),
  /// parsed as expressions in a `<command line>` buffer, one line per
  /// option; analyze() calls it. Errors are reported; an option whose value
  /// did not parse has a null Value.
  std::vector<sema::SetOption> parseSetOptions();

  /// parse(), then semantic analysis of the file, its imports and the
  /// `--set` options.
  Status analyze();
  /// Sema's result, after analyze() returned Ok or Failed past parsing.
  const sema::Compilation &getSema() const;
  /// The search spaces of the main file's `tune` blocks, checked by
  /// analyze() once the recipes are (docs/tuning.md); empty after errors.
  const std::vector<sema::TuneSpace> &getTuneSpaces() const;

  /// analyze(), then the launch plan's lowering (the invocation's Recipe,
  /// or all recipes of the file), checked: every cell has been lowered
  /// once and nothing was wrong. Null after errors. The emitters write
  /// the plan from it cell by cell (codegen::emitPlan, emitShell).
  codegen::PlanLowering *lowerPlan();

private:
  struct State;
  CompilerInvocation Invocation;
  std::unique_ptr<State> S;
};

/// Compiles the invocation to the launch plan's JSON text, byte for byte
/// what `arecipec --emit plan` writes; nullopt after reporting to Consumer
/// (finish() is called on it). Cache, when given, is the instance's
/// ModuleCache.
std::optional<std::string> compileToPlanJSON(const CompilerInvocation &Inv,
                                             DiagnosticConsumer &Consumer,
                                             ModuleCache *Cache = nullptr);

} // namespace frontend
} // namespace arecipe

#endif // ARECIPE_FRONTEND_COMPILERINSTANCE_H
