//===- arecipec.cpp - The arecipe compiler driver -------------------------===//
//
// A thin main over the libraries: reads one recipe, runs the front end and
// emits what was asked. Exit status: 0 success, 1 errors in the recipe (or
// a failed -verify), 2 usage or I/O errors. Each output is one EmitKind and
// one function below, so later phases add `--emit cells|plan` by adding an
// enumerator, its cl::values entry and a case in emit().
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/DiagnosticVerifier.h"
#include "arecipe/Basic/JSONDiagnosticPrinter.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/ChangelogEmitter.h"
#include "arecipe/Codegen/InferenceXEmitter.h"
#include "arecipe/Codegen/KnobTableEmitter.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Codegen/ShellEmitter.h"
#include "arecipe/Parse/Parser.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>

using namespace arecipe;
namespace cl = llvm::cl;

namespace {

enum ExitCode { ExitOk = 0, ExitRecipeErrors = 1, ExitUsage = 2 };

enum class EmitKind { Nothing, AST, Cells, Plan, Shell, InferenceX, Table, Changelog };
enum class PlanMode { Bench, Eval };
enum class DiagFormat { Text, JSON };

cl::OptionCategory Category("arecipec options");

cl::opt<std::string> InputFilename(cl::Positional, cl::desc("<recipe.arecipe>"),
                                   cl::cat(Category));
cl::opt<bool> SyntaxOnly("syntax-only", cl::desc("Check syntax only, emit nothing"),
                         cl::cat(Category));
cl::opt<EmitKind> Emit("emit", cl::desc("What to produce"), cl::init(EmitKind::Nothing),
                       cl::values(clEnumValN(EmitKind::AST, "ast",
                                             "the syntax tree as JSON"),
                                  clEnumValN(EmitKind::Cells, "cells",
                                             "the resolved cells as JSON"),
                                  clEnumValN(EmitKind::Plan, "plan",
                                             "the launch plan (docs/plan-schema.md)"),
                                  clEnumValN(EmitKind::Shell, "sh",
                                             "a standalone bash launcher"),
                                  clEnumValN(EmitKind::InferenceX, "inferencex",
                                             "the InferenceX master-config entry"),
                                  clEnumValN(EmitKind::Table, "table",
                                             "markdown: one row per cell, the knobs that vary"),
                                  clEnumValN(EmitKind::Changelog, "changelog",
                                             "perf-changelog entry and per-cell diff (with --against)")),
                       cl::cat(Category));
cl::opt<std::string> OutputFilename("o", cl::desc("Output file ('-' for stdout)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(Category));
cl::list<std::string> IncludeDirs("I", cl::Prefix,
                                  cl::desc("Add a directory to the import search path"),
                                  cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> Explain("explain",
                            cl::desc("Explain how KNOB got its value (with --conc)"),
                            cl::value_desc("knob"), cl::cat(Category));
cl::opt<int64_t> ExplainConc("conc", cl::desc("The cell --explain looks at"),
                             cl::value_desc("N"), cl::init(-1), cl::cat(Category));
cl::opt<std::string>
    ExplainArm("arm", cl::desc("The arm of the cell --explain looks at"),
               cl::value_desc("name"), cl::cat(Category));
cl::list<std::string> Sets("set", cl::desc("Override a knob in every cell"),
                           cl::value_desc("name=value"), cl::cat(Category));
cl::opt<PlanMode> Mode(
    "mode", cl::desc("What the plan measures"), cl::init(PlanMode::Bench),
    cl::values(clEnumValN(PlanMode::Bench, "bench", "benchmark (the default)"),
               clEnumValN(PlanMode::Eval, "eval",
                          "accuracy evaluation: no forced speculative acceptance")),
    cl::cat(Category));
cl::opt<std::string> RecipeName("recipe",
                                cl::desc("Emit only this recipe of the file"),
                                cl::value_desc("name"), cl::cat(Category));
cl::opt<std::string> Against("against",
                            cl::desc("The older recipe --emit changelog compares with"),
                            cl::value_desc("OLD.arecipe"), cl::cat(Category));
const char *Argv0 = nullptr;
cl::opt<bool> Verify("verify",
                     cl::desc("Check diagnostics against expected-* comments in the input"),
                     cl::cat(Category));
cl::opt<DiagFormat> DiagnosticsFormat(
    "diagnostics-format", cl::desc("How diagnostics are printed"),
    cl::init(DiagFormat::Text),
    cl::values(clEnumValN(DiagFormat::Text, "text", "clang-style text"),
               clEnumValN(DiagFormat::JSON, "json", "one JSON object per line")),
    cl::cat(Category));
cl::opt<unsigned> ErrorLimit("error-limit",
                             cl::desc("Stop after N errors (0: no limit)"),
                             cl::init(20), cl::value_desc("N"), cl::cat(Category));
cl::opt<bool> ListDiagnostics("list-diagnostics",
                              cl::desc("List every diagnostic id and level, then exit"),
                              cl::cat(Category));
// For the test that keeps docs/language.md §6.7 and the compiler's table
// in step: one "name<TAB>signature<TAB>doc" line per built-in.
cl::opt<bool> ListBuiltins(
    "list-builtins",
    cl::desc("List every built-in function and constructor, then exit"),
    cl::Hidden, cl::cat(Category));

std::unique_ptr<DiagnosticConsumer> makePrinter() {
  if (DiagnosticsFormat == DiagFormat::JSON)
    return std::make_unique<JSONDiagnosticPrinter>(llvm::errs());
  return std::make_unique<TextDiagnosticPrinter>(llvm::errs(), "arecipec",
                                                 llvm::errs().has_colors());
}

int printBuiltinTable() {
  for (const sema::BuiltinInfo &B : sema::listBuiltins())
    llvm::outs() << B.Name << "\t" << B.Signature << "\t" << B.Doc << "\n";
  return ExitOk;
}

int printDiagnosticTable() {
  for (const DiagInfo &Info : arecipe::listDiagnostics())
    llvm::outs() << Info.Name << " " << getLevelName(Info.Level) << "\n";
  return ExitOk;
}

std::optional<codegen::LaunchPlan> buildPlan(const sema::Compilation &Sema,
                                             DiagnosticEngine &Diags) {
  codegen::PlanOptions Opts;
  Opts.Recipe = RecipeName;
  return codegen::buildLaunchPlan(Sema, Opts, Diags);
}

/// Writes the requested output; false after an error was reported.
bool emit(const ast::File &File, const llvm::SourceMgr &SM,
          DiagnosticEngine &Diags, const sema::Compilation *Sema,
          const sema::Compilation *Old = nullptr) {
  if (SyntaxOnly || (Emit == EmitKind::Nothing && Explain.empty()))
    return true;
  // A plan that cannot be built writes nothing: the output file is opened
  // (and an older one replaced) only once there is something to write.
  std::optional<codegen::LaunchPlan> Plan;
  if (Emit == EmitKind::Plan || Emit == EmitKind::Shell) {
    Plan = buildPlan(*Sema, Diags);
    if (!Plan)
      return false;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(OutputFilename, EC, llvm::sys::fs::OF_None);
  if (EC) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << OutputFilename << EC.message();
    return false;
  }
  switch (Emit) {
  case EmitKind::AST:
    ast::dumpJSON(File, SM, OS);
    break;
  case EmitKind::Cells:
    sema::emitCellsJSON(*Sema, OS);
    break;
  case EmitKind::Plan:
    codegen::emitPlan(*Plan, OS);
    break;
  case EmitKind::Shell:
    codegen::emitShell(*Plan, OS);
    break;
  case EmitKind::InferenceX:
    codegen::emitInferenceX(*Sema, OS);
    break;
  case EmitKind::Table:
    codegen::emitKnobTable(*Sema, OS);
    break;
  case EmitKind::Changelog:
    codegen::emitChangelog(*Old, *Sema, OS);
    break;
  case EmitKind::Nothing:
    break;
  }
  return true;
}

/// Parses the input and reports to Diags; returns the exit code.
int compile(llvm::SourceMgr &SM, DiagnosticEngine &Diags) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(InputFilename, /*IsText=*/false);
  if (!Buffer) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << InputFilename << Buffer.getError().message();
    return ExitUsage;
  }
  unsigned BufferID = SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  ast::ASTContext Ctx;
  ast::File *File = parse::parseFile(SM, BufferID, Diags, Ctx);
  if (!File || Diags.hasErrors())
    return ExitRecipeErrors;
  if (SyntaxOnly || Emit == EmitKind::AST)
    return emit(*File, SM, Diags, nullptr) ? ExitOk : ExitUsage;
  sema::SemaOptions Opts;
  Opts.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  Opts.StdRoot = sema::findStdRoot(Argv0, reinterpret_cast<void *>(&emit));
  Opts.Sets.assign(Sets.begin(), Sets.end());
  // An eval plan is the recipe with `mode = eval` at the command-line level:
  // every knob that reads `mode` (the forced acceptance length) follows, and
  // the plan's knobs show where the mode came from.
  if (Mode == PlanMode::Eval)
    Opts.Sets.push_back("mode=eval");
  sema::Compilation Sema(SM, Diags, Ctx, std::move(Opts));
  if (!Sema.run(BufferID, File))
    return ExitRecipeErrors;
  // The older version is analysed like the input, in its own context.
  ast::ASTContext OldCtx;
  std::unique_ptr<sema::Compilation> Old;
  if (Emit == EmitKind::Changelog) {
    if (Against.empty()) {
      Diags.report(llvm::SMLoc(), DiagID::err_changelog_needs_against);
      return ExitUsage;
    }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> OldBuffer =
        llvm::MemoryBuffer::getFile(Against, /*IsText=*/false);
    if (!OldBuffer) {
      Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
          << Against << OldBuffer.getError().message();
      return ExitUsage;
    }
    unsigned OldID = SM.AddNewSourceBuffer(std::move(*OldBuffer), llvm::SMLoc());
    ast::File *OldFile = parse::parseFile(SM, OldID, Diags, OldCtx);
    if (!OldFile || Diags.hasErrors())
      return ExitRecipeErrors;
    sema::SemaOptions OldOpts;
    OldOpts.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
    OldOpts.StdRoot = sema::findStdRoot(Argv0, reinterpret_cast<void *>(&emit));
    OldOpts.Sets.assign(Sets.begin(), Sets.end());
    Old = std::make_unique<sema::Compilation>(SM, Diags, OldCtx, std::move(OldOpts));
    if (!Old->run(OldID, OldFile))
      return ExitRecipeErrors;
  }
  if (!Explain.empty()) {
    if (!sema::explainKnob(Sema, Explain, ExplainConc, ExplainArm, llvm::outs(),
                           Diags))
      return ExitRecipeErrors;
    if (Emit == EmitKind::Nothing)
      return ExitOk;
  }
  if (!emit(*File, SM, Diags, &Sema, Old.get()))
    return Diags.hasErrors() && Emit != EmitKind::Cells ? ExitRecipeErrors
                                                         : ExitUsage;
  return ExitOk;
}

int runVerify(llvm::SourceMgr &SM) {
  DiagnosticVerifier Verifier;
  int Status;
  {
    DiagnosticEngine Diags(SM, &Verifier);
    Diags.setErrorLimit(0);
    Status = compile(SM, Diags);
    Diags.finish();
  }
  if (Status == ExitUsage)
    return ExitUsage;
  std::unique_ptr<DiagnosticConsumer> Printer = makePrinter();
  DiagnosticEngine Out(SM, Printer.get());
  bool Matched = Verifier.verify(SM, Out);
  Out.finish();
  return Matched ? ExitOk : ExitRecipeErrors;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  Argv0 = argv[0];
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "arecipec " << ARECIPE_VERSION << "\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "arecipe recipe compiler\n",
                                   &llvm::errs()))
    return ExitUsage;
  if (ListDiagnostics)
    return printDiagnosticTable();
  if (ListBuiltins)
    return printBuiltinTable();

  llvm::SourceMgr SM;
  SM.setIncludeDirs(std::vector<std::string>(IncludeDirs.begin(), IncludeDirs.end()));
  if (Verify && !InputFilename.empty())
    return runVerify(SM);
  std::unique_ptr<DiagnosticConsumer> Printer = makePrinter();
  DiagnosticEngine Diags(SM, Printer.get());
  Diags.setErrorLimit(ErrorLimit);
  int Status = ExitUsage;
  if (InputFilename.empty())
    Diags.report(llvm::SMLoc(), DiagID::err_no_input_file);
  else
    Status = compile(SM, Diags);
  Diags.finish();
  return Status;
}
