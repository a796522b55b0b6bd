//===- ImportSearch.h - Finding and parsing imported files -----*- C++ -*-===//
//
// Private to lib/Frontend: the ModuleLoader Sema loads imports through.
// `import "std/engines/atom"` names `std/engines/atom.arecipe`, searched
// relative to the importing file (its real directory; the buffer keeps the
// importer's spelling), then in each -I directory, then in the std root
// (named `std/...` in output, so no absolute path appears that was not
// written). Found files are read through the instance's file system and
// parsed into its SourceMgr and ASTContext -- or, given a ModuleCache,
// taken from it when the bytes read are the cached ones (parseSource, which
// the main file goes through too). With a cache, a file of the real file
// system that one stat shows unchanged since the cache read it is not read
// again (FileSource; docs/architecture.md, ModuleCache).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
#define ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Frontend/CompilerInvocation.h"
#include "arecipe/Frontend/ModuleCache.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <chrono>

namespace llvm {
namespace vfs {
class FileSystem;
} // namespace vfs
} // namespace llvm

namespace arecipe {
namespace ast {
class ASTContext;
} // namespace ast

namespace frontend {

/// A file's bytes and the tree parsed from them, in an arena of its own;
/// immutable once made. SourceMgr buffers of the instances that use it are
/// views of Buffer, so the tree's locations point into every one of them.
struct CachedParse {
  std::string Path;
  std::string DisplayName;
  parse::ParseLimits Limits;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<ast::ASTContext> Ctx;
  ast::File *AST = nullptr;
};

/// What identifies a version of a file on the real file system: a write
/// changes the modification time (nanoseconds), a replacement the inode,
/// a truncation the size.
struct FileStamp {
  uint64_t Device = 0, Inode = 0, Size = 0;
  int64_t MTimeNs = 0;
  bool operator==(const FileStamp &O) const {
    return Device == O.Device && Inode == O.Inode && Size == O.Size &&
           MTimeNs == O.MTimeNs;
  }
};

/// A file of the real file system as the cache last read it: its stamp
/// then, its bytes and its real path. Immutable once made (a newer read
/// replaces the record).
struct FileRecord {
  std::string Path;
  FileStamp Stamp;
  /// Whether the stamp alone tells the bytes are these: the modification
  /// time was older than the read by more than FileSource::StampMargin,
  /// so a later write cannot have been given the same time.
  bool Settled = false;
  std::string RealPath;
  std::string Bytes;
};

/// What an instance holds of the cache: every entry its SourceMgr has a
/// view of. Shared by the instances that share a SourceMgr, and destroyed
/// after it.
using CachePins = std::vector<std::shared_ptr<const CachedParse>>;

/// Adds Contents, read from Path, to SM as a buffer named DisplayName
/// (included from IncludeLoc) and parses it, reporting to Diags. Without a
/// Cache, the buffer is a copy and the tree goes into Ctx. With one, a
/// cached parse of the same bytes is used when there is one, and a parse
/// that reported nothing is kept for the next compilation; the entry is
/// pinned in Pins either way.
sema::SourceFile parseSource(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
                             ast::ASTContext &Ctx,
                             const parse::ParseLimits &Limits,
                             ModuleCache *Cache, CachePins &Pins,
                             llvm::StringRef Path, llvm::StringRef DisplayName,
                             llvm::StringRef Contents, llvm::SMLoc IncludeLoc);

/// The canonical form of Path in FS (symbolic links resolved); Path itself
/// when it has none (standard input, a path that does not exist).
std::string realPath(llvm::vfs::FileSystem &FS, llvm::StringRef Path);

/// How an instance reads its files: through FS (the real file system, or
/// what its creator gave it, under the invocations' overrides), and, given
/// a ModuleCache, without reading again a real file whose stamp is the one
/// the cache read it with.
///
/// A stamp stands for the bytes only where it can: on the real file system
/// (an override or another file system has no inode and no clock), and
/// once the file's modification time is older than the read by more than
/// the timestamp granularity of any local file system (Linux stamps a
/// write with a clock that advances per scheduler tick, FAT per 2 s): a
/// write after the read then gets a later time. Until then the file is read
/// and its bytes compared as before -- a file saved a moment ago costs a
/// read, never a stale tree. This is git's "racily clean" rule.
class FileSource {
public:
  static constexpr std::chrono::seconds StampMargin{3};

  FileSource(
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS, bool RealBase,
      std::vector<llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem>>
          Overrides)
      : FS(std::move(FS)), RealBase(RealBase), Overrides(std::move(Overrides)) {
  }

  llvm::vfs::FileSystem &fileSystem() const { return *FS; }
  const llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> &fileSystemRef() const {
    return FS;
  }
  bool realBase() const { return RealBase; }
  const std::vector<llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem>> &
  overrides() const {
    return Overrides;
  }

  /// Whether Path is read from the real file system (no override has it).
  bool isReal(llvm::StringRef Path) const;

  /// Path's real path, St being its status: the cache's when its record is
  /// of the same file (device and inode), else asked of the file system.
  std::string realPathOf(llvm::StringRef Path, const llvm::vfs::Status &St,
                         ModuleCache *Cache) const;

  /// The bytes of Path, a regular file with real path RealPath whose status
  /// St was taken no earlier than Now. Without a cache, or for a path not
  /// on the real file system, read through FS; else the cache's record
  /// when it is settled and St has its stamp, or a plain read (no real
  /// path asked of the open file) kept as the new record.
  llvm::ErrorOr<std::shared_ptr<const FileRecord>>
  read(llvm::StringRef Path, const llvm::vfs::Status &St,
       llvm::sys::TimePoint<> Now, llvm::StringRef RealPath,
       ModuleCache *Cache) const;
  /// The bytes of Path read through FS, neither stamped nor kept: how a
  /// file is read without a cache, off the real file system, or without a
  /// status to trust.
  llvm::ErrorOr<std::shared_ptr<const FileRecord>>
  readThrough(llvm::StringRef Path, llvm::StringRef RealPath) const;

private:
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS;
  bool RealBase;
  std::vector<llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem>>
      Overrides;
};

class ImportSearch : public sema::ModuleLoader {
public:
  ImportSearch(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
               ast::ASTContext &Ctx, const FileSource &Files,
               const CompilerInvocation &Inv, ModuleCache *Cache,
               CachePins &Pins)
      : SM(SM), Diags(Diags), Ctx(Ctx), Files(Files), FS(Files.fileSystem()),
        Inv(Inv), Cache(Cache), Pins(Pins) {}

  std::optional<sema::ImportTarget> find(llvm::StringRef Target,
                                         llvm::StringRef ImporterRealPath,
                                         llvm::StringRef ImporterName) override;
  std::optional<sema::SourceFile> load(const sema::ImportTarget &T,
                                       llvm::SMRange ImportRange) override;

private:
  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  const FileSource &Files;
  llvm::vfs::FileSystem &FS;
  const CompilerInvocation &Inv;
  ModuleCache *Cache;
  CachePins &Pins;
  /// The status find() took of the target it returned last, and when:
  /// load() reads that target next (Sema loads what it just found).
  std::string FoundPath;
  std::optional<llvm::vfs::Status> FoundStatus;
  llvm::sys::TimePoint<> FoundAt;
};

} // namespace frontend
} // namespace arecipe

#endif // ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
