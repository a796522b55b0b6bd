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
    size_t Len = size_t(Term - P);
    if (Term == End) {
      // Keep at most the cap (plus one byte, so an over-long line is known
      // to be one); the rest of an over-long line is skipped.
      if (!LineTooLong) {
        size_t Room = MaxLineBytes + 1 - Line.size();
        Line.append(P, Len < Room ? Len : Room);
        if (Line.size() > MaxLineBytes) {
          LineTooLong = true;
          Overflowed = true;
        }
      }
      break;
    }
    if (LineTooLong || Line.size() + Len > MaxLineBytes) {
      // The line's end: drop it and the event it belongs to.
      Overflowed = true;
      EventTooLong = true;
      LineTooLong = false;
      Line.clear();
    } else if (Line.empty()) {
      processLine(std::string_view(P, Len), /*InPlace=*/true);
    } else {
      Line.append(P, Term);
      processLine(Line, /*InPlace=*/false);
      Line.clear();
    }
    if (*Term == '\r') {
      if (Term + 1 == End) {
        // The matching LF, if any, arrives with the next read.
        SkipLF = true;
        P = End;
        break;
      }
      if (Term[1] == '\n')
        ++Term;
    }
    P = Term + 1;
  }
  // A view into this feed's bytes does not outlive it.
  materialize();
}

void SseParser::materialize() {
  if (!DataInPlace)
    return;
  Data.assign(DataView.data(), DataView.size());
  DataView = {};
  DataInPlace = false;
}

void SseParser::processLine(std::string_view L, bool InPlace) {
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
    if (EventTooLong)
      return;
    if (!HasData && InPlace) {
      DataView = Value;
      DataInPlace = true;
      HasData = true;
      return;
    }
    materialize();
    size_t Joined = Data.size() + (HasData ? 1 : 0) + Value.size();
    if (Joined > MaxLineBytes) {
      Overflowed = true;
      EventTooLong = true;
      Data.clear();
      return;
    }
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
  if (HasData && !EventTooLong) {
    ++Events;
    OnEvent(SseEvent{Name, DataInPlace ? DataView : std::string_view(Data), LastId});
  }
  Data.clear();
  DataView = {};
  DataInPlace = false;
  Name.clear();
  HasData = false;
  EventTooLong = false;
}
