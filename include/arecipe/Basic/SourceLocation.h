//===- SourceLocation.h - Where a location is, as users read it -*- C++ -*-===//
//
// Turns an llvm::SMLoc into what every output shows: the name of the
// SourceMgr buffer holding it (the path as the tool or the import named
// it, never made absolute), the 1-based line and the 1-based byte column.
// Diagnostics, `--emit cells` origins, `--explain` and the plan's knob
// origins all print locations through here, so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_SOURCELOCATION_H
#define ARECIPE_BASIC_SOURCELOCATION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace arecipe {

struct PresumedLoc {
  llvm::StringRef File; ///< The buffer identifier; lives as long as SM.
  unsigned Line = 0;
  unsigned Column = 0; ///< In bytes.
};

/// Loc's place; nullopt for an invalid location or one in no buffer of SM.
std::optional<PresumedLoc> getPresumedLoc(const llvm::SourceMgr &SM,
                                          llvm::SMLoc Loc);

/// "file:line:col", or nullopt as getPresumedLoc.
std::optional<std::string> formatLocation(const llvm::SourceMgr &SM,
                                          llvm::SMLoc Loc);

} // namespace arecipe

#endif // ARECIPE_BASIC_SOURCELOCATION_H
