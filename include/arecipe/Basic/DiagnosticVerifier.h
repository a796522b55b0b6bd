//===- DiagnosticVerifier.h - The -verify mode -----------------*- C++ -*-===//
//
// Checks the diagnostics of a run against expectations written in the input
// itself, as clang's -verify does:
//
//   window = 2 * // expected-error {{expected expression after '*'}}
//   // expected-note@-3 {{band 'mid' declared here}}
//   // expected-warning@+1 2 {{unused}}
//   // expected-no-diagnostics
//
// Directive: expected-{error|warning|note|remark}[@+N|@-N|@N|@*] [COUNT]
// {{TEXT}}. It matches diagnostics of that level on that line of the same
// buffer whose message contains TEXT (@* matches any line, and diagnostics
// without a location). Every buffer of the SourceMgr is scanned line by
// line, so directives work in either comment style. The verifier captures
// diagnostics instead of printing them; it does not parse recipes.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_DIAGNOSTICVERIFIER_H
#define ARECIPE_BASIC_DIAGNOSTICVERIFIER_H

#include "arecipe/Basic/Diagnostic.h"

#include <vector>

namespace arecipe {

class DiagnosticVerifier : public DiagnosticConsumer {
public:
  /// Install as the consumer of the engine that checks the input.
  void handleDiagnostic(const llvm::SourceMgr &SM,
                        const Diagnostic &Diag) override;

  /// Compares the captured diagnostics (flush the checked engine first)
  /// with the directives in every buffer of SM. Mismatches, malformed
  /// directives and a missing directive are reported to Out, clang-style.
  /// Returns true when everything matched.
  [[nodiscard]] bool verify(const llvm::SourceMgr &SM, DiagnosticEngine &Out);

private:
  std::vector<Diagnostic> Captured; ///< Notes flattened to top level.
};

} // namespace arecipe

#endif // ARECIPE_BASIC_DIAGNOSTICVERIFIER_H
