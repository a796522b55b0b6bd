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

bool FileSource::isReal(llvm::StringRef Path) const {
  if (!RealBase)
    return false;
  for (const auto &Memory : Overrides)
    if (Memory->status(Path))
      return false;
  return true;
}

static FileStamp stampOf(const llvm::vfs::Status &St) {
  FileStamp S;
  S.Device = St.getUniqueID().getDevice();
  S.Inode = St.getUniqueID().getFile();
  S.Size = St.getSize();
  S.MTimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  St.getLastModificationTime().time_since_epoch())
                  .count();
  return S;
}

std::string FileSource::realPathOf(llvm::StringRef Path,
                                   const llvm::vfs::Status &St,
                                   ModuleCache *Cache) const {
  // realpath(3) walks every component of the path. The record's answer
  // stands while Path still names the same file (a link retargeted at
  // another file changes the inode).
  if (Cache && isReal(Path))
    if (std::shared_ptr<const FileRecord> R = Cache->findFile(Path)) {
      FileStamp S = stampOf(St);
      if (R->Stamp.Device == S.Device && R->Stamp.Inode == S.Inode)
        return R->RealPath;
    }
  return realPath(*FS, Path);
}

llvm::ErrorOr<std::shared_ptr<const FileRecord>>
FileSource::read(llvm::StringRef Path, const llvm::vfs::Status &St,
                 llvm::sys::TimePoint<> Now, llvm::StringRef RealPath,
                 ModuleCache *Cache) const {
  if (!Cache || !isReal(Path))
    return readThrough(Path, RealPath);
  auto Record = std::make_shared<FileRecord>();
  Record->Path = Path.str();
  Record->RealPath = RealPath.str();
  FileStamp Stamp = stampOf(St);
  std::shared_ptr<const FileRecord> Kept = Cache->findFile(Path);
  if (Kept && Kept->Settled && Kept->Stamp == Stamp) {
    Cache->countReadSaved();
    return Kept;
  }
  // A plain read: the file system's openFileForRead also asks the kernel
  // for the open file's real path, which the caller has.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false,
                                  /*IsVolatile=*/true);
  if (!Buf)
    return Buf.getError();
  Record->Stamp = Stamp;
  Record->Settled = St.getLastModificationTime() + StampMargin < Now;
  Record->Bytes = (*Buf)->getBuffer().str();
  Cache->keepFile(Record);
  return std::shared_ptr<const FileRecord>(std::move(Record));
}

llvm::ErrorOr<std::shared_ptr<const FileRecord>>
FileSource::readThrough(llvm::StringRef Path, llvm::StringRef RealPath) const {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      FS->getBufferForFile(Path);
  if (!Buf)
    return Buf.getError();
  auto Record = std::make_shared<FileRecord>();
  Record->Path = Path.str();
  Record->RealPath = RealPath.str();
  Record->Bytes = (*Buf)->getBuffer().str();
  return std::shared_ptr<const FileRecord>(std::move(Record));
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
    // Taken before the status: what the stamp is trusted for is measured
    // from here (FileSource::read).
    llvm::sys::TimePoint<> Now = std::chrono::system_clock::now();
    llvm::ErrorOr<llvm::vfs::Status> St = FS.status(Path);
    if (!St || !St->isRegularFile())
      continue;
    std::string Real = Files.realPathOf(Path, *St, Cache);
    FoundPath = Path;
    FoundStatus = *St;
    FoundAt = Now;
    return sema::ImportTarget{std::move(Path), std::move(Real),
                              std::move(Display)};
  }
  return std::nullopt;
}

std::optional<sema::SourceFile> ImportSearch::load(const sema::ImportTarget &T,
                                                   llvm::SMRange ImportRange) {
  // Not the target find() returned last (no status of it to trust): read
  // through the file system, as a compile without a cache does.
  llvm::ErrorOr<std::shared_ptr<const FileRecord>> Read =
      FoundStatus && FoundPath == T.Path
          ? Files.read(T.Path, *FoundStatus, FoundAt, T.RealPath, Cache)
          : Files.readThrough(T.Path, T.RealPath);
  FoundStatus.reset();
  if (!Read) {
    Diags.report(ImportRange, DiagID::err_cannot_open_file)
        << T.DisplayName << Read.getError().message();
    return std::nullopt;
  }
  sema::SourceFile F =
      parseSource(SM, Diags, Ctx, Inv.Limits, Cache, Pins, T.Path,
                  T.DisplayName, (*Read)->Bytes, ImportRange.Start);
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
  S.FileReads = FileReads;
  S.ReadsSaved = ReadsSaved;
  for (const auto &[Path, Versions] : Entries)
    S.Entries += Versions.size();
  return S;
}

void ModuleCache::clear() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Entries.clear();
  Files.clear();
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

std::shared_ptr<const FileRecord>
ModuleCache::findFile(llvm::StringRef Path) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Files.find(Path);
  return It == Files.end() ? nullptr : It->second;
}

void ModuleCache::keepFile(std::shared_ptr<const FileRecord> Record) {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++FileReads;
  std::string Path = Record->Path;
  Files[std::move(Path)] = std::move(Record);
}

void ModuleCache::countReadSaved() {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++ReadsSaved;
}

void ModuleCache::insert(std::shared_ptr<const CachedParse> Entry) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto &Versions = Entries[Entry->Path];
  Versions.insert(Versions.begin(), std::move(Entry));
  if (Versions.size() > VersionsPerPath)
    Versions.resize(VersionsPerPath);
}
