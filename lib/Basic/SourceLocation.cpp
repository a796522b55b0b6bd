//===- SourceLocation.cpp - Where a location is, as users read it ---------===//

#include "arecipe/Basic/SourceLocation.h"

#include "llvm/Support/SourceMgr.h"

using namespace arecipe;

std::optional<PresumedLoc> arecipe::getPresumedLoc(const llvm::SourceMgr &SM,
                                                   llvm::SMLoc Loc) {
  unsigned ID = Loc.isValid() ? SM.FindBufferContainingLoc(Loc) : 0;
  if (!ID)
    return std::nullopt;
  auto [Line, Column] = SM.getLineAndColumn(Loc, ID);
  return PresumedLoc{SM.getMemoryBuffer(ID)->getBufferIdentifier(), Line,
                     Column};
}

std::optional<std::string> arecipe::formatLocation(const llvm::SourceMgr &SM,
                                                   llvm::SMLoc Loc) {
  std::optional<PresumedLoc> P = getPresumedLoc(SM, Loc);
  if (!P)
    return std::nullopt;
  return P->File.str() + ":" + std::to_string(P->Line) + ":" +
         std::to_string(P->Column);
}
