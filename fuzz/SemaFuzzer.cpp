//===- SemaFuzzer.cpp - libFuzzer target over Sema and plan lowering ------===//
//
// Runs arbitrary recipes through the compiler as arecipec does
// (frontend::CompilerInstance): parser, semantic analysis (imports of the
// real std/ library, knob resolution, cell evaluation, checks), the
// `--emit cells` JSON writer and the launch-plan builder and emitter. Bytes
// that fail to parse teach it nothing, so the target is meant to be driven
// with fuzz/sema.dict (keywords, knob names, units, std imports) and seeds
// taken from examples/ and test/Sema: mutations then stay mostly well-formed
// and reach Sema. Diagnostics are the expected result for bad input; a crash,
// sanitizer report, leak or hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/LaunchPlan.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace arecipe;
  frontend::CompilerInvocation Inv;
  // Named as a file of examples/ (held in memory) so relative imports
  // resolve like a user's recipe; `std/...` imports come from the source
  // tree's std/.
  Inv.MainFile = ARECIPE_FUZZ_SOURCE_ROOT "/examples/fuzz.arecipe";
  Inv.Overrides[Inv.MainFile] =
      std::string(reinterpret_cast<const char *>(Data), Size);
  Inv.StdRoot = ARECIPE_FUZZ_SOURCE_ROOT;
  Inv.ErrorLimit = 0;
  // Every diagnostic goes through the real printer (carets, notes), into
  // nothing: the printer reads the same untrusted text.
  llvm::raw_null_ostream NullOS;
  TextDiagnosticPrinter Consumer(NullOS);
  frontend::CompilerInstance CI(Inv, &Consumer);
  if (CI.analyze() == frontend::Status::Ok) {
    llvm::raw_null_ostream Null;
    sema::emitCellsJSON(CI.getSema(), Null);
    if (codegen::PlanLowering *Plan = CI.lowerPlan())
      codegen::emitPlan(*Plan, Null);
  }
  CI.getDiagnostics().finish();
  return 0;
}
