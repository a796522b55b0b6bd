//===- Server.cpp - The arecipe language server ---------------------------===//
//
// Dispatch, documents and their compilations. Every open or change
// compiles the document through a new CompilerInstance (one instance per
// edit, as docs/architecture.md says a language server does), sharing the
// session's ModuleCache so only files whose bytes changed are re-parsed;
// the last compilation whose analysis succeeded is kept too, so hover and
// completion still answer while the text under edit has an error.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Lsp/Server.h"

#include "arecipe/AST/Decl.h"
#include "arecipe/AST/Expr.h"
#include "arecipe/AST/Stmt.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/DiagnosticIDs.h"
#include "arecipe/Basic/SourceLocation.h"
#include "arecipe/Format/Format.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Frontend/ModuleCache.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace arecipe;
using namespace arecipe::lsp;
using support::json;

namespace {

// JSON-RPC and LSP error codes.
constexpr int ParseError = -32700;
constexpr int InvalidRequest = -32600;
constexpr int MethodNotFound = -32601;
constexpr int InvalidParams = -32602;
constexpr int ServerNotInitialized = -32002;
constexpr int RequestFailed = -32803;

/// A request whose parameters are not what the method takes.
struct BadParams {
  std::string Why;
};

const json &member(const json &V, const char *Key, const char *What) {
  if (!V.is_object())
    throw BadParams{std::string(What) + " is not an object"};
  auto It = V.find(Key);
  if (It == V.end())
    throw BadParams{std::string("missing '") + Key + "' in " + What};
  return *It;
}

std::string stringMember(const json &V, const char *Key, const char *What) {
  const json &M = member(V, Key, What);
  if (!M.is_string())
    throw BadParams{std::string("'") + Key + "' is not a string"};
  return M.get<std::string>();
}

bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
         (C >= '0' && C <= '9') || C == '_';
}

/// Line starts of a text, and conversions between byte offsets and LSP
/// positions (line, UTF-16 code unit).
class LineTable {
public:
  explicit LineTable(llvm::StringRef Text) : Text(Text) {
    Starts.push_back(0);
    for (size_t I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n')
        Starts.push_back(I + 1);
  }

  json position(size_t Offset) const {
    Offset = std::min(Offset, Text.size());
    size_t Line = std::upper_bound(Starts.begin(), Starts.end(), Offset) -
                  Starts.begin() - 1;
    size_t Units = 0;
    for (size_t I = Starts[Line]; I < Offset; ++I) {
      unsigned char C = Text[I];
      if ((C & 0xC0) != 0x80)
        Units += C >= 0xF0 ? 2 : 1; // outside the BMP: a surrogate pair
    }
    return {{"line", Line}, {"character", Units}};
  }

  json range(size_t Begin, size_t End) const {
    return {{"start", position(Begin)}, {"end", position(End)}};
  }

  /// The byte offset of an LSP position, clamped to the text.
  size_t offset(const json &Pos) const {
    const json &L = member(Pos, "line", "position");
    const json &Ch = member(Pos, "character", "position");
    if (!L.is_number_integer() || !Ch.is_number_integer() ||
        L.get<int64_t>() < 0 || Ch.get<int64_t>() < 0)
      throw BadParams{"a position's line and character must be integers >= 0"};
    size_t Line = L.get<uint64_t>();
    if (Line >= Starts.size())
      return Text.size();
    size_t End = Line + 1 < Starts.size() ? Starts[Line + 1] - 1 : Text.size();
    size_t Want = Ch.get<uint64_t>(), Units = 0, I = Starts[Line];
    while (I < End && Units < Want) {
      unsigned char C = Text[I];
      Units += C >= 0xF0 ? 2 : 1;
      ++I;
      while (I < End && (static_cast<unsigned char>(Text[I]) & 0xC0) == 0x80)
        ++I;
    }
    return I;
  }

  size_t lines() const { return Starts.size(); }

private:
  llvm::StringRef Text;
  std::vector<size_t> Starts;
};

/// Keeps what a compilation reports.
class Collector : public DiagnosticConsumer {
public:
  void handleDiagnostic(const llvm::SourceMgr &, const Diagnostic &D) override {
    Diags.push_back(D);
  }
  std::vector<Diagnostic> Diags;
};

} // namespace

namespace arecipe::lsp {

/// One compilation of a document's text.
struct Analysis {
  std::string Text;
  Collector Diags; // declared before CI: the instance flushes into it
  std::unique_ptr<frontend::CompilerInstance> CI;
  unsigned MainBuffer = 0;
  bool HasSema = false; ///< Parsed, so Sema ran (maybe with errors).
  bool Ok = false;      ///< Analysed and lowered without errors.

  const sema::Compilation *sema() const {
    return HasSema ? &CI->getSema() : nullptr;
  }
  const llvm::SourceMgr &sm() const { return CI->getSourceMgr(); }
};

/// A diagnostic as published, with its fix-its as LSP edits.
struct Published {
  json Diag;
  size_t Begin = 0, End = 0;
  std::string FixTitle;
  json Edits = json::array();
};

class Document {
public:
  std::string Uri, Path, Text;
  int64_t Version = 0;
  std::unique_ptr<Analysis> Current, LastGood;
  std::vector<Published> Diags;
};

} // namespace arecipe::lsp

std::string lsp::uriToPath(const std::string &Uri) {
  const std::string Scheme = "file://";
  if (Uri.compare(0, Scheme.size(), Scheme) != 0)
    return {};
  std::string Path;
  for (size_t I = Scheme.size(); I < Uri.size(); ++I) {
    char C = Uri[I];
    if (C == '%' && I + 2 < Uri.size() &&
        llvm::hexDigitValue(Uri[I + 1]) != -1U &&
        llvm::hexDigitValue(Uri[I + 2]) != -1U) {
      Path.push_back(static_cast<char>(llvm::hexDigitValue(Uri[I + 1]) * 16 +
                                       llvm::hexDigitValue(Uri[I + 2])));
      I += 2;
      continue;
    }
    Path.push_back(C);
  }
  return Path;
}

std::string lsp::pathToUri(const std::string &Path) {
  std::string Uri = "file://";
  static const char *Digits = "0123456789ABCDEF";
  for (unsigned char C : Path) {
    if (isIdentChar(static_cast<char>(C)) || C == '/' || C == '.' || C == '-' ||
        C == '~')
      Uri.push_back(static_cast<char>(C));
    else {
      Uri.push_back('%');
      Uri.push_back(Digits[C >> 4]);
      Uri.push_back(Digits[C & 15]);
    }
  }
  return Uri;
}

// ---------------------------------------------------------------------------
// Locations of a compilation
// ---------------------------------------------------------------------------

namespace {

/// A place in some buffer of a compilation.
struct Place {
  unsigned Buffer = 0;
  size_t Offset = 0;
};

std::optional<Place> placeOf(const llvm::SourceMgr &SM, llvm::SMLoc Loc) {
  if (!Loc.isValid())
    return std::nullopt;
  unsigned ID = SM.FindBufferContainingLoc(Loc);
  if (!ID)
    return std::nullopt;
  return Place{
      ID, size_t(Loc.getPointer() - SM.getMemoryBuffer(ID)->getBufferStart())};
}

llvm::StringRef bufferText(const llvm::SourceMgr &SM, unsigned ID) {
  return SM.getMemoryBuffer(ID)->getBuffer();
}

/// The end of the name starting at Offset, or one character past it.
size_t wordEnd(llvm::StringRef Text, size_t Offset) {
  if (Offset < Text.size() && Text[Offset] == '"') {
    // An import's target: the whole string.
    size_t Close = Text.find_first_of("\"\n", Offset + 1);
    if (Close != llvm::StringRef::npos && Text[Close] == '"')
      return Close + 1;
  }
  size_t End = Offset;
  while (End < Text.size() && isIdentChar(Text[End]))
    ++End;
  if (End == Offset && End < Text.size() && Text[End] != '\n')
    ++End;
  return End;
}

/// A file a compilation read, as a URI: the buffer's real path when Sema
/// loaded it, else its name made absolute.
std::string uriOfBuffer(const Analysis &A, unsigned ID,
                        const std::string &MainUri) {
  if (ID == A.MainBuffer)
    return MainUri;
  if (const sema::Compilation *S = A.sema())
    for (const sema::SourceFile &F : S->files())
      if (F.BufferID == ID && !F.RealPath.empty())
        return pathToUri(F.RealPath);
  llvm::SmallString<256> P(A.sm().getMemoryBuffer(ID)->getBufferIdentifier());
  llvm::sys::fs::make_absolute(P);
  return pathToUri(std::string(P));
}

json locationJson(const Analysis &A, unsigned ID, size_t Begin, size_t End,
                  const std::string &MainUri) {
  LineTable LT(bufferText(A.sm(), ID));
  return {{"uri", uriOfBuffer(A, ID, MainUri)},
          {"range", LT.range(Begin, End)}};
}

/// The range a diagnostic shows: the underlined range holding its
/// location, else the name at its location.
std::pair<size_t, size_t> diagRange(const llvm::SourceMgr &SM, const Place &P,
                                    const Diagnostic &D) {
  for (llvm::SMRange R : D.Ranges) {
    std::optional<Place> B = placeOf(SM, R.Start), E = placeOf(SM, R.End);
    if (B && E && B->Buffer == P.Buffer && E->Buffer == P.Buffer &&
        B->Offset <= P.Offset && P.Offset <= E->Offset && B->Offset < E->Offset)
      return {B->Offset, E->Offset};
  }
  return {P.Offset, wordEnd(bufferText(SM, P.Buffer), P.Offset)};
}

int severityOf(DiagLevel L) {
  switch (L) {
  case DiagLevel::Error:
    return 1;
  case DiagLevel::Warning:
    return 2;
  case DiagLevel::Remark:
    return 3;
  case DiagLevel::Note:
    return 4;
  }
  return 1;
}

/// D as published on the main document of A.
Published publish(const Analysis &A, const Diagnostic &D,
                  const std::string &Uri) {
  const llvm::SourceMgr &SM = A.sm();
  LineTable Main(A.Text);
  Published P;
  std::string Message = D.Message;
  std::optional<Place> At = placeOf(SM, D.Loc);
  if (At && At->Buffer != A.MainBuffer) {
    // A mistake in an imported file shows on the import that reached it,
    // with its own place in the text and as related information.
    Message = formatLocation(SM, D.Loc).value_or("") + ": " + Message;
    std::optional<Place> Inc = At;
    while (Inc && Inc->Buffer != A.MainBuffer)
      Inc = placeOf(SM, SM.getBufferInfo(Inc->Buffer).IncludeLoc);
    auto [B, E] = diagRange(SM, *At, D);
    P.Diag["relatedInformation"].push_back(
        {{"location", locationJson(A, At->Buffer, B, E, Uri)},
         {"message", D.Message}});
    At = Inc;
    if (At) {
      P.Begin = At->Offset;
      P.End = wordEnd(A.Text, At->Offset);
    }
  } else if (At) {
    std::tie(P.Begin, P.End) = diagRange(SM, *At, D);
  }
  P.Diag["range"] = Main.range(P.Begin, P.End);
  P.Diag["severity"] = severityOf(D.Level);
  P.Diag["code"] = getDiagInfo(D.ID).Name.str();
  P.Diag["source"] = "arecipe";
  P.Diag["message"] = Message;
  auto AddEdits = [&](const Diagnostic &From) {
    for (const FixIt &F : From.FixIts) {
      std::optional<Place> B = placeOf(SM, F.Range.Start),
                           E = placeOf(SM, F.Range.End);
      if (!B || !E || B->Buffer != A.MainBuffer || E->Buffer != A.MainBuffer)
        continue;
      P.Edits.push_back(
          {{"range", Main.range(B->Offset, E->Offset)}, {"newText", F.Text}});
    }
  };
  AddEdits(D);
  if (!P.Edits.empty())
    P.FixTitle = "apply the fix-it of: " + D.Message;
  for (const Diagnostic &N : D.Notes) {
    std::optional<Place> NP = placeOf(SM, N.Loc);
    json Loc;
    if (NP) {
      auto [B, E] = diagRange(SM, *NP, N);
      Loc = locationJson(A, NP->Buffer, B, E, Uri);
    } else {
      Loc = {{"uri", Uri}, {"range", Main.range(P.Begin, P.End)}};
    }
    P.Diag["relatedInformation"].push_back(
        {{"location", Loc}, {"message", N.Message}});
    size_t Before = P.Edits.size();
    AddEdits(N);
    if (P.Edits.size() != Before && P.FixTitle.empty())
      P.FixTitle = N.Message; // "did you mean 'max_num_seqs'?"
  }
  return P;
}

// ---------------------------------------------------------------------------
// Walking syntax trees
// ---------------------------------------------------------------------------

bool contains(llvm::SMRange R, const char *P) {
  return R.isValid() && R.Start.getPointer() <= P && P <= R.End.getPointer();
}

const ast::Block *bodyOf(const ast::Stmt *S) {
  if (auto *B = llvm::dyn_cast<ast::BandStmt>(S))
    return &B->getBody();
  if (auto *B = llvm::dyn_cast<ast::AtConcStmt>(S))
    return &B->getBody();
  if (auto *B = llvm::dyn_cast<ast::ArmStmt>(S))
    return &B->getBody();
  if (auto *B = llvm::dyn_cast<ast::BlockStmt>(S))
    return &B->getBody();
  if (auto *B = llvm::dyn_cast<ast::EmitStmt>(S))
    return &B->getBody();
  return nullptr;
}

/// Calls F on every statement of Body, nested ones included, in source
/// order.
template <typename Fn> void forEachStmt(const ast::Block &Body, Fn F) {
  for (const ast::Stmt *S : Body.Stmts) {
    if (!S)
      continue;
    F(S);
    if (const ast::Block *Inner = bodyOf(S))
      forEachStmt(*Inner, F);
  }
}

/// What encloses a place of the main file: its recipe (or other
/// declaration), arm, band and `at conc` block, innermost last.
struct Scope {
  const ast::EntityDecl *Entity = nullptr;
  const ast::ArmStmt *Arm = nullptr;
  const ast::BandStmt *Band = nullptr;
  const ast::AtConcStmt *At = nullptr;
  int AtIndex = -1; ///< Of At among the file's `at conc` blocks.
};

Scope scopeAt(const ast::File &F, const char *P) {
  Scope S;
  int AtCount = 0;
  for (const ast::Decl *D : F.getDecls()) {
    auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(D);
    if (!E)
      continue;
    bool In = contains(E->getRange(), P);
    if (In)
      S.Entity = E;
    forEachStmt(E->getBody(), [&](const ast::Stmt *St) {
      if (auto *At = llvm::dyn_cast<ast::AtConcStmt>(St)) {
        if (In && contains(At->getRange(), P)) {
          S.At = At;
          S.AtIndex = AtCount;
        }
        if (E->getEntityKind() == ast::EntityKind::Recipe)
          ++AtCount;
      }
      if (!In || !contains(St->getRange(), P))
        return;
      if (auto *A = llvm::dyn_cast<ast::ArmStmt>(St))
        S.Arm = A;
      if (auto *B = llvm::dyn_cast<ast::BandStmt>(St))
        S.Band = B;
    });
  }
  return S;
}

/// The name under the cursor: `graph_max`, or `env.X` when the cursor is on
/// a part of a dotted name (both are tried, the longer first).
struct Word {
  size_t Begin = 0, End = 0;
  std::string Name;   ///< The identifier under the cursor.
  std::string Dotted; ///< With the names before it joined by '.'.
};

std::optional<Word> wordAt(llvm::StringRef Text, size_t Offset) {
  size_t B = Offset, E = Offset;
  while (B > 0 && isIdentChar(Text[B - 1]))
    --B;
  while (E < Text.size() && isIdentChar(Text[E]))
    ++E;
  if (B == E)
    return std::nullopt;
  Word W{B, E, Text.slice(B, E).str(), {}};
  size_t DB = B;
  while (DB > 1 && Text[DB - 1] == '.' && isIdentChar(Text[DB - 2])) {
    --DB;
    while (DB > 0 && isIdentChar(Text[DB - 1]))
      --DB;
  }
  W.Dotted = Text.slice(DB, E).str();
  return W;
}

/// A declaration found for a name: where its name is written.
struct Decl {
  llvm::SMRange Range;
  std::string What; ///< "engine 'atom'", "knob 'max_num_seqs' of engine 'atom'"
};

const ast::EntityDecl *findEntity(llvm::ArrayRef<sema::SourceFile> Files,
                                  llvm::StringRef Name,
                                  std::optional<ast::EntityKind> Kind = {}) {
  for (const sema::SourceFile &F : Files) {
    if (!F.AST)
      continue;
    for (const ast::Decl *D : F.AST->getDecls())
      if (auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(D))
        if (E->getName().Name == Name && (!Kind || E->getEntityKind() == *Kind))
          return E;
  }
  return nullptr;
}

/// Calls F on each knob statement of Engine and the templates it extends
/// (own knobs first), each template once.
template <typename Fn>
void forEachKnob(llvm::ArrayRef<sema::SourceFile> Files,
                 const ast::EntityDecl *Engine, Fn F) {
  std::set<const ast::EntityDecl *> Seen;
  while (Engine && Seen.insert(Engine).second) {
    forEachStmt(Engine->getBody(), [&](const ast::Stmt *S) {
      if (auto *K = llvm::dyn_cast<ast::KnobStmt>(S))
        F(*Engine, *K);
    });
    if (!Engine->hasExtends())
      break;
    Engine = findEntity(Files, Engine->getExtends().back().Name,
                        Engine->getEntityKind());
  }
}

std::string entityLabel(const ast::EntityDecl &E) {
  return getSpelling(E.getEntityKind()).str() + " '" + E.getName().Name.str() +
         "'";
}

} // namespace

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

Server::Server(ServerOptions Opts, std::function<void(const json &)> Send)
    : Opts(std::move(Opts)), Send(std::move(Send)),
      Modules(std::make_unique<frontend::ModuleCache>()) {}

Server::~Server() = default;

void Server::reply(const json &Id, json Result) {
  Send({{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void Server::replyError(const json &Id, int Code, const std::string &Msg) {
  Send({{"jsonrpc", "2.0"},
        {"id", Id},
        {"error", {{"code", Code}, {"message", Msg}}}});
}

void Server::notify(const std::string &Method, json Params) {
  Send({{"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
}

void Server::paramsError(bool HasId, const json &Id, const std::string &Why) {
  if (HasId) {
    replyError(Id, InvalidParams, Why);
    return;
  }
  // A notification has no answer: the client's log shows why it was
  // dropped.
  notify("window/logMessage", {{"type", 1}, {"message", Why}});
}

void Server::handleMalformed(const std::string &Why) {
  replyError(nullptr, ParseError, Why);
}

void Server::handle(const json &Msg) {
  if (!Msg.is_object()) {
    replyError(nullptr, InvalidRequest,
               std::string("a message must be an object, not ") +
                   support::jsonTypeName(Msg));
    return;
  }
  json Id = nullptr;
  bool HasId = false;
  if (auto It = Msg.find("id"); It != Msg.end()) {
    if (!It->is_string() && !It->is_number_integer() && !It->is_null()) {
      replyError(nullptr, InvalidRequest,
                 "'id' must be a string or an integer");
      return;
    }
    Id = *It;
    HasId = true;
  }
  if (support::stringAt(Msg, "jsonrpc") != "2.0") {
    replyError(Id, InvalidRequest, "'jsonrpc' must be \"2.0\"");
    return;
  }
  auto MethodIt = Msg.find("method");
  if (MethodIt == Msg.end()) {
    // A response to a request of ours (we send none that need one).
    if (!HasId)
      replyError(nullptr, InvalidRequest, "a message without 'method' or 'id'");
    return;
  }
  if (!MethodIt->is_string()) {
    replyError(Id, InvalidRequest, "'method' must be a string");
    return;
  }
  std::string Method = MethodIt->get<std::string>();
  static const json NoParams = json::object();
  const json &Params = Msg.contains("params") ? Msg["params"] : NoParams;

  if (Method == "exit") {
    Exited = true;
    return;
  }
  if (!Initialized && Method != "initialize") {
    if (HasId)
      replyError(Id, ServerNotInitialized,
                 "the server was not initialized (send 'initialize' first)");
    return;
  }
  if (ShutdownRequested && HasId) {
    replyError(Id, InvalidRequest, "the server is shutting down");
    return;
  }

  try {
    if (Method == "initialize") {
      if (Initialized) {
        replyError(Id, InvalidRequest, "the server is already initialized");
        return;
      }
      json R = initialize(Params);
      Initialized = true;
      reply(Id, std::move(R));
    } else if (Method == "initialized" || Method == "$/setTrace" ||
               Method == "workspace/didChangeConfiguration") {
    } else if (Method == "shutdown") {
      ShutdownRequested = true;
      reply(Id, nullptr);
    } else if (Method == "textDocument/didOpen") {
      didOpen(Params);
    } else if (Method == "textDocument/didChange") {
      didChange(Params);
    } else if (Method == "textDocument/didClose") {
      didClose(Params);
    } else if (Method == "textDocument/didSave") {
    } else if (Method == "textDocument/hover") {
      reply(Id, hover(Params));
    } else if (Method == "textDocument/definition") {
      reply(Id, definition(Params));
    } else if (Method == "textDocument/completion") {
      reply(Id, completion(Params));
    } else if (Method == "textDocument/documentSymbol") {
      reply(Id, documentSymbol(Params));
    } else if (Method == "textDocument/formatting") {
      json R = formatting(Params);
      if (R.is_string())
        replyError(Id, RequestFailed, R.get<std::string>());
      else
        reply(Id, std::move(R));
    } else if (Method == "textDocument/codeAction") {
      reply(Id, codeAction(Params));
    } else if (HasId) {
      replyError(Id, MethodNotFound, "unknown method '" + Method + "'");
    }
    // An unknown notification is ignored, as the protocol asks.
  } catch (const BadParams &E) {
    paramsError(HasId, Id, Method + ": " + E.Why);
  } catch (const json::exception &E) {
    // A parameter of an unexpected type that a handler read directly.
    paramsError(HasId, Id, Method + ": " + E.what());
  }
}

json Server::initialize(const json &) {
  json Caps = {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 1}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"completionProvider", {{"triggerCharacters", json::array({"."})}}},
      {"documentSymbolProvider", true},
      {"documentFormattingProvider", true},
      {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
  };
  return {{"capabilities", Caps},
          {"serverInfo", {{"name", "arecipe-lsp"}, {"version", "0.1.0"}}}};
}

Document *Server::find(const json &Params) {
  std::string Uri = stringMember(member(Params, "textDocument", "params"),
                                 "uri", "textDocument");
  auto It = Docs.find(Uri);
  if (It == Docs.end())
    throw BadParams{"the document '" + Uri + "' is not open"};
  return It->second.get();
}

void Server::didOpen(const json &Params) {
  const json &TD = member(Params, "textDocument", "params");
  auto D = std::make_unique<Document>();
  D->Uri = stringMember(TD, "uri", "textDocument");
  D->Text = stringMember(TD, "text", "textDocument");
  if (auto It = TD.find("version"); It != TD.end() && It->is_number_integer())
    D->Version = It->get<int64_t>();
  D->Path = uriToPath(D->Uri);
  if (D->Path.empty())
    D->Path = D->Uri; // untitled: named by its URI; imports from std only
  Document &Ref = *D;
  Docs[Ref.Uri] = std::move(D);
  analyze(Ref);
}

void Server::didChange(const json &Params) {
  Document *D = find(Params);
  const json &Changes = member(Params, "contentChanges", "params");
  if (!Changes.is_array())
    throw BadParams{"'contentChanges' is not a list"};
  // Full sync: the last change holding the whole text wins.
  bool Any = false;
  for (const json &C : Changes) {
    if (C.is_object() && C.contains("range"))
      throw BadParams{"incremental changes are not supported (the server "
                      "asked for full text)"};
    D->Text = stringMember(C, "text", "a content change");
    Any = true;
  }
  const json &TD = Params["textDocument"];
  if (auto It = TD.find("version"); It != TD.end() && It->is_number_integer())
    D->Version = It->get<int64_t>();
  if (Any)
    analyze(*D);
}

void Server::didClose(const json &Params) {
  Document *D = find(Params);
  std::string Uri = D->Uri;
  Docs.erase(Uri);
  notify("textDocument/publishDiagnostics",
         {{"uri", Uri}, {"diagnostics", json::array()}});
}

void Server::analyze(Document &D) {
  frontend::CompilerInvocation Inv;
  Inv.MainFile = D.Path;
  Inv.StdRoot = Opts.StdRoot;
  Inv.IncludeDirs = Opts.IncludeDirs;
  // Every open document stands in for its file, so an import of an
  // unsaved buffer sees what the editor shows.
  for (const auto &[Uri, Other] : Docs)
    Inv.Overrides[Other->Path] = Other->Text;
  auto A = std::make_unique<Analysis>();
  A->Text = D.Text;
  A->CI = std::make_unique<frontend::CompilerInstance>(Inv, &A->Diags);
  A->CI->setModuleCache(Modules.get());
  frontend::Status Parsed = A->CI->parse();
  const llvm::SourceMgr &SM = A->CI->getSourceMgr();
  for (unsigned ID = 1; ID <= SM.getNumBuffers(); ++ID)
    if (SM.getMemoryBuffer(ID)->getBufferIdentifier() == D.Path) {
      A->MainBuffer = ID;
      break;
    }
  if (Parsed == frontend::Status::Ok) {
    A->HasSema = true;
    // The plan's lowering reports what `arecipec --emit plan` would; a
    // file without recipes (a library of engines, models, constants) is
    // only analysed, as when it is imported.
    A->Ok = A->CI->analyze() == frontend::Status::Ok;
    if (A->Ok && !A->CI->getSema().recipes().empty())
      A->Ok = A->CI->lowerPlan() != nullptr;
  }
  A->CI->getDiagnostics().flush();

  D.Diags.clear();
  json List = json::array();
  for (const Diagnostic &Diag : A->Diags.Diags) {
    D.Diags.push_back(publish(*A, Diag, D.Uri));
    List.push_back(D.Diags.back().Diag);
  }
  json Params = {{"uri", D.Uri}, {"diagnostics", std::move(List)}};
  Params["version"] = D.Version;
  // The compilations this one replaces are freed only after the
  // diagnostics are out: tearing down a 100-cell compilation is a
  // noticeable part of a keystroke's time.
  std::unique_ptr<Analysis> OldCurrent = std::move(D.Current), OldGood;
  if (A->Ok) {
    // Keep the good compilation for answers while the next edit is broken.
    OldGood = std::move(D.LastGood);
    D.LastGood = std::move(A);
  } else {
    D.Current = std::move(A);
  }
  notify("textDocument/publishDiagnostics", std::move(Params));
}

namespace {

/// The compilations to answer from, best first: the current text's, then
/// the last one without errors.
std::vector<const Analysis *> sources(const Document &D) {
  std::vector<const Analysis *> Out;
  if (D.Current && D.Current->HasSema)
    Out.push_back(D.Current.get());
  if (D.LastGood)
    Out.push_back(D.LastGood.get());
  return Out;
}

const Analysis *currentAnalysis(const Document &D) {
  return D.Current ? D.Current.get() : D.LastGood.get();
}

const char *pointerAt(const Analysis &A, size_t Offset) {
  return bufferText(A.sm(), A.MainBuffer).data() + Offset;
}

/// A name in a comment that trails code on its line (`at conc 14 { ... }
/// // ... graph_max 128`) is read in the scope of that code: the offset of
/// the code's last character. Anywhere else, Offset itself.
size_t trailingCommentOwner(llvm::StringRef Text, size_t Offset) {
  size_t LineStart = Text.rfind('\n', Offset == 0 ? 0 : Offset - 1);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  bool InString = false;
  for (size_t I = LineStart; I + 1 < Text.size() && I < Offset; ++I) {
    char C = Text[I];
    if (InString && C == '\\') {
      ++I;
      continue;
    }
    if (C == '"')
      InString = !InString;
    if (!InString && C == '/' && Text[I + 1] == '/') {
      size_t Code = I;
      while (Code > LineStart &&
             (Text[Code - 1] == ' ' || Text[Code - 1] == '\t'))
        --Code;
      return Code > LineStart ? Code - 1 : Offset;
    }
  }
  return Offset;
}

/// The names Name has in cell C: itself, or in a disaggregated cell whose
/// roles disagree on it, `prefill.Name` and `decode.Name`.
std::vector<std::string> namesIn(const sema::RecipeCells &R,
                                 const sema::Cell &C, const std::string &Name) {
  if (R.find(C, Name))
    return {Name};
  std::vector<std::string> Out;
  for (const std::string &Role : C.Roles)
    if (!Role.empty() && R.find(C, Role + "." + Name))
      Out.push_back(Role + "." + Name);
  return Out;
}

std::string renderCells(const std::vector<const sema::Cell *> &Cells,
                        const sema::RecipeCells &R, const std::string &Name) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "| cell | " << Name << " | level |\n|---|---|---|\n";
  for (const sema::Cell *C : Cells) {
    std::vector<std::string> Names = namesIn(R, *C, Name);
    if (Names.empty())
      OS << "| " << C->label() << " | — | |\n";
    for (const std::string &N : Names) {
      const sema::ResolvedValue *RV = R.find(*C, N);
      OS << "| " << C->label() << (N == Name ? "" : " " + N) << " | `"
         << RV->V.str() << "` | " << sema::getSpelling(RV->L) << " |\n";
    }
  }
  return OS.str();
}

} // namespace

json Server::hover(const json &Params) {
  Document *D = find(Params);
  const Analysis *Cur = currentAnalysis(*D);
  if (!Cur || !Cur->MainBuffer)
    return nullptr;
  LineTable LT(Cur->Text);
  size_t Offset = LT.offset(member(Params, "position", "params"));
  std::optional<Word> W = wordAt(Cur->Text, Offset);
  const ast::File *AST = Cur->CI->getAST();
  if (!W || !AST)
    return nullptr;
  Scope Sc =
      scopeAt(*AST, pointerAt(*Cur, trailingCommentOwner(Cur->Text, Offset)));
  if (!Sc.Entity || Sc.Entity->getEntityKind() != ast::EntityKind::Recipe)
    return nullptr;
  std::string RecipeName = Sc.Entity->getName().Name.str();

  for (const Analysis *A : sources(*D)) {
    const sema::Compilation *S = A->sema();
    const sema::RecipeCells *R = nullptr;
    for (const auto &Each : S->recipes())
      if (Each->Name == RecipeName)
        R = Each.get();
    if (!R || R->Cells.empty())
      continue;
    std::string Name;
    for (const std::string &Try : {W->Dotted, W->Name})
      for (const sema::Cell &C : R->Cells)
        if (Name.empty() && !namesIn(*R, C, Try).empty())
          Name = Try;
    if (Name.empty())
      continue;
    // The cells under the cursor: the block's, else every cell.
    std::vector<const sema::Cell *> Cells;
    std::string Where = "every cell";
    const sema::AtConcInfo *At = nullptr;
    if (Sc.At) {
      std::vector<const sema::AtConcInfo *> Blocks = S->atConcBlocks();
      if (Sc.AtIndex >= 0 && size_t(Sc.AtIndex) < Blocks.size())
        At = Blocks[Sc.AtIndex];
    }
    for (const sema::Cell &C : R->Cells) {
      if (Sc.Arm && (!C.Arm || C.Arm->Name != Sc.Arm->getName().Name))
        continue;
      if (At && !std::binary_search(At->Concs.begin(), At->Concs.end(), C.Conc))
        continue;
      if (!At && Sc.Band &&
          (!C.Band || C.Band->Name != Sc.Band->getName().Name))
        continue;
      Cells.push_back(&C);
    }
    if (At) {
      Where = "the cells of this `at conc` block";
    } else if (Sc.Band) {
      Where = "the cells of band '" + Sc.Band->getName().Name.str() + "'";
    } else if (Sc.Arm) {
      Where = "the cells of arm '" + Sc.Arm->getName().Name.str() + "'";
    }
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << "**" << Name << "** in " << Where << " of recipe `" << R->Name << "`";
    if (A != Cur)
      OS << " (from the last version without errors)";
    OS << "\n\n" << renderCells(Cells, *R, Name) << "\n";
    // The chain of `--explain`: for each cell of a block; at the recipe
    // level, once per assignment that decides the value.
    // Cells whose value comes from the same assignments, with operands
    // from the same assignments, share one chain.
    std::vector<std::pair<const sema::Cell *, std::string>> Explained;
    std::set<std::vector<const void *>> Seen;
    for (const sema::Cell *C : Cells)
      for (const std::string &N : namesIn(*R, *C, Name)) {
        const sema::ResolvedValue *RV = R->find(*C, N);
        std::vector<const void *> Key = {RV->From,
                                         RV->ServerFrom ? C : nullptr};
        for (const std::string &Dep : RV->Deps)
          if (const sema::ResolvedValue *DV = R->find(*C, Dep))
            Key.push_back(DV->From);
        if (Sc.At || Sc.Band || Seen.insert(Key).second)
          Explained.push_back({C, N});
      }
    for (const auto &[C, N] : Explained) {
      OS << "```text\n";
      sema::explainValue(*S, *R, *C, N, OS);
      OS << "```\n";
    }
    return {{"contents", {{"kind", "markdown"}, {"value", OS.str()}}},
            {"range", LT.range(W->Begin, W->End)}};
  }
  // Not a value of any cell (a keyword, a declaration's name): no hover;
  // go-to-definition finds declarations.
  return nullptr;
}

namespace {

/// Where a name used at Offset of the main file is declared.
std::optional<Decl> findDeclaration(const Analysis &Cur,
                                    const std::vector<sema::SourceFile> &Files,
                                    const Word &W, size_t Offset,
                                    const sema::RecipeCells *Recipe) {
  const ast::File *AST = Cur.CI->getAST();
  if (!AST)
    return std::nullopt;
  const char *P = pointerAt(Cur, Offset);
  // An import's target: the file it loaded.
  for (const ast::ImportDecl *I : AST->getImports())
    if (I && I->getTarget() && contains(I->getTarget()->getRange(), P)) {
      std::string Target = I->getTarget()->getPlainValue().str();
      for (const sema::SourceFile &F : Files) {
        llvm::StringRef RP = F.RealPath;
        if (F.AST && (RP.endswith("/" + Target + ".arecipe") ||
                      RP.endswith("/" + Target)))
          return Decl{F.AST->getRange(), "file '" + Target + "'"};
      }
      return std::nullopt;
    }
  Scope Sc = scopeAt(*AST, P);
  llvm::StringRef Name = W.Name;
  // A `let` of the enclosing declaration.
  if (Sc.Entity) {
    std::optional<Decl> Found;
    forEachStmt(Sc.Entity->getBody(), [&](const ast::Stmt *S) {
      if (auto *L = llvm::dyn_cast<ast::LetStmt>(S))
        if (!Found && L->getName().Name == Name)
          Found = Decl{L->getName().Range, "let '" + Name.str() + "'"};
    });
    if (Found)
      return Found;
  }
  // A field of a declaration (`kimi_k3_dspark.id`): its assignment there.
  if (W.Dotted != W.Name) {
    llvm::StringRef Base = llvm::StringRef(W.Dotted).split('.').first;
    std::string Field = W.Dotted.substr(Base.size() + 1);
    if (const ast::EntityDecl *E = findEntity(Files, Base)) {
      std::optional<Decl> Found;
      for (const ast::Stmt *S : E->getBody().Stmts) {
        auto *A = llvm::dyn_cast_or_null<ast::AssignStmt>(S);
        if (!A || Found || A->getPath().empty())
          continue;
        std::string Path;
        for (const ast::Identifier &I : A->getPath())
          Path += (Path.empty() ? "" : ".") + I.Name.str();
        if (Path == Field)
          Found = Decl{
              {A->getPath().front().Range.Start, A->getPath().back().Range.End},
              "field '" + Field + "' of " + entityLabel(*E)};
      }
      if (Found)
        return Found;
    }
  }
  // A declaration of some file: entity, enum, constant, enum member.
  for (const sema::SourceFile &F : Files) {
    if (!F.AST)
      continue;
    for (const ast::Decl *D : F.AST->getDecls()) {
      if (auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(D)) {
        if (E->getName().Name == Name)
          return Decl{E->getName().Range, entityLabel(*E)};
      } else if (auto *En = llvm::dyn_cast_or_null<ast::EnumDecl>(D)) {
        if (En->getName().Name == Name)
          return Decl{En->getName().Range, "enum '" + Name.str() + "'"};
        for (const ast::Identifier &M : En->getMembers())
          if (M.Name == Name)
            return Decl{M.Range,
                        "member of enum '" + En->getName().Name.str() + "'"};
      } else if (auto *L = llvm::dyn_cast_or_null<ast::LetDecl>(D)) {
        if (L->getName().Name == Name)
          return Decl{L->getName().Range, "constant '" + Name.str() + "'"};
      }
    }
  }
  // A knob: of the recipe's engine first, then of any template (routers,
  // services).
  std::optional<Decl> Found;
  auto Look = [&](const ast::EntityDecl &E, const ast::KnobStmt &K) {
    if (!Found && K.getName().Name == Name)
      Found = Decl{K.getName().Range,
                   "knob '" + Name.str() + "' of " + entityLabel(E)};
  };
  if (Recipe && Recipe->Engine)
    forEachKnob(
        Files, findEntity(Files, Recipe->Engine->Name, ast::EntityKind::Engine),
        Look);
  for (const sema::SourceFile &F : Files)
    if (!Found && F.AST)
      for (const ast::Decl *D : F.AST->getDecls())
        if (auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(D))
          if (E->getEntityKind() != ast::EntityKind::Recipe)
            forEachKnob(Files, E, Look);
  return Found;
}

const sema::RecipeCells *recipeAt(const Analysis &A, const ast::File &AST,
                                  const char *P) {
  Scope Sc = scopeAt(AST, P);
  if (!Sc.Entity || !A.sema())
    return nullptr;
  for (const auto &R : A.sema()->recipes())
    if (R->Name == Sc.Entity->getName().Name)
      return R.get();
  return nullptr;
}

} // namespace

json Server::definition(const json &Params) {
  Document *D = find(Params);
  const Analysis *Cur = currentAnalysis(*D);
  if (!Cur || !Cur->MainBuffer || !Cur->CI->getAST())
    return nullptr;
  LineTable LT(Cur->Text);
  size_t Offset = LT.offset(member(Params, "position", "params"));
  std::optional<Word> W = wordAt(Cur->Text, Offset);
  // Imports' strings hold no identifier under the cursor too.
  Word Any = W ? *W : Word{Offset, Offset, "", ""};
  for (const Analysis *A : sources(*D)) {
    std::vector<sema::SourceFile> Files = A->sema()->files();
    // The main file's tree is the current text's, whatever A is.
    if (!Files.empty())
      Files.front().AST = Cur->CI->getAST();
    const sema::RecipeCells *R =
        recipeAt(*A, *Cur->CI->getAST(), pointerAt(*Cur, Offset));
    std::optional<Decl> Found = findDeclaration(*Cur, Files, Any, Offset, R);
    if (!Found)
      continue;
    // Located in A's buffers, or in the current text's.
    for (const Analysis *In : {Cur, A}) {
      std::optional<Place> PB = placeOf(In->sm(), Found->Range.Start),
                           PE = placeOf(In->sm(), Found->Range.End);
      if (PB && PE && PB->Buffer == PE->Buffer)
        return locationJson(*In, PB->Buffer, PB->Offset, PE->Offset, D->Uri);
    }
  }
  return nullptr;
}

json Server::completion(const json &Params) {
  Document *D = find(Params);
  const Analysis *Cur = currentAnalysis(*D);
  json Items = json::array();
  if (!Cur)
    return Items;
  LineTable LT(Cur->Text);
  size_t Offset = LT.offset(member(Params, "position", "params"));
  std::set<std::string> Seen;
  auto Add = [&](const std::string &Label, int Kind,
                 const std::string &Detail) {
    if (Label.empty() || !Seen.insert(Label).second)
      return;
    Items.push_back({{"label", Label}, {"kind", Kind}, {"detail", Detail}});
  };
  // LSP CompletionItemKind values.
  constexpr int KField = 5, KVariable = 6, KClass = 7, KProperty = 10,
                KEnumMember = 20, KConstant = 21;
  for (const Analysis *A : sources(*D)) {
    const sema::Compilation *S = A->sema();
    std::vector<sema::SourceFile> Files = S->files();
    const ast::File *AST = Cur->CI->getAST();
    const sema::RecipeCells *R =
        AST && Cur->MainBuffer ? recipeAt(*A, *AST, pointerAt(*Cur, Offset))
                               : nullptr;
    if (!R && !S->recipes().empty())
      R = S->recipes().front().get();
    if (R && R->Engine)
      forEachKnob(
          Files, findEntity(Files, R->Engine->Name, ast::EntityKind::Engine),
          [&](const ast::EntityDecl &E, const ast::KnobStmt &K) {
            std::string Type;
            if (K.getType())
              Type = llvm::StringRef(K.getType()->Range.Start.getPointer(),
                                     K.getType()->Range.End.getPointer() -
                                         K.getType()->Range.Start.getPointer())
                         .str();
            Add(K.getName().Name.str(), KProperty,
                "knob of " + entityLabel(E) +
                    (Type.empty() ? "" : ": " + Type));
          });
    if (R && !R->Cells.empty())
      for (const auto &[Name, RV] : R->Cells.front().Values)
        Add(Name, RV.From && RV.From->IsLet ? KVariable : KField,
            RV.From && RV.From->IsLet ? "let" : "field");
    for (const sema::SourceFile &F : Files) {
      if (!F.AST)
        continue;
      for (const ast::Decl *Dc : F.AST->getDecls()) {
        if (auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(Dc))
          Add(E->getName().Name.str(), KClass, entityLabel(*E));
        else if (auto *En = llvm::dyn_cast_or_null<ast::EnumDecl>(Dc))
          for (const ast::Identifier &M : En->getMembers())
            Add(M.Name.str(), KEnumMember,
                "member of enum '" + En->getName().Name.str() + "'");
        else if (auto *L = llvm::dyn_cast_or_null<ast::LetDecl>(Dc))
          Add(L->getName().Name.str(), KConstant, "constant");
      }
    }
    break; // the best compilation is enough
  }
  return {{"isIncomplete", false}, {"items", Items}};
}

json Server::documentSymbol(const json &Params) {
  Document *D = find(Params);
  const Analysis *Cur = currentAnalysis(*D);
  json Out = json::array();
  if (!Cur || !Cur->MainBuffer || !Cur->CI->getAST())
    return Out;
  LineTable LT(Cur->Text);
  const char *Base = bufferText(Cur->sm(), Cur->MainBuffer).data();
  auto Off = [&](llvm::SMLoc L) { return size_t(L.getPointer() - Base); };
  auto Sym = [&](const std::string &Name, int Kind, llvm::SMRange Whole,
                 llvm::SMRange Sel) {
    if (!Sel.isValid())
      Sel = Whole;
    return json{{"name", Name.empty() ? std::string("?") : Name},
                {"kind", Kind},
                {"range", LT.range(Off(Whole.Start), Off(Whole.End))},
                {"selectionRange", LT.range(Off(Sel.Start), Off(Sel.End))},
                {"children", json::array()}};
  };
  // LSP SymbolKind values.
  constexpr int SModule = 2, SNamespace = 3, SClass = 5, SProperty = 7,
                SEnum = 10, SConstant = 14, SVariable = 13, SEvent = 24;
  std::function<void(const ast::Block &, json &)> Children =
      [&](const ast::Block &B, json &Into) {
        for (const ast::Stmt *S : B.Stmts) {
          if (!S)
            continue;
          if (auto *Band = llvm::dyn_cast<ast::BandStmt>(S)) {
            json J = Sym("band " + Band->getName().Name.str(), SNamespace,
                         S->getRange(), Band->getName().Range);
            Children(Band->getBody(), J["children"]);
            Into.push_back(std::move(J));
          } else if (auto *Arm = llvm::dyn_cast<ast::ArmStmt>(S)) {
            json J = Sym("arm " + Arm->getName().Name.str(), SNamespace,
                         S->getRange(), Arm->getName().Range);
            Children(Arm->getBody(), J["children"]);
            Into.push_back(std::move(J));
          } else if (auto *At = llvm::dyn_cast<ast::AtConcStmt>(S)) {
            std::string Name = "at conc";
            if (!At->getConcs().empty()) {
              const char *B0 =
                  At->getConcs().front()->getRange().Start.getPointer();
              const char *E0 =
                  At->getConcs().back()->getRange().End.getPointer();
              Name += " " + std::string(B0, E0);
            }
            json J = Sym(Name, SEvent, S->getRange(), {});
            Children(At->getBody(), J["children"]);
            Into.push_back(std::move(J));
          } else if (auto *L = llvm::dyn_cast<ast::LetStmt>(S)) {
            Into.push_back(Sym(L->getName().Name.str(), SVariable,
                               S->getRange(), L->getName().Range));
          } else if (auto *K = llvm::dyn_cast<ast::KnobStmt>(S)) {
            Into.push_back(Sym(K->getName().Name.str(), SProperty,
                               S->getRange(), K->getName().Range));
          }
        }
      };
  for (const ast::Decl *Dc : Cur->CI->getAST()->getDecls()) {
    if (auto *E = llvm::dyn_cast_or_null<ast::EntityDecl>(Dc)) {
      json J = Sym(
          getSpelling(E->getEntityKind()).str() + " " + E->getName().Name.str(),
          E->getEntityKind() == ast::EntityKind::Recipe ? SModule : SClass,
          E->getRange(), E->getName().Range);
      Children(E->getBody(), J["children"]);
      Out.push_back(std::move(J));
    } else if (auto *En = llvm::dyn_cast_or_null<ast::EnumDecl>(Dc)) {
      Out.push_back(Sym(En->getName().Name.str(), SEnum, En->getRange(),
                        En->getName().Range));
    } else if (auto *L = llvm::dyn_cast_or_null<ast::LetDecl>(Dc)) {
      Out.push_back(Sym(L->getName().Name.str(), SConstant, L->getRange(),
                        L->getName().Range));
    }
  }
  return Out;
}

json Server::formatting(const json &Params) {
  Document *D = find(Params);
  llvm::SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(D->Text, D->Path), llvm::SMLoc());
  Collector Errors;
  std::optional<std::string> Out;
  {
    DiagnosticEngine Diags(SM, &Errors);
    Out = format::formatBuffer(SM, ID, Diags);
  }
  if (!Out) {
    for (const Diagnostic &E : Errors.Diags)
      if (E.Level == DiagLevel::Error)
        return formatLocation(SM, E.Loc).value_or(D->Path) + ": " + E.Message +
               " (the document is not formatted)";
    return "the document could not be formatted";
  }
  json Edits = json::array();
  if (*Out != D->Text) {
    LineTable LT(D->Text);
    Edits.push_back(
        {{"range", LT.range(0, D->Text.size())}, {"newText", *Out}});
  }
  return Edits;
}

json Server::codeAction(const json &Params) {
  Document *D = find(Params);
  json Out = json::array();
  const Analysis *Cur = currentAnalysis(*D);
  if (!Cur || Cur->Text != D->Text)
    return Out;
  LineTable LT(D->Text);
  const json &Range = member(Params, "range", "params");
  size_t B = LT.offset(member(Range, "start", "range"));
  size_t E = LT.offset(member(Range, "end", "range"));
  for (const Published &P : D->Diags) {
    if (P.Edits.empty() || P.End < B || P.Begin > E)
      continue;
    Out.push_back({{"title", P.FixTitle},
                   {"kind", "quickfix"},
                   {"diagnostics", json::array({P.Diag})},
                   {"isPreferred", true},
                   {"edit", {{"changes", {{D->Uri, P.Edits}}}}}});
  }
  return Out;
}
