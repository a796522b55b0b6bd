//===- CompilerInstance.cpp - One compilation, parse to plan --------------===//

#include "arecipe/Frontend/CompilerInstance.h"

#include "ImportSearch.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Codegen/LaunchPlan.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Parse/Parser.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace arecipe;
using namespace arecipe::frontend;

struct CompilerInstance::State {
  // Declared so that what refers to something is destroyed before it:
  // Sema before the trees and the engine, the engine (which flushes)
  // before the SourceMgr, the SourceMgr (whose buffers may be views of
  // cached files) before the cache entries it views.
  std::shared_ptr<CachePins> Pins;
  std::shared_ptr<llvm::SourceMgr> SM;
  std::shared_ptr<DiagnosticEngine> Diags;
  std::unique_ptr<FileSource> Files;
  ast::ASTContext Ctx;
  std::unique_ptr<ImportSearch> Loader;
  std::unique_ptr<sema::Compilation> Sema;
  std::unique_ptr<codegen::PlanLowering> Plan;
  sema::SourceFile Main;
  std::vector<sema::TuneSpace> Tunes;
  std::optional<Status> Parsed, Analyzed;
  std::optional<bool> PlanChecked;
  ModuleCache *Cache = nullptr;
};

/// The invocation's Overrides laid over Base (the real file system when
/// null), with what Base already lays over the real one (BaseOverrides;
/// RealBase: whether Base is the real file system under them).
static std::unique_ptr<FileSource> withOverrides(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base, bool RealBase,
    std::vector<llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem>>
        BaseOverrides,
    const CompilerInvocation &Inv) {
  if (!Base) {
    Base = llvm::vfs::getRealFileSystem();
    RealBase = true;
  }
  if (Inv.Overrides.empty())
    return std::make_unique<FileSource>(std::move(Base), RealBase,
                                        std::move(BaseOverrides));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(
      new llvm::vfs::InMemoryFileSystem);
  // Relative override paths mean what they mean to Base. (Only the
  // in-memory layer's directory is set: setting the overlay's would move
  // the real file system's, which is the process's.)
  if (llvm::ErrorOr<std::string> CWD = Base->getCurrentWorkingDirectory())
    Memory->setCurrentWorkingDirectory(*CWD);
  for (const auto &[Path, Contents] : Inv.Overrides)
    Memory->addFile(Path, /*ModificationTime=*/0,
                    llvm::MemoryBuffer::getMemBufferCopy(Contents, Path));
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> Overlay(
      new llvm::vfs::OverlayFileSystem(Base));
  Overlay->pushOverlay(Memory);
  BaseOverrides.push_back(Memory);
  return std::make_unique<FileSource>(std::move(Overlay), RealBase,
                                      std::move(BaseOverrides));
}

CompilerInstance::CompilerInstance(
    CompilerInvocation Invocation, DiagnosticConsumer *Consumer,
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS)
    : Invocation(std::move(Invocation)), S(std::make_unique<State>()) {
  S->Pins = std::make_shared<CachePins>();
  S->SM = std::make_shared<llvm::SourceMgr>();
  S->Diags = std::make_shared<DiagnosticEngine>(*S->SM, Consumer);
  S->Diags->setErrorLimit(this->Invocation.ErrorLimit);
  S->Files =
      withOverrides(std::move(FS), /*RealBase=*/false, {}, this->Invocation);
}

CompilerInstance::CompilerInstance(CompilerInvocation Invocation,
                                   CompilerInstance &Shared)
    : Invocation(std::move(Invocation)), S(std::make_unique<State>()) {
  S->Pins = Shared.S->Pins;
  S->SM = Shared.S->SM;
  S->Diags = Shared.S->Diags;
  S->Files = withOverrides(Shared.S->Files->fileSystemRef(),
                           Shared.S->Files->realBase(),
                           Shared.S->Files->overrides(), this->Invocation);
}

CompilerInstance::~CompilerInstance() = default;

void CompilerInstance::setModuleCache(ModuleCache *Cache) {
  assert(!S->Parsed && "the cache is set before parse()");
  S->Cache = Cache;
}

llvm::SourceMgr &CompilerInstance::getSourceMgr() { return *S->SM; }

DiagnosticEngine &CompilerInstance::getDiagnostics() { return *S->Diags; }

ast::File *CompilerInstance::getAST() const { return S->Main.AST; }

const std::vector<sema::TuneSpace> &CompilerInstance::getTuneSpaces() const {
  return S->Tunes;
}

const sema::Compilation &CompilerInstance::getSema() const {
  assert(S->Sema && "analyze() has not run");
  return *S->Sema;
}

Status CompilerInstance::parse() {
  if (S->Parsed)
    return *S->Parsed;
  DiagnosticEngine &Diags = *S->Diags;
  const std::string &Path = Invocation.MainFile;
  llvm::vfs::FileSystem &FS = S->Files->fileSystem();
  // A regular file is read as an import is (through the cache's record
  // when its stamp is trusted); standard input, or anything else, through
  // the file system, which also says why it cannot be read.
  std::optional<llvm::vfs::Status> St;
  llvm::sys::TimePoint<> Now = std::chrono::system_clock::now();
  if (Path != "-")
    if (llvm::ErrorOr<llvm::vfs::Status> Found = FS.status(Path))
      if (Found->isRegularFile())
        St = *Found;
  std::shared_ptr<const FileRecord> Read;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::error_code Error;
  std::string RealPath;
  if (St) {
    RealPath = S->Files->realPathOf(Path, *St, S->Cache);
    llvm::ErrorOr<std::shared_ptr<const FileRecord>> R =
        S->Files->read(Path, *St, Now, RealPath, S->Cache);
    if (R)
      Read = *R;
    else
      Error = R.getError();
  } else {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> B =
        Path == "-" ? llvm::MemoryBuffer::getSTDIN()
                    : FS.getBufferForFile(Path);
    if (B)
      Buffer = std::move(*B);
    else
      Error = B.getError();
  }
  if (!Read && !Buffer) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << Path << Error.message();
    return *(S->Parsed = Status::Unreadable);
  }
  // The buffer is named as the invocation names the file, whatever the
  // file system calls it (standard input keeps its `<stdin>`, and is
  // never cached: it has no path to be read from again).
  llvm::StringRef Name =
      Path == "-" ? Buffer->getBufferIdentifier() : llvm::StringRef(Path);
  S->Main = parseSource(
      *S->SM, Diags, S->Ctx, Invocation.Limits,
      Path == "-" ? nullptr : S->Cache, *S->Pins, Name, Name,
      Read ? llvm::StringRef(Read->Bytes) : Buffer->getBuffer(), llvm::SMLoc());
  S->Main.RealPath = St ? RealPath : realPath(FS, Name);
  bool Ok = S->Main.AST && !Diags.hasErrors();
  return *(S->Parsed = Ok ? Status::Ok : Status::Failed);
}

static llvm::SMRange rangeOf(llvm::StringRef Text) {
  return {llvm::SMLoc::getFromPointer(Text.begin()),
          llvm::SMLoc::getFromPointer(Text.end())};
}

std::vector<sema::SetOption> CompilerInstance::parseSetOptions() {
  std::vector<std::string> Sets = Invocation.Sets;
  if (Invocation.EvalMode)
    Sets.push_back("mode=eval");
  std::vector<sema::SetOption> Out;
  if (Sets.empty())
    return Out;
  // One line per option, so a diagnostic's line number is the option's
  // place among the --set options.
  std::string Text;
  std::vector<std::pair<size_t, size_t>> Spans;
  for (const std::string &Set : Sets) {
    Spans.emplace_back(Text.size(), Set.size());
    Text += Set + "\n";
  }
  unsigned ID = S->SM->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "<command line>"),
      llvm::SMLoc());
  llvm::StringRef Buffer = S->SM->getMemoryBuffer(ID)->getBuffer();
  for (auto [Offset, Size] : Spans) {
    llvm::StringRef Option = Buffer.substr(Offset, Size);
    size_t Eq = Option.find('=');
    llvm::StringRef Name =
        Eq == llvm::StringRef::npos ? "" : Option.take_front(Eq).trim();
    if (Name.empty()) {
      S->Diags->report(rangeOf(Option), DiagID::err_set_syntax) << Option;
      continue;
    }
    sema::SetOption Set;
    Set.Name = Name.str();
    Set.Range = rangeOf(Option);
    Set.NameRange = rangeOf(Name);
    Set.Value = parse::parseExpr(*S->SM, Option.drop_front(Eq + 1), *S->Diags,
                                 S->Ctx, Invocation.Limits);
    Out.push_back(std::move(Set));
  }
  return Out;
}

Status CompilerInstance::analyze() {
  if (S->Analyzed)
    return *S->Analyzed;
  if (Status P = parse(); P != Status::Ok)
    return *(S->Analyzed = P);
  S->Loader = std::make_unique<ImportSearch>(
      *S->SM, *S->Diags, S->Ctx, *S->Files, Invocation, S->Cache, *S->Pins);
  sema::SemaOptions Opts;
  Opts.Loader = S->Loader.get();
  S->Sema = std::make_unique<sema::Compilation>(*S->SM, *S->Diags, Opts);
  // Errors in an imported file do not stop the recipes' analysis: each
  // mistake is reported where it is. The `--set` values are parsed once
  // the imports are (their buffer follows the files' in the output).
  S->Sema->loadModules(S->Main);
  bool Ok = S->Sema->analyze(parseSetOptions());
  // The tune blocks are checked against recipes analysed without errors.
  if (Ok && S->Main.AST) {
    unsigned Before = S->Diags->errorCount();
    S->Tunes = sema::checkTuneBlocks(*S->Sema, *S->Main.AST, *S->Diags);
    Ok = S->Diags->errorCount() == Before;
  }
  return *(S->Analyzed = Ok ? Status::Ok : Status::Failed);
}

codegen::PlanLowering *CompilerInstance::lowerPlan() {
  if (!S->PlanChecked) {
    S->PlanChecked = false;
    if (analyze() == Status::Ok) {
      codegen::PlanOptions Opts;
      Opts.Recipe = Invocation.Recipe;
      S->Plan =
          std::make_unique<codegen::PlanLowering>(*S->Sema, Opts, *S->Diags);
      S->PlanChecked = S->Plan->check();
    }
  }
  return *S->PlanChecked ? S->Plan.get() : nullptr;
}

std::optional<std::string>
frontend::compileToPlanJSON(const CompilerInvocation &Inv,
                            DiagnosticConsumer &Consumer, ModuleCache *Cache) {
  CompilerInstance CI(Inv, &Consumer);
  CI.setModuleCache(Cache);
  codegen::PlanLowering *Plan = CI.lowerPlan();
  CI.getDiagnostics().finish();
  if (!Plan)
    return std::nullopt;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  codegen::emitPlan(*Plan, OS);
  OS.flush();
  return Text;
}
