//===- ParseDiffFuzzer.cpp - The fast parser against the reference ------===//
//
// A differential libFuzzer target over lib/Parse's two parsers: the bytes
// are parsed as a file and as one `--set` value by the hand-written fast
// parser alone, by the ANTLR reference alone and by the default path
// (parse::compareParsersOnFile/OnExpr). If the fast parser builds a tree,
// the reference must accept the text cleanly with the same tree (the
// `--emit ast` dump and the ranges it leaves out) and the same warnings;
// whatever happens, the default path must give exactly the reference's tree
// and diagnostics. A difference aborts with both sides printed.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Parse/ParserDiff.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

static void check(const arecipe::parse::ParserComparison &C,
                  llvm::StringRef As) {
  if (C.Difference.empty())
    return;
  llvm::errs() << "the parsers differ on the input as " << As << ":\n"
               << C.Difference << "\n";
  abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace arecipe::parse;
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  check(compareParsersOnFile("fuzz", Bytes), "a file");
  check(compareParsersOnExpr(Bytes), "a --set value");
  return 0;
}
