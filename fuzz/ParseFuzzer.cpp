//===- ParseFuzzer.cpp - libFuzzer target over the front end -------------===//
//
// Feeds arbitrary bytes through the whole front end, as the compiler runs
// it (frontend::CompilerInstance): UTF-8 check, lexer, parser with error
// recovery, AST builder -- and the `--emit ast` dumper; then the same bytes
// as the value of one `--set` option (the front end's command-line parser).
// Any crash, sanitizer report, leak or hang is a bug; diagnostics are the
// expected outcome for bad input and are discarded.
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace arecipe;
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  frontend::CompilerInvocation Inv;
  Inv.MainFile = "fuzz";
  Inv.Overrides[Inv.MainFile] = Bytes;
  Inv.Sets = {"v=" + Bytes};
  Inv.ErrorLimit = 0;
  // Every diagnostic goes through the real printer (carets, notes), into
  // nothing: the printer reads the same untrusted text.
  llvm::raw_null_ostream NullOS;
  TextDiagnosticPrinter Consumer(NullOS);
  frontend::CompilerInstance CI(Inv, &Consumer);
  CI.parse();
  if (ast::File *F = CI.getAST()) {
    llvm::raw_null_ostream Null;
    ast::dumpJSON(*F, CI.getSourceMgr(), Null);
  }
  (void)CI.parseSetOptions();
  CI.getDiagnostics().finish();
  return 0;
}
