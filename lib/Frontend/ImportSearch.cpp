//===- ImportSearch.cpp - Finding and parsing imported files --------------===//

#include "ImportSearch.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/VirtualFileSystem.h"

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
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy((*Buf)->getBuffer(), T.DisplayName),
      ImportRange.Start);
  ast::File *F = parse::parseFile(SM, ID, Diags, Ctx, Inv.Limits);
  return sema::SourceFile{ID, F, T.RealPath};
}
