//===- SseParser.cpp - Incremental server-sent-events parser --------------===//

#include "arecipe/Client/SseParser.h"

#include <cstring>

using namespace arecipe::client;

void SseParser::feed(std::string_view Bytes) {
  const char *P = Bytes.data();
  const char *End = P + Bytes.size();
  if (SkipLF && P != End) {
    if (*P == '\n')
      ++P;
    SkipLF = false;
  }
  while (P != End) {
    // Find the next line terminator without looking at bytes twice.
    const char *Term = P;
    while (Term != End && *Term != '\n' && *Term != '\r')
      ++Term;
    if (Term == End) {
      Line.append(P, End);
      return;
    }
    if (Line.empty()) {
      processLine(std::string_view(P, Term - P));
    } else {
      Line.append(P, Term);
      processLine(Line);
      Line.clear();
    }
    if (*Term == '\r') {
      if (Term + 1 == End) {
        // The matching LF, if any, arrives with the next read.
        SkipLF = true;
        return;
      }
      if (Term[1] == '\n')
        ++Term;
    }
    P = Term + 1;
  }
}

void SseParser::processLine(std::string_view L) {
  if (L.empty()) {
    dispatch();
    return;
  }
  if (L.front() == ':')
    return; // A comment, often used as a keep-alive.
  std::string_view Field = L, Value;
  if (size_t Colon = L.find(':'); Colon != std::string_view::npos) {
    Field = L.substr(0, Colon);
    Value = L.substr(Colon + 1);
    if (!Value.empty() && Value.front() == ' ')
      Value.remove_prefix(1);
  }
  if (Field == "data") {
    if (HasData)
      Data.push_back('\n');
    Data.append(Value);
    HasData = true;
  } else if (Field == "event") {
    Name.assign(Value);
  } else if (Field == "id") {
    if (Value.find('\0') == std::string_view::npos)
      LastId.assign(Value);
  }
  // `retry` and unknown fields carry nothing a benchmark client uses.
}

void SseParser::dispatch() {
  if (HasData) {
    ++Events;
    OnEvent(SseEvent{Name, Data, LastId});
  }
  Data.clear();
  Name.clear();
  HasData = false;
}
