//===- ImportSearch.cpp - Finding and parsing imported files --------------===//

#include "ImportSearch.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::frontend;

std::string frontend::realPath(llvm::vfs::FileSystem &FS,
                               llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (FS.getRealPath(Path, Real))
    return Path.str();
  return std::string(Real.str());
}

/// Dir/File with `.` and `..` removed, as output shows an import.
static std::string displayJoin(llvm::StringRef Dir, llvm::StringRef File) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, File);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P.str());
}

std::optional<sema::ImportTarget>
ImportSearch::find(llvm::StringRef Target, llvm::StringRef ImporterRealPath,
                   llvm::StringRef ImporterName) {
  std::string File = Target.str() + ".arecipe";
  // Candidates in search order: where to read each, and its name.
  std::vector<std::pair<std::string, std::string>> Candidates;
  Candidates.emplace_back(
      displayJoin(llvm::sys::path::parent_path(ImporterRealPath), File),
      displayJoin(llvm::sys::path::parent_path(ImporterName), File));
  for (const std::string &Dir : Inv.IncludeDirs)
    Candidates.emplace_back(displayJoin(Dir, File), displayJoin(Dir, File));
  if (!Inv.StdRoot.empty())
    Candidates.emplace_back(displayJoin(Inv.StdRoot, File), File);

  for (auto &[Path, Display] : Candidates) {
    llvm::ErrorOr<llvm::vfs::Status> St = FS.status(Path);
    if (!St || !St->isRegularFile())
      continue;
    std::string Real = realPath(FS, Path);
    return sema::ImportTarget{std::move(Path), std::move(Real),
                              std::move(Display)};
  }
  return std::nullopt;
}

std::optional<sema::SourceFile> ImportSearch::load(const sema::ImportTarget &T,
                                                   llvm::SMRange ImportRange) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      FS.getBufferForFile(T.Path);
  if (!Buf) {
    Diags.report(ImportRange, DiagID::err_cannot_open_file)
        << T.DisplayName << Buf.getError().message();
    return std::nullopt;
  }
  sema::SourceFile F =
      parseSource(SM, Diags, Ctx, Inv.Limits, Cache, Pins, T.Path,
                  T.DisplayName, (*Buf)->getBuffer(), ImportRange.Start);
  F.RealPath = T.RealPath;
  return F;
}

static bool sameLimits(const parse::ParseLimits &A,
                       const parse::ParseLimits &B) {
  return A.MaxFileBytes == B.MaxFileBytes && A.MaxNesting == B.MaxNesting &&
         A.MaxExprDepth == B.MaxExprDepth;
}

/// Whether SM already has a view of Buffer's bytes: a second view would
/// make a location ambiguous (two instances sharing a SourceMgr, as
/// `--against` does, importing the same file).
static bool hasView(const llvm::SourceMgr &SM, const llvm::MemoryBuffer &B) {
  for (unsigned ID = 1; ID <= SM.getNumBuffers(); ++ID)
    if (SM.getMemoryBuffer(ID)->getBufferStart() == B.getBufferStart())
      return true;
  return false;
}

sema::SourceFile
frontend::parseSource(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
                      ast::ASTContext &Ctx, const parse::ParseLimits &Limits,
                      ModuleCache *Cache, CachePins &Pins, llvm::StringRef Path,
                      llvm::StringRef DisplayName, llvm::StringRef Contents,
                      llvm::SMLoc IncludeLoc) {
  if (!Cache) {
    unsigned ID = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Contents, DisplayName),
        IncludeLoc);
    return sema::SourceFile{ID, parse::parseFile(SM, ID, Diags, Ctx, Limits),
                            ""};
  }
  auto addView = [&](const CachedParse &E) {
    return SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(E.Buffer->getBuffer(), DisplayName),
        IncludeLoc);
  };
  std::shared_ptr<const CachedParse> Hit =
      Cache->lookup(Path, DisplayName, Contents, Limits);
  if (Hit && !hasView(SM, *Hit->Buffer)) {
    Pins.push_back(Hit);
    return sema::SourceFile{addView(*Hit), Hit->AST, ""};
  }
  auto E = std::make_shared<CachedParse>();
  E->Path = Path.str();
  E->DisplayName = DisplayName.str();
  E->Limits = Limits;
  E->Buffer = llvm::MemoryBuffer::getMemBufferCopy(Contents, DisplayName);
  E->Ctx = std::make_unique<ast::ASTContext>();
  unsigned ID = addView(*E);
  // Kept only when the parse reported nothing; once the error limit has
  // dropped a diagnostic the counts no longer tell, so nothing is kept.
  unsigned Errors = Diags.errorCount(), Warnings = Diags.warningCount();
  bool Silent = !Diags.hasReachedErrorLimit();
  E->AST = parse::parseFile(SM, ID, Diags, *E->Ctx, Limits);
  Silent = Silent && E->AST && Diags.errorCount() == Errors &&
           Diags.warningCount() == Warnings && !Diags.hasReachedErrorLimit();
  Pins.push_back(E);
  if (Silent && !Hit)
    Cache->insert(E);
  return sema::SourceFile{ID, E->AST, ""};
}

//===-- ModuleCache
//--------------------------------------------------------===//

ModuleCache::ModuleCache(unsigned VersionsPerPath)
    : VersionsPerPath(VersionsPerPath ? VersionsPerPath : 1) {}

ModuleCache::~ModuleCache() = default;

ModuleCache::Stats ModuleCache::getStats() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  Stats S;
  S.Hits = Hits;
  S.Misses = Misses;
  for (const auto &[Path, Versions] : Entries)
    S.Entries += Versions.size();
  return S;
}

void ModuleCache::clear() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Entries.clear();
}

std::shared_ptr<const CachedParse>
ModuleCache::lookup(llvm::StringRef Path, llvm::StringRef DisplayName,
                    llvm::StringRef Contents,
                    const parse::ParseLimits &Limits) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Entries.find(Path);
  if (It != Entries.end()) {
    auto &Versions = It->second;
    for (size_t I = 0; I < Versions.size(); ++I) {
      const CachedParse &E = *Versions[I];
      // The whole contents are compared: equal bytes, equal tree.
      if (E.DisplayName != DisplayName || !sameLimits(E.Limits, Limits) ||
          E.Buffer->getBuffer() != Contents)
        continue;
      std::shared_ptr<const CachedParse> Hit = Versions[I];
      std::rotate(Versions.begin(), Versions.begin() + I,
                  Versions.begin() + I + 1);
      ++Hits;
      return Hit;
    }
  }
  ++Misses;
  return nullptr;
}

void ModuleCache::insert(std::shared_ptr<const CachedParse> Entry) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto &Versions = Entries[Entry->Path];
  Versions.insert(Versions.begin(), std::move(Entry));
  if (Versions.size() > VersionsPerPath)
    Versions.resize(VersionsPerPath);
}
