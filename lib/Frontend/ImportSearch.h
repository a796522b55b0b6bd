//===- ImportSearch.h - Finding and parsing imported files -----*- C++ -*-===//
//
// Private to lib/Frontend: the ModuleLoader Sema loads imports through.
// `import "std/engines/atom"` names `std/engines/atom.arecipe`, searched
// relative to the importing file (its real directory; the buffer keeps the
// importer's spelling), then in each -I directory, then in the std root
// (named `std/...` in output, so no absolute path appears that was not
// written). Found files are read through the instance's file system and
// parsed into its SourceMgr and ASTContext.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
#define ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H

#include "arecipe/Frontend/CompilerInvocation.h"
#include "arecipe/Sema/Sema.h"

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

/// The canonical form of Path in FS (symbolic links resolved); Path itself
/// when it has none (standard input, a path that does not exist).
std::string realPath(llvm::vfs::FileSystem &FS, llvm::StringRef Path);

class ImportSearch : public sema::ModuleLoader {
public:
  ImportSearch(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
               ast::ASTContext &Ctx, llvm::vfs::FileSystem &FS,
               const CompilerInvocation &Inv)
      : SM(SM), Diags(Diags), Ctx(Ctx), FS(FS), Inv(Inv) {}

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
};

} // namespace frontend
} // namespace arecipe

#endif // ARECIPE_LIB_FRONTEND_IMPORTSEARCH_H
