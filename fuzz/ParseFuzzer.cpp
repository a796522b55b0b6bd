//===- ParseFuzzer.cpp - libFuzzer target over the front end -------------===//
//
// Feeds arbitrary bytes through the whole front end -- UTF-8 check, lexer,
// parser with error recovery, AST builder -- and the `--emit ast` dumper,
// then the same bytes as one `--set` value (parse::parseExpr).
// Any crash, sanitizer report, leak or hang is a bug; diagnostics are the
// expected outcome for bad input and are discarded.
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(Data), Size), "fuzz"),
      llvm::SMLoc());
  // Every diagnostic goes through the real printer (carets, notes), into
  // nothing: the printer reads the same untrusted text.
  llvm::raw_null_ostream NullOS;
  arecipe::TextDiagnosticPrinter Consumer(NullOS);
  arecipe::DiagnosticEngine Diags(SM, &Consumer);
  Diags.setErrorLimit(0);
  arecipe::ast::ASTContext Ctx;
  if (arecipe::ast::File *F = arecipe::parse::parseFile(SM, 1, Diags, Ctx)) {
    llvm::raw_null_ostream Null;
    arecipe::ast::dumpJSON(*F, SM, Null);
  }
  arecipe::ast::ASTContext ExprCtx;
  (void)arecipe::parse::parseExpr(SM, SM.getMemoryBuffer(1)->getBuffer(), Diags, ExprCtx);
  Diags.finish();
  return 0;
}
