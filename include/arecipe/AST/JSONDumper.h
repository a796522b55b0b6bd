//===- JSONDumper.h - `arecipec --emit ast` ---------------------*- C++ -*-===//
//
// Writes a syntax tree as pretty-printed JSON for `--emit ast`: every node an
// object whose first keys are "kind" and "range" ("line:col-line:col", 1-based
// byte columns, end exclusive), then its fields in a fixed order, so the same
// input always gives the same bytes. File names are the SourceMgr buffer
// identifiers as given on the command line; the dumper never adds a path.
// It reads the tree only and must not depend on Sema.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_JSONDUMPER_H
#define ARECIPE_AST_JSONDUMPER_H

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace arecipe::ast {

class File;

struct DumpOptions {
  /// Without locations every "range" (and a block's "lbrace"/"rbrace") is
  /// the empty string: two texts that differ only in layout and comments
  /// dump alike, which is how the formatter proves it kept the meaning.
  bool Locations = true;
};

void dumpJSON(const File &F, const llvm::SourceMgr &SM, llvm::raw_ostream &OS,
              const DumpOptions &Opts = DumpOptions());

} // namespace arecipe::ast

#endif // ARECIPE_AST_JSONDUMPER_H
