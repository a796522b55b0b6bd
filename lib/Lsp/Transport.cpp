//===- Transport.cpp - Content-Length framing of JSON-RPC -----------------===//

#include "arecipe/Lsp/Transport.h"
#include "arecipe/Support/Utf8.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

#include <cstring>

using namespace arecipe;
using namespace arecipe::lsp;

namespace {
/// One header line without its line end; nullopt at end of input. A line
/// longer than 8 KB is cut (no header of the protocol is that long).
std::optional<std::string> readLine(std::FILE *In) {
  std::string Line;
  int C;
  bool Any = false;
  while ((C = std::fgetc(In)) != EOF) {
    Any = true;
    if (C == '\n')
      break;
    if (Line.size() < 8192)
      Line.push_back(static_cast<char>(C));
  }
  if (!Any)
    return std::nullopt;
  if (!Line.empty() && Line.back() == '\r')
    Line.pop_back();
  return Line;
}

} // namespace

Frame Transport::read() {
  Frame F;
  std::optional<size_t> Length;
  std::string Bad;
  bool SawHeader = false;
  for (;;) {
    std::optional<std::string> Line = readLine(In);
    if (!Line) {
      F.K = Frame::End;
      return F;
    }
    if (Line->empty()) {
      if (!SawHeader)
        continue; // blank lines between frames
      break;
    }
    SawHeader = true;
    size_t Colon = Line->find(':');
    if (Colon == std::string::npos) {
      Bad = "a header line without ':'";
      continue;
    }
    std::string_view Name(Line->data(), Colon);
    std::string Value = Line->substr(Colon + 1);
    while (!Value.empty() && Value.front() == ' ')
      Value.erase(0, 1);
    if (!llvm::StringRef(Name.data(), Name.size())
             .equals_insensitive("content-length"))
      continue; // Content-Type and the like
    size_t N = 0;
    bool Digits = !Value.empty() && Value.size() <= 19;
    for (char C : Value) {
      if (C < '0' || C > '9') {
        Digits = false;
        break;
      }
      N = N * 10 + static_cast<size_t>(C - '0');
    }
    if (!Digits)
      Bad = "Content-Length is not a number: '" +
            support::escapeForErrorLine(Value) + "'";
    else
      Length = N;
  }
  F.K = Frame::Malformed;
  if (!Bad.empty() && !Length) {
    F.Error = Bad;
    return F;
  }
  if (!Length) {
    F.Error = "a message without a Content-Length header";
    return F;
  }
  std::string Body;
  size_t Keep = std::min(*Length, MaxBody);
  Body.resize(Keep);
  size_t Got = Keep ? std::fread(Body.data(), 1, Keep, In) : 0;
  // Past the limit the rest is read and dropped, so the next frame starts
  // where it should.
  for (size_t Skip = *Length - Keep; Skip > 0 && std::fgetc(In) != EOF; --Skip)
    ;
  if (Got < Keep) {
    F.Error = "the input ended inside a message body (" + std::to_string(Got) +
              " of " + std::to_string(*Length) + " bytes)";
    return F;
  }
  if (*Length > MaxBody) {
    F.Error = "a message body of " + std::to_string(*Length) +
              " bytes, more than the limit of " + std::to_string(MaxBody);
    return F;
  }
  support::JsonSyntaxError Err;
  if (!support::parseJson(Body, F.Body, Err)) {
    F.Error = "the body is not JSON: " +
              (Err.Position.empty() ? "" : Err.Position + ": ") + Err.Message;
    return F;
  }
  F.K = Frame::Message;
  return F;
}

void Transport::write(const support::json &Message) {
  std::string Body = support::dumpJson(Message);
  std::fprintf(Out, "Content-Length: %zu\r\n\r\n", Body.size());
  std::fwrite(Body.data(), 1, Body.size(), Out);
  std::fflush(Out);
}
