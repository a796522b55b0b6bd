//===- Compile.cpp - The compiler as a library ----------------------------===//

#include "arecipe/Codegen/Compile.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Codegen/LaunchPlan.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Parse/Parser.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace arecipe;

std::optional<std::string> codegen::compileToPlanJSON(llvm::StringRef Path,
                                                      const CompileOptions &Opts,
                                                      llvm::SourceMgr &SM,
                                                      DiagnosticEngine &Diags) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buffer) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << Path << Buffer.getError().message();
    return std::nullopt;
  }
  unsigned BufferID = SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  ast::ASTContext Ctx;
  ast::File *File = parse::parseFile(SM, BufferID, Diags, Ctx);
  if (!File || Diags.hasErrors())
    return std::nullopt;

  sema::SemaOptions SemaOpts;
  SemaOpts.IncludeDirs = Opts.IncludeDirs;
  SemaOpts.StdRoot = Opts.StdRoot;
  SemaOpts.Sets = Opts.Sets;
  // As in arecipec: an eval plan is the recipe with `mode = eval` at the
  // command-line level, so the plan shows where the mode came from.
  if (Opts.EvalMode)
    SemaOpts.Sets.push_back("mode=eval");
  sema::Compilation Sema(SM, Diags, Ctx, std::move(SemaOpts));
  if (!Sema.run(BufferID, File))
    return std::nullopt;

  PlanOptions PlanOpts;
  PlanOpts.Recipe = Opts.Recipe;
  std::optional<LaunchPlan> Plan = buildLaunchPlan(Sema, PlanOpts, Diags);
  if (!Plan)
    return std::nullopt;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  emitPlan(*Plan, OS);
  OS.flush();
  return Text;
}
