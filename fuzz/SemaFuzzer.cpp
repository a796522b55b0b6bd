//===- SemaFuzzer.cpp - libFuzzer target over Sema and plan lowering ------===//
//
// Runs arbitrary recipes through the parser, semantic analysis (imports of the
// real std/ library, knob resolution, cell evaluation, checks), the
// `--emit cells` JSON writer and the launch-plan builder and emitter. Bytes
// that fail to parse teach it nothing, so the target is meant to be driven
// with fuzz/sema.dict (keywords, knob names, units, std imports) and seeds
// taken from examples/ and test/Sema: mutations then stay mostly well-formed
// and reach Sema. Diagnostics are the expected result for bad input; a crash,
// sanitizer report, leak or hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/ASTContext.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/LaunchPlan.h"
#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Parse/Parser.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace arecipe;
  llvm::SourceMgr SM;
  // Named as a file of examples/ so relative imports resolve like a user's
  // recipe; `std/...` imports come from the source tree's std/.
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(Data), Size),
          ARECIPE_FUZZ_SOURCE_ROOT "/examples/fuzz.arecipe"),
      llvm::SMLoc());
  // Every diagnostic goes through the real printer (carets, notes), into
  // nothing: the printer reads the same untrusted text.
  llvm::raw_null_ostream NullOS;
  TextDiagnosticPrinter Consumer(NullOS);
  DiagnosticEngine Diags(SM, &Consumer);
  Diags.setErrorLimit(0);
  ast::ASTContext Ctx;
  ast::File *F = parse::parseFile(SM, ID, Diags, Ctx);
  if (F && !Diags.hasErrors()) {
    sema::SemaOptions Opts;
    Opts.StdRoot = ARECIPE_FUZZ_SOURCE_ROOT;
    sema::Compilation C(SM, Diags, Ctx, std::move(Opts));
    if (C.run(ID, F)) {
      llvm::raw_null_ostream Null;
      sema::emitCellsJSON(C, Null);
      if (std::optional<codegen::LaunchPlan> Plan =
              codegen::buildLaunchPlan(C, codegen::PlanOptions(), Diags))
        codegen::emitPlan(*Plan, Null);
    }
  }
  Diags.finish();
  return 0;
}
