//===- TextDiagnosticPrinter.h - Clang-style text output -------*- C++ -*-===//
//
// Prints diagnostics the way clang does:
//
//   file:line:col: error: message
//     source line
//            ^~~~
//            fix-it text
//
// Columns are 1-based byte columns; the caret line is aligned by display
// width, so multi-byte UTF-8 before the caret does not shift it. A
// diagnostic without a location prints as "<program>: error: message". The
// printer only formats; it never decides what is reported.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_TEXTDIAGNOSTICPRINTER_H
#define ARECIPE_BASIC_TEXTDIAGNOSTICPRINTER_H

#include "arecipe/Basic/Diagnostic.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace arecipe {

class TextDiagnosticPrinter : public DiagnosticConsumer {
public:
  explicit TextDiagnosticPrinter(llvm::raw_ostream &OS,
                                 llvm::StringRef ProgramName = "arecipec",
                                 bool UseColors = false);

  void handleDiagnostic(const llvm::SourceMgr &SM,
                        const Diagnostic &Diag) override;

private:
  void printOne(const llvm::SourceMgr &SM, const Diagnostic &Diag);

  llvm::raw_ostream &OS;
  std::string ProgramName;
  bool UseColors;
};

} // namespace arecipe

#endif // ARECIPE_BASIC_TEXTDIAGNOSTICPRINTER_H
