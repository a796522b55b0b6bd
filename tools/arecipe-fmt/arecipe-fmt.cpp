//===- arecipe-fmt.cpp - The canonical formatter of .arecipe files --------===//
//
// A thin main over lib/Format: formats each FILE (standard input when there
// is none, or for `-`) to standard output, in place with -i, or with
// --check prints a unified diff for each file that is not formatted. A file
// with syntax errors is refused with the parser's diagnostics; a file the
// formatter could not prove it kept (a formatter bug) is refused too, and
// never half formatted or half written. Exit status: 0 success, 1 a file
// was refused or (with --check) is not formatted, 2 usage or I/O errors.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/StandardStreams.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Format/Format.h"
#include "arecipe/Format/TextDiff.h"
#include "arecipe/Support/ProcessExit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace arecipe;
namespace cl = llvm::cl;

namespace {

enum ExitCode { ExitOk = 0, ExitRefused = 1, ExitUsage = 2 };

cl::OptionCategory Category("arecipe-fmt options");

cl::list<std::string>
    Inputs(cl::Positional, cl::ZeroOrMore,
           cl::desc("[FILE...] (standard input if none, or '-')"),
           cl::cat(Category));
cl::opt<bool> InPlace("i", cl::desc("Rewrite each FILE in place (atomically)"),
                      cl::cat(Category));
cl::opt<bool>
    Check("check",
          cl::desc("Write nothing; print a unified diff for each file "
                   "that is not formatted and exit 1 if there is one"),
          cl::cat(Category));

// A test hook: spoils the formatted text before the formatter checks it, to
// show that the checks refuse a formatter that changed the meaning or moved
// a comment (test/Format/refuses-unsafe-output.test).
enum class Corruption { None, Tree, Comment };
cl::opt<Corruption> DebugCorrupt(
    "debug-corrupt-output", cl::Hidden, cl::init(Corruption::None),
    cl::values(clEnumValN(Corruption::Tree, "tree",
                          "drop the last line's code"),
               clEnumValN(Corruption::Comment, "comment",
                          "move the first own-line comment to the end")),
    cl::cat(Category));

/// Forwards errors (with their notes) and drops warnings: the formatter's
/// output is the file's layout, not an opinion on its contents.
class ErrorsOnly : public DiagnosticConsumer {
public:
  explicit ErrorsOnly(DiagnosticConsumer &Next) : Next(Next) {}
  void handleDiagnostic(const llvm::SourceMgr &SM,
                        const Diagnostic &D) override {
    if (D.Level == DiagLevel::Error)
      Next.handleDiagnostic(SM, D);
  }
  void finish() override { Next.finish(); }

private:
  DiagnosticConsumer &Next;
};

void corrupt(std::string &Text) {
  llvm::StringRef S = Text;
  if (DebugCorrupt == Corruption::Tree) {
    // Drops the last line that is not a closing brace or a comment.
    size_t End = S.rtrim().size();
    while (End) {
      size_t Start = S.rfind('\n', End - 1);
      Start = Start == llvm::StringRef::npos ? 0 : Start + 1;
      llvm::StringRef Line = S.slice(Start, End).trim();
      if (!Line.empty() && Line != "}" && !Line.startswith("//")) {
        Text.erase(Start, End - Start);
        return;
      }
      End = Start ? Start - 1 : 0;
    }
  } else if (DebugCorrupt == Corruption::Comment) {
    size_t Pos = 0;
    while (Pos < S.size()) {
      size_t NL = S.find('\n', Pos);
      llvm::StringRef Line = S.slice(Pos, NL);
      if (Line.trim().startswith("//")) {
        std::string Comment = Line.trim().str();
        Text.erase(Pos,
                   (NL == llvm::StringRef::npos ? S.size() : NL + 1) - Pos);
        Text += Comment + "\n";
        return;
      }
      if (NL == llvm::StringRef::npos)
        break;
      Pos = NL + 1;
    }
  }
}

/// Replaces the file Path (the file a symbolic link names, if it is one)
/// with Contents: written to a new file beside it with the same permission
/// bits, flushed to disk, then renamed over it, so a reader sees the old
/// text or the new one, never a mix. Returns the reason on failure.
std::optional<std::string> writeAtomically(llvm::StringRef Path,
                                           llvm::StringRef Contents) {
  llvm::SmallString<256> Real;
  if (std::error_code EC = llvm::sys::fs::real_path(Path, Real))
    return EC.message();
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Real, Status))
    return EC.message();
  int FD = -1;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          Real + ".fmt-%%%%%%", FD, Tmp, llvm::sys::fs::OF_None,
          llvm::sys::fs::owner_read | llvm::sys::fs::owner_write))
    return EC.message();
  std::optional<std::string> Failure;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
    OS << Contents;
    OS.flush();
    if (OS.has_error()) {
      Failure = OS.error().message();
      OS.clear_error();
    }
  }
  if (!Failure && ::fchmod(FD, Status.permissions() & 07777) != 0)
    Failure = std::error_code(errno, std::generic_category()).message();
  if (!Failure && ::fsync(FD) != 0)
    Failure = std::error_code(errno, std::generic_category()).message();
  if (::close(FD) != 0 && !Failure)
    Failure = std::error_code(errno, std::generic_category()).message();
  if (!Failure)
    if (std::error_code EC = llvm::sys::fs::rename(Tmp, Real))
      Failure = EC.message();
  if (Failure)
    llvm::sys::fs::remove(Tmp);
  return Failure;
}

/// Formats one input; returns its exit status.
int formatOne(llvm::StringRef Input, llvm::SourceMgr &SM,
              DiagnosticEngine &Diags) {
  bool Stdin = Input == "-";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      Stdin ? llvm::MemoryBuffer::getSTDIN()
            : llvm::MemoryBuffer::getFile(Input, /*IsText=*/false);
  if (!Buffer) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << Input << Buffer.getError().message();
    return ExitUsage;
  }
  std::string Name = Stdin ? "<stdin>" : Input.str();
  if (Stdin)
    *Buffer =
        llvm::MemoryBuffer::getMemBufferCopy((*Buffer)->getBuffer(), Name);
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  llvm::StringRef Original = SM.getMemoryBuffer(ID)->getBuffer();
  std::optional<std::string> Out =
      DebugCorrupt == Corruption::None
          ? format::formatBuffer(SM, ID, Diags)
          : format::formatBuffer(SM, ID, Diags, corrupt);
  if (!Out)
    return ExitRefused;
  if (Check) {
    if (*Out == Original)
      return ExitOk;
    llvm::outs() << format::unifiedDiff(Original, *Out, Name,
                                        Name + " (formatted)");
    return ExitRefused;
  }
  if (InPlace) {
    if (*Out == Original)
      return ExitOk;
    if (std::optional<std::string> Why = writeAtomically(Input, *Out)) {
      Diags.report(llvm::SMLoc(), DiagID::err_cannot_write_file)
          << Input << *Why;
      return ExitUsage;
    }
    return ExitOk;
  }
  llvm::outs() << *Out;
  return ExitOk;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "arecipe-fmt " << ARECIPE_VERSION << "\n";
  });
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "the canonical formatter of .arecipe files (docs/formatting.md)\n",
          &llvm::errs()))
    return ExitUsage;

  llvm::SourceMgr SM;
  TextDiagnosticPrinter Printer(llvm::errs(), "arecipe-fmt",
                                llvm::errs().has_colors());
  ErrorsOnly Filter(Printer);
  DiagnosticEngine Diags(SM, &Filter);
  std::vector<std::string> Files(Inputs.begin(), Inputs.end());
  if (Files.empty())
    Files.push_back("-");
  int Status = ExitOk;
  if (Check && InPlace) {
    Diags.report(llvm::SMLoc(), DiagID::err_fmt_check_in_place);
    Status = ExitUsage;
  } else if (InPlace && llvm::is_contained(Files, "-")) {
    Diags.report(llvm::SMLoc(), DiagID::err_fmt_in_place_stdin);
    Status = ExitUsage;
  } else {
    for (const std::string &File : Files) {
      Status = std::max(Status, formatOne(File, SM, Diags));
      Diags.flush();
    }
  }
  // Standard output is flushed and checked (a failed write is reported),
  // then the process ends without tearing down the source buffers and
  // static objects, as arecipec does (support/ProcessExit.h), except in a
  // leak-checked build.
  Status = flushStandardStreams(Status, ExitUsage, Diags);
  if (!support::leakCheckedBuild())
    support::exitWithoutTeardown(Status);
  return Status;
}
