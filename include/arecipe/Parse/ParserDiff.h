//===- ParserDiff.h - Fast and reference parsers side by side --*- C++ -*-===//
//
// How the two parsers behind parse::parseFile and parse::parseExpr are kept
// equal (docs/architecture.md, lib/Parse): one text is parsed by each of
// them, alone, and what they produced is compared -- the tree as
// `arecipec --emit ast` dumps it, the ranges that dump leaves out (an
// operator's, a string part's), every diagnostic, and the tree of the
// default path (fast, then reference) against the reference's. The
// differential unit test over the repository's recipes and the
// differential fuzzer (fuzz/ParseDiffFuzzer.cpp) both call it.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_PARSE_PARSERDIFF_H
#define ARECIPE_PARSE_PARSERDIFF_H

#include "arecipe/Parse/Parser.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace arecipe::parse {

struct ParserComparison {
  /// The fast parser built a tree (it did not give up).
  bool FastAccepted = false;
  /// The reference built a tree and reported no error.
  bool ReferenceClean = false;
  /// Empty when the parsers agree; otherwise what differs, for a message.
  std::string Difference;
};

/// Compares the parsers on Text as a file named Name.
ParserComparison
compareParsersOnFile(llvm::StringRef Name, llvm::StringRef Text,
                     const ParseLimits &Limits = ParseLimits());

/// Compares the parsers on Text as a `--set` value.
ParserComparison
compareParsersOnExpr(llvm::StringRef Text,
                     const ParseLimits &Limits = ParseLimits());

} // namespace arecipe::parse

#endif // ARECIPE_PARSE_PARSERDIFF_H
