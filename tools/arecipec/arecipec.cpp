//===- arecipec.cpp - The arecipe compiler driver -------------------------===//
//
// A thin main over the libraries: reads one recipe, runs the front end and
// emits what was asked. Exit status: 0 success, 1 errors in the recipe (or
// a failed -verify), 2 usage or I/O errors. Each output is one EmitKind and
// one function below, so later phases add `--emit cells|plan` by adding an
// enumerator, its cl::values entry and a case in emit().
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/DiagnosticVerifier.h"
#include "arecipe/Basic/JSONDiagnosticPrinter.h"
#include "arecipe/Basic/StandardStreams.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/ChangelogEmitter.h"
#include "arecipe/Codegen/InferenceXEmitter.h"
#include "arecipe/Codegen/KnobTableEmitter.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Codegen/ShellEmitter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Sema/Sema.h"
#include "arecipe/Support/InstallLayout.h"
#include "arecipe/Support/ProcessExit.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
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

/// The invocation arecipec's options describe, for File.
frontend::CompilerInvocation makeInvocation(const std::string &File) {
  frontend::CompilerInvocation Inv;
  Inv.MainFile = File;
  Inv.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  Inv.StdRoot = support::dataDir();
  Inv.Sets.assign(Sets.begin(), Sets.end());
  Inv.EvalMode = Mode == PlanMode::Eval;
  Inv.Recipe = RecipeName;
  Inv.ErrorLimit = Verify ? 0 : ErrorLimit;
  return Inv;
}

/// Lowers each recipe of the file (or the one --recipe names) to a plan of
/// its own, for its errors only: what `--emit plan` refuses, the other
/// outputs of the analysed recipe refuse too, instead of exiting 0.
bool checkPlansBuild(const sema::Compilation &Sema, DiagnosticEngine &Diags) {
  bool Ok = true;
  for (const auto &R : Sema.recipes()) {
    if (!RecipeName.empty() && R->Name != RecipeName)
      continue;
    codegen::PlanOptions Opts;
    Opts.Recipe = R->Name;
    Ok &= codegen::PlanLowering(Sema, Opts, Diags).check();
  }
  return Ok;
}

/// Set when writing the output failed (reported): an I/O error, exit 2.
bool WriteFailed = false;

/// How a write error names the output.
std::string outputName(llvm::StringRef Name) {
  return Name == "-" ? "<stdout>" : Name.str();
}

/// Reports OS's write error, if it had one, and clears it (so its
/// destructor does not abort); returns whether it had one.
bool reportWriteError(llvm::raw_fd_ostream &OS, llvm::StringRef Name,
                      DiagnosticEngine &Diags) {
  if (!OS.has_error())
    return false;
  Diags.report(llvm::SMLoc(), DiagID::err_cannot_write_file)
      << outputName(Name) << OS.error().message();
  OS.clear_error();
  WriteFailed = true;
  return true;
}

/// Writes the requested output; false after an error was reported.
bool emit(frontend::CompilerInstance &CI, const sema::Compilation *Old) {
  if (SyntaxOnly || (Emit == EmitKind::Nothing && Explain.empty()))
    return true;
  DiagnosticEngine &Diags = CI.getDiagnostics();
  // A plan that cannot be built writes nothing: the output file is opened
  // (and an older one replaced) only once there is something to write.
  codegen::PlanLowering *Plan = nullptr;
  if (Emit == EmitKind::Plan || Emit == EmitKind::Shell) {
    Plan = CI.lowerPlan();
    if (!Plan)
      return false;
  }
  if (Emit == EmitKind::InferenceX &&
      !codegen::checkInferenceX(CI.getSema(), Diags))
    return false;
  std::error_code EC;
  llvm::raw_fd_ostream OS(OutputFilename, EC, llvm::sys::fs::OF_None);
  if (EC) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << OutputFilename << EC.message();
    return false;
  }
  switch (Emit) {
  case EmitKind::AST:
    ast::dumpJSON(*CI.getAST(), CI.getSourceMgr(), OS);
    break;
  case EmitKind::Cells:
    sema::emitCellsJSON(CI.getSema(), OS);
    break;
  case EmitKind::Plan:
    codegen::emitPlan(*Plan, OS);
    break;
  case EmitKind::Shell:
    codegen::emitShell(*Plan, OS);
    break;
  case EmitKind::InferenceX:
    codegen::emitInferenceX(CI.getSema(), OS);
    break;
  case EmitKind::Table:
    codegen::emitKnobTable(CI.getSema(), OS);
    break;
  case EmitKind::Changelog:
    codegen::emitChangelog(*Old, CI.getSema(), OS);
    break;
  case EmitKind::Nothing:
    break;
  }
  // Written, flushed and closed here, with the error checked: the process
  // may end without running destructors (main), and a full disk must not
  // leave a partial file behind a zero exit status.
  if (OutputFilename == "-")
    OS.flush();
  else
    OS.close();
  return !reportWriteError(OS, OutputFilename, Diags);
}

/// Compiles the input (and `--against`'s file into the same diagnostics);
/// returns the exit code. CI reports to the caller's consumer.
int compile(frontend::CompilerInstance &CI) {
  DiagnosticEngine &Diags = CI.getDiagnostics();
  frontend::Status Parsed = CI.parse();
  if (Parsed == frontend::Status::Unreadable)
    return ExitUsage;
  if (Parsed != frontend::Status::Ok)
    return ExitRecipeErrors;
  if (SyntaxOnly || Emit == EmitKind::AST)
    return emit(CI, nullptr) ? ExitOk : ExitUsage;
  if (CI.analyze() != frontend::Status::Ok)
    return ExitRecipeErrors;
  // The older version is analysed like the input, into the same
  // diagnostics; the --set options apply to it too.
  std::unique_ptr<frontend::CompilerInstance> Old;
  if (Emit == EmitKind::Changelog) {
    if (Against.empty()) {
      Diags.report(llvm::SMLoc(), DiagID::err_changelog_needs_against);
      return ExitUsage;
    }
    frontend::CompilerInvocation OldInv = makeInvocation(Against);
    // Only the new version is compiled with `--mode eval` (as always: the
    // changelog then shows the mode's change as well).
    OldInv.EvalMode = false;
    Old = std::make_unique<frontend::CompilerInstance>(OldInv, CI);
    frontend::Status OldStatus = Old->analyze();
    if (OldStatus == frontend::Status::Unreadable)
      return ExitUsage;
    if (OldStatus != frontend::Status::Ok)
      return ExitRecipeErrors;
  }
  if ((Emit == EmitKind::Cells || Emit == EmitKind::Table ||
       Emit == EmitKind::InferenceX || Emit == EmitKind::Changelog) &&
      !checkPlansBuild(CI.getSema(), Diags))
    return ExitRecipeErrors;
  if (!Explain.empty()) {
    if (!sema::explainKnob(CI.getSema(), Explain, ExplainConc, ExplainArm,
                           llvm::outs(),
                           Diags))
      return ExitRecipeErrors;
    if (Emit == EmitKind::Nothing)
      return ExitOk;
  }
  if (!emit(CI, Old ? &Old->getSema() : nullptr))
    return Diags.hasErrors() && Emit != EmitKind::Cells && !WriteFailed
               ? ExitRecipeErrors
               : ExitUsage;
  return ExitOk;
}

/// Ends the process once its outputs are written and checked. The
/// compilation and static objects (ANTLR's caches) are not torn down
/// (support/ProcessExit.h says why), except in a leak-checked build, which
/// returns Status to main to run every destructor.
int finish(int Status) {
  if (!support::leakCheckedBuild())
    support::exitWithoutTeardown(Status);
  return Status;
}

int runVerify() {
  DiagnosticVerifier Verifier;
  frontend::CompilerInstance CI(makeInvocation(InputFilename), &Verifier);
  int Status = compile(CI);
  CI.getDiagnostics().finish();
  if (Status == ExitUsage)
    return ExitUsage;
  std::unique_ptr<DiagnosticConsumer> Printer = makePrinter();
  DiagnosticEngine Out(CI.getSourceMgr(), Printer.get());
  bool Matched = Verifier.verify(CI.getSourceMgr(), Out);
  return finish(
      flushStandardStreams(Matched ? ExitOk : ExitRecipeErrors, ExitUsage, Out));
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "arecipec " << ARECIPE_VERSION << "\n";
    // The command line's parser exits after this, and a failed write
    // would abort in llvm::outs()' destructor: the write is checked here,
    // and the process ends as a compilation does.
    std::unique_ptr<DiagnosticConsumer> Printer = makePrinter();
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM, Printer.get());
    std::exit(finish(flushStandardStreams(ExitOk, ExitUsage, Diags)));
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "arecipe recipe compiler\n",
                                   &llvm::errs()))
    return ExitUsage;
  if (ListDiagnostics)
    return printDiagnosticTable();
  if (ListBuiltins)
    return printBuiltinTable();

  if (Verify && !InputFilename.empty())
    return runVerify();
  std::unique_ptr<DiagnosticConsumer> Printer = makePrinter();
  if (InputFilename.empty()) {
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM, Printer.get());
    Diags.report(llvm::SMLoc(), DiagID::err_no_input_file);
    Diags.finish();
    return ExitUsage;
  }
  frontend::CompilerInstance CI(makeInvocation(InputFilename), Printer.get());
  int Status = compile(CI);
  return finish(flushStandardStreams(Status, ExitUsage, CI.getDiagnostics()));
}
