//===- arecipe-lsp.cpp - The arecipe language server ----------------------===//
//
// A thin main over lib/Lsp: speaks the Language Server Protocol on standard
// input and output (docs/editors.md) until the client sends `exit` or
// closes the pipe. The standard library is found next to the executable
// (the install layout), as arecipec finds it. Exit status: 0 after
// `shutdown` then `exit`, 1 otherwise (as the protocol asks), 2 usage.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Lsp/Server.h"
#include "arecipe/Lsp/Transport.h"
#include "arecipe/Support/InstallLayout.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <csignal>
#include <cstdio>

using namespace arecipe;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory Category("arecipe-lsp options");
cl::list<std::string> IncludeDirs("I", cl::Prefix,
                                  cl::desc("Add a directory to the import "
                                           "search path"),
                                  cl::value_desc("dir"), cl::cat(Category));
cl::opt<bool> Stdio("stdio",
                    cl::desc("Talk over standard input and output (the only "
                             "transport; accepted for editors that pass it)"),
                    cl::cat(Category));
} // namespace

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "arecipe-lsp: the arecipe language server (LSP over stdio)\n",
          &llvm::errs()))
    return 2;
  // A client that goes away must not kill the server with SIGPIPE before it
  // sees the end of its input.
  std::signal(SIGPIPE, SIG_IGN);
  lsp::ServerOptions Opts;
  Opts.StdRoot = support::dataDir();
  Opts.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  lsp::Transport T(stdin, stdout);
  lsp::Server S(Opts, [&](const support::json &M) { T.write(M); });
  for (;;) {
    lsp::Frame F = T.read();
    if (F.K == lsp::Frame::End)
      return 1; // the client closed the pipe without `exit`
    if (F.K == lsp::Frame::Malformed)
      S.handleMalformed(F.Error);
    else
      S.handle(F.Body);
    if (S.exited())
      return S.exitCode();
  }
}
