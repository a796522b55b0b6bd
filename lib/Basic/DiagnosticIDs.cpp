//===- DiagnosticIDs.cpp - The table of every declared diagnostic ---------===//

#include "arecipe/Basic/DiagnosticIDs.h"

#include "llvm/Support/ErrorHandling.h"

using namespace arecipe;

static const DiagInfo DiagTable[] = {
#define DIAG(ID, LEVEL, FORMAT) {DiagID::ID, #ID, DiagLevel::LEVEL, FORMAT},
#include "arecipe/Basic/DiagnosticDriverKinds.def"
#include "arecipe/Basic/DiagnosticParseKinds.def"
#include "arecipe/Basic/DiagnosticSemaKinds.def"
#include "arecipe/Basic/DiagnosticCodegenKinds.def"
#undef DIAG
};

const DiagInfo &arecipe::getDiagInfo(DiagID ID) {
  return DiagTable[static_cast<size_t>(ID)];
}

llvm::ArrayRef<DiagInfo> arecipe::listDiagnostics() { return DiagTable; }

llvm::StringRef arecipe::getLevelName(DiagLevel Level) {
  switch (Level) {
  case DiagLevel::Note:
    return "note";
  case DiagLevel::Remark:
    return "remark";
  case DiagLevel::Warning:
    return "warning";
  case DiagLevel::Error:
    return "error";
  }
  llvm_unreachable("unknown diagnostic level");
}
