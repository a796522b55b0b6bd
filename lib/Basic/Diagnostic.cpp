//===- Diagnostic.cpp - Collecting and reporting diagnostics --------------===//

#include "arecipe/Basic/Diagnostic.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

using namespace arecipe;

FixIt FixIt::replace(llvm::SMRange Range, llvm::StringRef Text) {
  return {Range, Text.str()};
}

FixIt FixIt::insert(llvm::SMLoc Loc, llvm::StringRef Text) {
  return {llvm::SMRange(Loc, Loc), Text.str()};
}

FixIt FixIt::remove(llvm::SMRange Range) { return {Range, std::string()}; }

/// Substitutes {N} with Args[N]; "{{" and "}}" are literal braces. This is
/// the positional subset of fmt syntax, done by hand so that a diagnostic
/// streamed with too few arguments still prints (with "{N}" left visible)
/// instead of throwing from inside a destructor.
static std::string formatMessage(llvm::StringRef Format,
                                 llvm::ArrayRef<std::string> Args) {
  std::string Out;
  Out.reserve(Format.size());
  for (size_t I = 0; I < Format.size(); ++I) {
    char C = Format[I];
    if ((C == '{' || C == '}') && I + 1 < Format.size() && Format[I + 1] == C) {
      Out += C;
      ++I;
      continue;
    }
    size_t Close = C == '{' ? Format.find('}', I) : llvm::StringRef::npos;
    unsigned Index;
    if (Close == llvm::StringRef::npos ||
        Format.slice(I + 1, Close).getAsInteger(10, Index) ||
        Index >= Args.size()) {
      Out += C;
      continue;
    }
    Out += Args[Index];
    I = Close;
  }
  return Out;
}

DiagnosticBuilder::DiagnosticBuilder(DiagnosticEngine *Engine,
                                     Diagnostic *Parent, DiagID ID,
                                     llvm::SMLoc Loc, llvm::SMRange Range)
    : Engine(Engine), Parent(Parent) {
  Diag.ID = ID;
  Diag.Level = getDiagInfo(ID).Level;
  Diag.Loc = Loc;
  *this << Range;
}

DiagnosticBuilder::~DiagnosticBuilder() {
  Diag.Message = formatMessage(getDiagInfo(Diag.ID).Format, Args);
  if (Parent)
    Parent->Notes.push_back(std::move(Diag));
  else
    Engine->record(std::move(Diag));
}

DiagnosticBuilder &DiagnosticBuilder::operator<<(llvm::StringRef Arg) {
  Args.push_back(Arg.str());
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::operator<<(double Arg) {
  Args.push_back(fmt::format("{}", Arg));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::addIntArg(long long Arg) {
  Args.push_back(std::to_string(Arg));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::addUIntArg(unsigned long long Arg) {
  Args.push_back(std::to_string(Arg));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::operator<<(llvm::SMRange Range) {
  if (Range.isValid())
    Diag.Ranges.push_back(Range);
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::operator<<(FixIt Fix) {
  if (Fix.Range.isValid())
    Diag.FixIts.push_back(std::move(Fix));
  return *this;
}

DiagnosticBuilder DiagnosticBuilder::note(llvm::SMLoc Loc, DiagID ID) {
  return DiagnosticBuilder(Engine, &Diag, ID, Loc);
}

DiagnosticConsumer::~DiagnosticConsumer() = default;

DiagnosticEngine::DiagnosticEngine(const llvm::SourceMgr &SM,
                                   DiagnosticConsumer *Consumer)
    : SM(SM), Consumer(Consumer), Emitted(listDiagnostics().size()),
      CoverageWritten(listDiagnostics().size()) {}

DiagnosticEngine::~DiagnosticEngine() { flush(); }

DiagnosticBuilder DiagnosticEngine::report(llvm::SMLoc Loc, DiagID ID) {
  return DiagnosticBuilder(this, nullptr, ID, Loc);
}

DiagnosticBuilder DiagnosticEngine::report(llvm::SMRange Range, DiagID ID) {
  return DiagnosticBuilder(this, nullptr, ID, Range.Start, Range);
}

static void markEmitted(std::vector<bool> &Emitted, const Diagnostic &Diag) {
  Emitted[static_cast<size_t>(Diag.ID)] = true;
  for (const Diagnostic &Note : Diag.Notes)
    markEmitted(Emitted, Note);
}

void DiagnosticEngine::record(Diagnostic Diag) {
  // A diagnostic counts as exercised even when the error limit drops it:
  // the code path that reports it ran.
  markEmitted(Emitted, Diag);

  if (Diag.Level == DiagLevel::Note) {
    if (LastDropped)
      return;
    if (!Pending.empty()) {
      Pending.back().Notes.push_back(std::move(Diag));
      return;
    }
    // The parent was flushed already; the note stands on its own.
    Pending.push_back(std::move(Diag));
    return;
  }

  if (Diag.Level == DiagLevel::Warning && WarningsAsErrors)
    Diag.Level = DiagLevel::Error;
  LastDropped = LimitReached || (Diag.Level == DiagLevel::Error &&
                                 ErrorLimit != 0 && NumErrors >= ErrorLimit);
  if (LastDropped) {
    LimitReached = true;
    return;
  }
  if (Diag.Level == DiagLevel::Error)
    ++NumErrors;
  else if (Diag.Level == DiagLevel::Warning)
    ++NumWarnings;
  Pending.push_back(std::move(Diag));
}

void DiagnosticEngine::flush() {
  // Sort key: (buffer, offset); no location (or one outside every buffer)
  // sorts first as buffer 0. Keys are computed once: finding a buffer is a
  // linear search.
  struct Keyed {
    unsigned Buffer;
    const char *Ptr;
    size_t Index;
  };
  std::vector<Keyed> Keys;
  Keys.reserve(Pending.size());
  for (size_t I = 0; I < Pending.size(); ++I) {
    llvm::SMLoc Loc = Pending[I].Loc;
    unsigned Buffer = Loc.isValid() ? SM.FindBufferContainingLoc(Loc) : 0;
    Keys.push_back({Buffer, Buffer ? Loc.getPointer() : nullptr, I});
  }
  std::stable_sort(Keys.begin(), Keys.end(),
                   [](const Keyed &L, const Keyed &R) {
                     if (L.Buffer != R.Buffer)
                       return L.Buffer < R.Buffer;
                     return std::less<const char *>()(L.Ptr, R.Ptr);
                   });

  std::vector<Diagnostic> Batch;
  Batch.swap(Pending);
  if (Consumer)
    for (const Keyed &K : Keys)
      Consumer->handleDiagnostic(SM, Batch[K.Index]);

  if (LimitReached && !LimitReported) {
    LimitReported = true;
    Diagnostic TooMany{DiagID::err_too_many_errors,
                       DiagLevel::Error,
                       llvm::SMLoc(),
                       getDiagInfo(DiagID::err_too_many_errors).Format.str(),
                       {},
                       {},
                       {}};
    markEmitted(Emitted, TooMany);
    if (Consumer)
      Consumer->handleDiagnostic(SM, TooMany);
  }
  writeCoverage();
}

void DiagnosticEngine::finish() {
  flush();
  if (Consumer)
    Consumer->finish();
}

void DiagnosticEngine::writeCoverage() {
  const char *Dir = std::getenv("ARECIPE_DIAG_COVERAGE_DIR");
  if (!Dir || !*Dir)
    return;
  std::string Ids;
  llvm::ArrayRef<DiagInfo> Table = listDiagnostics();
  for (size_t I = 0; I < Table.size(); ++I) {
    if (!Emitted[I] || CoverageWritten[I])
      continue;
    CoverageWritten[I] = true;
    Ids += Table[I].Name;
    Ids += '\n';
  }
  if (Ids.empty())
    return;
  llvm::SmallString<128> Path(Dir);
  llvm::sys::path::append(Path, "diag-" +
                                    llvm::Twine(static_cast<uint64_t>(
                                        llvm::sys::Process::getProcessId())) +
                                    ".txt");
  // Coverage is a test aid: failing to write it must not change what the
  // compiler does, so errors are ignored here and show up as missing ids.
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Append);
  if (!EC)
    OS << Ids;
}
