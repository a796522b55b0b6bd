//===- Server.h - The arecipe language server ------------------*- C++ -*-===//
//
// arecipe-lsp's engine (docs/editors.md): a Language Server Protocol server
// that keeps the editor's open recipes and, on every open or change,
// compiles the document through lib/Frontend (the open documents laid over
// the file system as the invocation's Overrides), then answers from that
// compilation: the diagnostics the command line prints (same texts, ranges
// and fix-its; notes as related information), hover with a knob's or
// `let`'s value in each cell under the cursor and the `--explain` chain
// behind it, go-to-definition across imports and into std, completion of
// the engine's knobs and declared names, document symbols, formatting
// through lib/Format and code actions for fix-its. Its compilations share
// one frontend::ModuleCache, so a keystroke re-parses the edited document
// but not the std files and unchanged imports.
//
// It is single-threaded and answers in order. Messages it cannot read get
// a JSON-RPC error, never a crash; a request it does not know gets
// MethodNotFound.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LSP_SERVER_H
#define ARECIPE_LSP_SERVER_H

#include "arecipe/Support/Json.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace arecipe::frontend {
class ModuleCache;
} // namespace arecipe::frontend

namespace arecipe::lsp {

struct ServerOptions {
  /// The directory that contains `std/` (support::dataDir() in the tool).
  std::string StdRoot;
  /// `-I` directories, as arecipec's.
  std::vector<std::string> IncludeDirs;
};

class Document;

class Server {
public:
  /// Send writes one message to the client.
  Server(ServerOptions Opts, std::function<void(const support::json &)> Send);
  ~Server();

  /// Handles one message (request, notification or a client's response).
  void handle(const support::json &Message);
  /// Answers a frame that could not be read (JSON-RPC ParseError).
  void handleMalformed(const std::string &Why);

  /// True once `exit` was received.
  bool exited() const { return Exited; }
  /// The process's exit status after `exit`: 0 if `shutdown` came first.
  int exitCode() const { return ShutdownRequested ? 0 : 1; }

private:
  void reply(const support::json &Id, support::json Result);
  void replyError(const support::json &Id, int Code, const std::string &Msg);
  void notify(const std::string &Method, support::json Params);
  void paramsError(bool HasId, const support::json &Id, const std::string &Why);

  support::json initialize(const support::json &Params);
  void didOpen(const support::json &Params);
  void didChange(const support::json &Params);
  void didClose(const support::json &Params);
  support::json hover(const support::json &Params);
  support::json definition(const support::json &Params);
  support::json completion(const support::json &Params);
  support::json documentSymbol(const support::json &Params);
  support::json formatting(const support::json &Params);
  support::json codeAction(const support::json &Params);

  /// Recompiles D and publishes its diagnostics.
  void analyze(Document &D);
  Document *find(const support::json &Params);

  ServerOptions Opts;
  std::function<void(const support::json &)> Send;
  std::map<std::string, std::unique_ptr<Document>> Docs; ///< By URI.
  /// Parsed files shared by every compilation of the session.
  std::unique_ptr<frontend::ModuleCache> Modules;
  bool Initialized = false;
  bool ShutdownRequested = false;
  bool Exited = false;
};

/// `file:///a%20b/c.arecipe` -> `/a b/c.arecipe`; empty for another scheme.
std::string uriToPath(const std::string &Uri);
std::string pathToUri(const std::string &Path);

} // namespace arecipe::lsp

#endif // ARECIPE_LSP_SERVER_H
