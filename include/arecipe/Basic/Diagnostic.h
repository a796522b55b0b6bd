//===- Diagnostic.h - Collecting and reporting diagnostics -----*- C++ -*-===//
//
// The diagnostics engine: every layer reports mistakes in user input here,
// keeps going, and returns success/failure; the engine collects what was
// reported and, on flush(), hands it sorted by source position to a consumer
// (text printer, JSON printer, or the -verify checker). It works over an
// llvm::SourceMgr it does not own. It must not decide control flow for its
// callers (no exceptions, no exit) and must not carry API or I/O failures of
// the program itself, which are llvm::Error's job.
//
// Typical use:
//
//   Diags.report(Tok.getLoc(), DiagID::err_expected_after) << "'='" <<
//   "'window'"
//       << Range << FixIt::insert(Loc, "=");
//   Diags.report(Other, DiagID::note_matching_delimiter) << "{";  // attaches
//                                                                 // to the
//                                                                 error
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_DIAGNOSTIC_H
#define ARECIPE_BASIC_DIAGNOSTIC_H

#include "arecipe/Basic/DiagnosticIDs.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <type_traits>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace arecipe {

/// A suggested edit: replace the half-open byte range Range with Text.
/// An insertion has an empty range; a removal has empty text.
struct FixIt {
  llvm::SMRange Range;
  std::string Text;

  static FixIt replace(llvm::SMRange Range, llvm::StringRef Text);
  static FixIt insert(llvm::SMLoc Loc, llvm::StringRef Text);
  static FixIt remove(llvm::SMRange Range);
};

/// A fully formatted diagnostic as recorded by the engine. Ranges are
/// half-open ([Start, End), as llvm::SMRange). An invalid Loc means the
/// diagnostic has no place in the source (driver and I/O errors).
struct Diagnostic {
  DiagID ID;
  DiagLevel Level; ///< Effective level (a warning may be promoted to error).
  llvm::SMLoc Loc;
  std::string Message;
  std::vector<llvm::SMRange> Ranges;
  std::vector<FixIt> FixIts;
  std::vector<Diagnostic> Notes; ///< Printed right after this diagnostic.
};

class DiagnosticEngine;

/// Builds one diagnostic; it is recorded when the builder is destroyed (at
/// the end of the full expression that made it). Arguments fill the
/// format's {0}, {1}, ... in the order they are streamed.
class DiagnosticBuilder {
public:
  DiagnosticBuilder(const DiagnosticBuilder &) = delete;
  DiagnosticBuilder &operator=(const DiagnosticBuilder &) = delete;
  ~DiagnosticBuilder();

  DiagnosticBuilder &operator<<(llvm::StringRef Arg);
  DiagnosticBuilder &operator<<(const char *Arg) {
    return *this << llvm::StringRef(Arg);
  }
  DiagnosticBuilder &operator<<(const std::string &Arg) {
    return *this << llvm::StringRef(Arg);
  }
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                    !std::is_same_v<T, bool> &&
                                                    !std::is_same_v<T, char>>>
  DiagnosticBuilder &operator<<(T Arg) {
    if constexpr (std::is_signed_v<T>)
      return addIntArg(static_cast<long long>(Arg));
    else
      return addUIntArg(static_cast<unsigned long long>(Arg));
  }
  DiagnosticBuilder &operator<<(double Arg);
  /// Underlines the range with ~ under the source line.
  DiagnosticBuilder &operator<<(llvm::SMRange Range);
  DiagnosticBuilder &operator<<(FixIt Fix);

  /// Starts a note attached to this diagnostic; it is attached when the
  /// returned builder is destroyed, so this builder must outlive it (true
  /// for a single full expression).
  DiagnosticBuilder note(llvm::SMLoc Loc, DiagID ID);

private:
  friend class DiagnosticEngine;
  DiagnosticBuilder(DiagnosticEngine *Engine, Diagnostic *Parent, DiagID ID,
                    llvm::SMLoc Loc, llvm::SMRange Range = llvm::SMRange());
  DiagnosticBuilder &addIntArg(long long Arg);
  DiagnosticBuilder &addUIntArg(unsigned long long Arg);

  DiagnosticEngine *Engine;
  Diagnostic *Parent; ///< Non-null for a note built with note().
  Diagnostic Diag;
  llvm::SmallVector<std::string, 4> Args;
};

/// Receives diagnostics from DiagnosticEngine::flush(), sorted by position.
class DiagnosticConsumer {
public:
  virtual ~DiagnosticConsumer();
  virtual void handleDiagnostic(const llvm::SourceMgr &SM,
                                const Diagnostic &Diag) = 0;
  /// Called by DiagnosticEngine::finish() once no more diagnostics will come.
  virtual void finish() {}
};

class DiagnosticEngine {
public:
  /// Neither SM nor Consumer is owned; both must outlive the engine (the
  /// destructor flushes).
  explicit DiagnosticEngine(const llvm::SourceMgr &SM,
                            DiagnosticConsumer *Consumer = nullptr);
  DiagnosticEngine(const DiagnosticEngine &) = delete;
  DiagnosticEngine &operator=(const DiagnosticEngine &) = delete;
  ~DiagnosticEngine();

  const llvm::SourceMgr &getSourceMgr() const { return SM; }
  void setConsumer(DiagnosticConsumer *C) { Consumer = C; }
  DiagnosticConsumer *getConsumer() const { return Consumer; }

  /// Reports a diagnostic at Loc (invalid Loc: no location). A note reported
  /// this way attaches to the last reported non-note diagnostic.
  DiagnosticBuilder report(llvm::SMLoc Loc, DiagID ID);
  /// Reports at Range.Start and underlines Range.
  DiagnosticBuilder report(llvm::SMRange Range, DiagID ID);

  /// Errors kept before "too many errors emitted, stopping now"; once it is
  /// reached every later diagnostic is dropped. 0 means no limit. Default 20.
  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }
  void setWarningsAsErrors(bool Enable) { WarningsAsErrors = Enable; }

  bool hasErrors() const { return NumErrors != 0; }
  unsigned errorCount() const { return NumErrors; }
  unsigned warningCount() const { return NumWarnings; }
  /// True once the error limit dropped a diagnostic; a caller may stop early.
  bool hasReachedErrorLimit() const { return LimitReached; }

  /// Sorts what was reported since the last flush by (buffer, offset) --
  /// diagnostics without a location first, ties in report order, notes
  /// after their parent -- and hands it to the consumer. Also appends the
  /// emitted ids to the coverage file when ARECIPE_DIAG_COVERAGE_DIR is set.
  void flush();
  /// flush(), then DiagnosticConsumer::finish().
  void finish();

private:
  friend class DiagnosticBuilder;
  void record(Diagnostic Diag);
  void writeCoverage();

  const llvm::SourceMgr &SM;
  DiagnosticConsumer *Consumer;
  std::vector<Diagnostic> Pending;
  std::vector<bool> Emitted;         ///< Indexed by DiagID, for coverage.
  std::vector<bool> CoverageWritten; ///< Ids already in the coverage file.
  unsigned ErrorLimit = 20;
  unsigned NumErrors = 0;
  unsigned NumWarnings = 0;
  bool WarningsAsErrors = false;
  bool LimitReached = false;
  bool LimitReported = false;
  bool LastDropped = false; ///< Drops the notes of a dropped diagnostic.
};

} // namespace arecipe

#endif // ARECIPE_BASIC_DIAGNOSTIC_H
