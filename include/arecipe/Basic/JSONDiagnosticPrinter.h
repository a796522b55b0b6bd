//===- JSONDiagnosticPrinter.h - Machine-readable output -------*- C++ -*-===//
//
// Prints diagnostics as JSON Lines (--diagnostics-format=json): one compact
// JSON object per top-level diagnostic per line, notes nested inside, keys in
// a fixed order, so the same input gives the same bytes. The schema is in
// docs/diagnostics.md. File names are the SourceMgr buffer identifiers as
// given; the printer adds no paths of its own.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_JSONDIAGNOSTICPRINTER_H
#define ARECIPE_BASIC_JSONDIAGNOSTICPRINTER_H

#include "arecipe/Basic/Diagnostic.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace arecipe {

class JSONDiagnosticPrinter : public DiagnosticConsumer {
public:
  explicit JSONDiagnosticPrinter(llvm::raw_ostream &OS) : OS(OS) {}

  void handleDiagnostic(const llvm::SourceMgr &SM,
                        const Diagnostic &Diag) override;

  /// The JSON object for one diagnostic (with its notes), as one line
  /// without the trailing newline.
  static std::string toJSON(const llvm::SourceMgr &SM, const Diagnostic &Diag);

private:
  llvm::raw_ostream &OS;
};

} // namespace arecipe

#endif // ARECIPE_BASIC_JSONDIAGNOSTICPRINTER_H
