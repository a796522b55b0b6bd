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
// the main file goes through too).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
#define ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Frontend/CompilerInvocation.h"
#include "arecipe/Frontend/ModuleCache.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/MemoryBuffer.h"

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

class ImportSearch : public sema::ModuleLoader {
public:
  ImportSearch(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
               ast::ASTContext &Ctx, llvm::vfs::FileSystem &FS,
               const CompilerInvocation &Inv, ModuleCache *Cache,
               CachePins &Pins)
      : SM(SM), Diags(Diags), Ctx(Ctx), FS(FS), Inv(Inv), Cache(Cache),
        Pins(Pins) {}

  std::optional<sema::ImportTarget> find(llvm::StringRef Target,
                                         llvm::StringRef ImporterRealPath,
                                         llvm::StringRef ImporterName) override;
  std::optional<sema::SourceFile> load(const sema::ImportTarget &T,
                                       llvm::SMRange ImportRange) override;

private:
  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  llvm::vfs::FileSystem &FS;
  const CompilerInvocation &Inv;
  ModuleCache *Cache;
  CachePins &Pins;
};

} // namespace frontend
} // namespace arecipe

#endif // ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
