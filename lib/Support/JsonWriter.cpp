//===- JsonWriter.cpp - Indented JSON written as it is produced -----------===//

#include "arecipe/Support/JsonWriter.h"

#include "arecipe/Support/Utf8.h"

#include <nlohmann/detail/conversions/to_chars.hpp>

#include <array>
#include <cassert>
#include <charconv>
#include <cmath>

using namespace arecipe::support;

void JsonWriter::newline(size_t Depth) {
  if (Indent < 0)
    return;
  Out += '\n';
  Out.append(Depth * static_cast<size_t>(Indent), ' ');
}

void JsonWriter::beforeValue() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (Stack.empty())
    return;
  assert(!Stack.back().IsObject && "a value in an object needs a key");
  if (!Stack.back().Empty)
    Out += ',';
  Stack.back().Empty = false;
  newline(Stack.size());
}

void JsonWriter::key(std::string_view K) {
  assert(!Stack.empty() && Stack.back().IsObject && !AfterKey &&
         "a key belongs in an object, before its value");
  if (!Stack.back().Empty)
    Out += ',';
  Stack.back().Empty = false;
  newline(Stack.size());
  appendString(Out, K);
  Out += Indent < 0 ? ":" : ": ";
  AfterKey = true;
}

void JsonWriter::beginObject() {
  beforeValue();
  Out += '{';
  Stack.push_back({true});
}

void JsonWriter::beginArray() {
  beforeValue();
  Out += '[';
  Stack.push_back({false});
}

void JsonWriter::end(bool IsObject) {
  assert(!Stack.empty() && Stack.back().IsObject == IsObject && !AfterKey &&
         "ends the container begun last");
  bool Empty = Stack.back().Empty;
  Stack.pop_back();
  if (!Empty)
    newline(Stack.size());
  Out += IsObject ? '}' : ']';
}

void JsonWriter::endObject() { end(true); }
void JsonWriter::endArray() { end(false); }

void JsonWriter::null() {
  beforeValue();
  Out += "null";
}

void JsonWriter::boolean(bool B) {
  beforeValue();
  Out += B ? "true" : "false";
}

template <typename Int> static void appendInt(std::string &Out, Int N) {
  std::array<char, 24> Buf;
  auto [End, Ec] = std::to_chars(Buf.data(), Buf.data() + Buf.size(), N);
  assert(Ec == std::errc() && "24 characters hold any 64-bit integer");
  (void)Ec;
  Out.append(Buf.data(), End);
}

void JsonWriter::number(int64_t N) {
  beforeValue();
  appendInt(Out, N);
}

void JsonWriter::number(uint64_t N) {
  beforeValue();
  appendInt(Out, N);
}

void JsonWriter::number(double D) {
  beforeValue();
  appendDouble(Out, D);
}

void JsonWriter::appendDouble(std::string &Out, double D) {
  if (!std::isfinite(D)) {
    Out += "null";
    return;
  }
  // nlohmann's serializer formats a double with exactly this call (Grisu2,
  // shortest round trip; ".0" after a whole number; "1e+30").
  std::array<char, 64> Buf;
  char *End =
      nlohmann::detail::to_chars(Buf.data(), Buf.data() + Buf.size(), D);
  Out.append(Buf.data(), static_cast<size_t>(End - Buf.data()));
}

void JsonWriter::string(std::string_view S) {
  beforeValue();
  appendString(Out, S);
}

/// S escaped as nlohmann's dump escapes valid UTF-8 with ensure_ascii off:
/// the two-character escapes it knows, other control characters as
/// \u00xx (lower-case hex), everything else (DEL and non-ASCII included)
/// as is. Returns false, having appended nothing, when S holds a byte
/// above ASCII and is not valid UTF-8.
static bool appendEscaped(std::string &Out, std::string_view S) {
  size_t Start = Out.size();
  Out += '"';
  bool Ascii = true;
  size_t Run = 0; // Start of the bytes not yet copied.
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = static_cast<unsigned char>(S[I]);
    if (C >= 0x20 && C != '"' && C != '\\') {
      Ascii &= C < 0x80;
      continue;
    }
    Out.append(S.data() + Run, I - Run);
    Run = I + 1;
    switch (C) {
    case '\b':
      Out += "\\b";
      break;
    case '\t':
      Out += "\\t";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\f':
      Out += "\\f";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    default: {
      static const char Hex[] = "0123456789abcdef";
      Out += "\\u00";
      Out += Hex[C >> 4];
      Out += Hex[C & 0xf];
    }
    }
  }
  if (!Ascii && !isValidUtf8(S)) {
    Out.resize(Start);
    return false;
  }
  Out.append(S.data() + Run, S.size() - Run);
  Out += '"';
  return true;
}

void JsonWriter::appendString(std::string &Out, std::string_view S) {
  if (!appendEscaped(Out, S))
    appendEscaped(Out, sanitizeUtf8(S));
}

template <typename JsonT> void JsonWriter::writeDom(const JsonT &V) {
  switch (V.type()) {
  case nlohmann::json::value_t::object:
    beginObject();
    for (auto It = V.begin(); It != V.end(); ++It) {
      key(It.key());
      writeDom(It.value());
    }
    endObject();
    return;
  case nlohmann::json::value_t::array:
    beginArray();
    for (const JsonT &E : V)
      writeDom(E);
    endArray();
    return;
  case nlohmann::json::value_t::string:
    return string(V.template get_ref<const std::string &>());
  case nlohmann::json::value_t::boolean:
    return boolean(V.template get<bool>());
  case nlohmann::json::value_t::number_integer:
    return number(V.template get<int64_t>());
  case nlohmann::json::value_t::number_unsigned:
    return number(V.template get<uint64_t>());
  case nlohmann::json::value_t::number_float:
    return number(V.template get<double>());
  case nlohmann::json::value_t::null:
  case nlohmann::json::value_t::discarded:
  case nlohmann::json::value_t::binary:
    // A plan never holds binary; nlohmann would write a dict for it, and
    // "discarded" only exists inside a parse callback.
    return null();
  }
}

void JsonWriter::value(const nlohmann::ordered_json &V) { writeDom(V); }
void JsonWriter::value(const nlohmann::json &V) { writeDom(V); }
