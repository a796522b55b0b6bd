//===- CompileResult.h - What a test compile produced -----------*- C++ -*-===//
//
// Shared by the Frontend tests that compare compilations (with and without
// a ModuleCache): a compile in process as `arecipec --emit plan` does, kept
// as the plan bytes and the diagnostics text the command line would print.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_UNITTESTS_FRONTEND_COMPILERESULT_H
#define ARECIPE_UNITTESTS_FRONTEND_COMPILERESULT_H

#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Frontend/ModuleCache.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace arecipe::frontend::test {

/// What a compilation produced: the plan (empty after errors) and every
/// diagnostic as the command line prints it.
struct Result {
  std::string Plan;
  std::string Diags;
};

inline Result compile(const CompilerInvocation &Inv, ModuleCache *Cache) {
  Result R;
  llvm::raw_string_ostream DiagOS(R.Diags);
  TextDiagnosticPrinter Printer(DiagOS);
  std::optional<std::string> Plan = compileToPlanJSON(Inv, Printer, Cache);
  DiagOS.flush();
  if (Plan)
    R.Plan = *Plan;
  return R;
}

} // namespace arecipe::frontend::test

#endif // ARECIPE_UNITTESTS_FRONTEND_COMPILERESULT_H
