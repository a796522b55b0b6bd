//===- DiagnosticIDs.h - The table of every declared diagnostic -*- C++ -*-===//
//
// Every diagnostic arecipe can emit is declared exactly once, in one of the
// Diagnostic*Kinds.def tables, with a stable id, a level and a message
// format. This header turns those tables into the DiagID enumeration and lets
// tools enumerate them (arecipec --list-diagnostics, coverage checking).
// It knows nothing about source locations or output; see Diagnostic.h.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_DIAGNOSTICIDS_H
#define ARECIPE_BASIC_DIAGNOSTICIDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace arecipe {

enum class DiagLevel : uint8_t { Note, Remark, Warning, Error };

/// One enumerator per declared diagnostic; the enumerator's name is the
/// diagnostic's stable id string.
enum class DiagID : uint16_t {
#define DIAG(ID, LEVEL, FORMAT) ID,
#include "arecipe/Basic/DiagnosticDriverKinds.def"
#include "arecipe/Basic/DiagnosticParseKinds.def"
#include "arecipe/Basic/DiagnosticSemaKinds.def"
#include "arecipe/Basic/DiagnosticCodegenKinds.def"
#undef DIAG
};

/// What the table says about one diagnostic.
struct DiagInfo {
  DiagID ID;
  llvm::StringRef Name;   ///< The stable id, e.g. "err_expected_expr".
  DiagLevel Level;        ///< The declared level (before -Werror promotion).
  llvm::StringRef Format; ///< fmt-style format with positional {N} args.
};

const DiagInfo &getDiagInfo(DiagID ID);

/// Every declared diagnostic, in table order (driver, parse, sema, codegen).
llvm::ArrayRef<DiagInfo> listDiagnostics();

/// "error", "warning", "note" or "remark".
llvm::StringRef getLevelName(DiagLevel Level);

} // namespace arecipe

#endif // ARECIPE_BASIC_DIAGNOSTICIDS_H
