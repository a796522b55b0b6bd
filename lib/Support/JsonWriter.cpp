//===- JsonWriter.cpp - Indented JSON written as it is produced -----------===//

#include "arecipe/Support/JsonWriter.h"

#include "arecipe/Support/Utf8.h"

#include <nlohmann/detail/conversions/to_chars.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>

using namespace arecipe::support;

void JsonWriter::grow(size_t N) {
  // Geometric growth, so a document written token by token is copied a
  // bounded number of times; 4 KB at first, a cell's worth soon after.
  size_t NewCap = std::max({Cap * 2, Size + N, size_t(4096)});
  // Not value-initialised: every byte up to Size is written before it is
  // read.
  std::unique_ptr<char[]> New(new char[NewCap]);
  if (Size)
    std::memcpy(New.get(), Buf.get(), Size);
  Buf = std::move(New);
  Cap = NewCap;
}

void JsonWriter::newline(size_t Depth) {
  if (Indent < 0)
    return;
  size_t Spaces = Depth * static_cast<size_t>(Indent);
  char *P = room(1 + Spaces);
  *P = '\n';
  std::memset(P + 1, ' ', Spaces);
  Size += 1 + Spaces;
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
    put(',');
  Stack.back().Empty = false;
  newline(Stack.size());
}

void JsonWriter::key(std::string_view K) {
  assert(!Stack.empty() && Stack.back().IsObject && !AfterKey &&
         "a key belongs in an object, before its value");
  if (!Stack.back().Empty)
    put(',');
  Stack.back().Empty = false;
  newline(Stack.size());
  putString(K);
  put(Indent < 0 ? std::string_view(":") : std::string_view(": "));
  AfterKey = true;
}

void JsonWriter::beginObject() {
  beforeValue();
  put('{');
  Stack.push_back({true});
}

void JsonWriter::beginArray() {
  beforeValue();
  put('[');
  Stack.push_back({false});
}

void JsonWriter::end(bool IsObject) {
  assert(!Stack.empty() && Stack.back().IsObject == IsObject && !AfterKey &&
         "ends the container begun last");
  bool Empty = Stack.back().Empty;
  Stack.pop_back();
  if (!Empty)
    newline(Stack.size());
  put(IsObject ? '}' : ']');
}

void JsonWriter::endObject() { end(true); }
void JsonWriter::endArray() { end(false); }

void JsonWriter::null() {
  beforeValue();
  put("null");
}

void JsonWriter::boolean(bool B) {
  beforeValue();
  put(B ? std::string_view("true") : std::string_view("false"));
}

/// Room any 64-bit integer needs in decimal, sign included.
constexpr size_t MaxIntChars = 24;
/// Room nlohmann's to_chars needs for any double (its own buffer is 64).
constexpr size_t MaxDoubleChars = 64;

template <typename Int> static char *formatInt(char *Dst, Int N) {
  auto [End, Ec] = std::to_chars(Dst, Dst + MaxIntChars, N);
  assert(Ec == std::errc() && "24 characters hold any 64-bit integer");
  (void)Ec;
  return End;
}

/// D as nlohmann's dump writes it, at Dst (room for MaxDoubleChars).
static char *formatDouble(char *Dst, double D) {
  if (!std::isfinite(D)) {
    std::memcpy(Dst, "null", 4);
    return Dst + 4;
  }
  // nlohmann's serializer formats a double with exactly this call (Grisu2,
  // shortest round trip; ".0" after a whole number; "1e+30").
  return nlohmann::detail::to_chars(Dst, Dst + MaxDoubleChars, D);
}

void JsonWriter::number(int64_t N) {
  beforeValue();
  Size = static_cast<size_t>(formatInt(room(MaxIntChars), N) - Buf.get());
}

void JsonWriter::number(uint64_t N) {
  beforeValue();
  Size = static_cast<size_t>(formatInt(room(MaxIntChars), N) - Buf.get());
}

void JsonWriter::number(double D) {
  beforeValue();
  Size = static_cast<size_t>(formatDouble(room(MaxDoubleChars), D) - Buf.get());
}

void JsonWriter::appendDouble(std::string &Out, double D) {
  std::array<char, MaxDoubleChars> Tmp;
  Out.append(Tmp.data(), formatDouble(Tmp.data(), D));
}

void JsonWriter::string(std::string_view S) {
  beforeValue();
  putString(S);
}

namespace {
/// The bytes nlohmann's dump escapes inside a string (ensure_ascii off):
/// control characters, the quote and the backslash. Every other byte,
/// DEL and non-ASCII included, is copied as it is.
struct EscapeTable {
  bool Escaped[256] = {};
  constexpr EscapeTable() {
    for (int C = 0; C < 0x20; ++C)
      Escaped[C] = true;
    Escaped[static_cast<unsigned char>('"')] = true;
    Escaped[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr EscapeTable Escapes;
} // namespace

constexpr uint64_t OneEach = 0x0101010101010101ULL;
constexpr uint64_t HighBits = 0x8080808080808080ULL;

/// Whether any byte of W is one EscapeTable escapes: below 0x20, a quote
/// or a backslash. (`(W - n * OneEach) & ~W & HighBits` is non-zero iff
/// some byte of W is below n, for n <= 0x80; a byte equal to c is a zero
/// byte of W ^ (c * OneEach).)
static bool hasEscapedByte(uint64_t W) {
  auto HasZero = [](uint64_t X) { return (X - OneEach) & ~X & HighBits; };
  return ((W - 0x20 * OneEach) & ~W & HighBits) | HasZero(W ^ ('"' * OneEach)) |
         HasZero(W ^ ('\\' * OneEach));
}

/// The most bytes S takes as a string literal: quotes, and six bytes
/// (`\u00xx`) per byte at worst.
static size_t maxLiteralSize(std::string_view S) { return 6 * S.size() + 2; }

/// S as nlohmann's dump writes valid UTF-8 with ensure_ascii off, at Dst
/// (room for maxLiteralSize(S)): the two-character escapes it knows, other
/// control characters as \u00xx (lower-case hex), everything else as is.
/// Returns the end, or null when S holds a byte above ASCII and is not
/// valid UTF-8 (what was written at Dst is then to be discarded).
static char *escapeInto(char *Dst, std::string_view S) {
  *Dst++ = '"';
  const char *P = S.data(), *E = S.data() + S.size();
  unsigned char High = 0; // The bits of every byte copied: 0x80 if any is
                          // not ASCII.
  while (P != E) {
    // Eight bytes at a time while none of them is escaped (the words of a
    // plan: keys, flags, paths): copied whole, checked with word
    // arithmetic rather than byte by byte.
    while (E - P >= 8) {
      uint64_t Word;
      std::memcpy(&Word, P, 8);
      if (hasEscapedByte(Word))
        break;
      std::memcpy(Dst, &Word, 8);
      High |= static_cast<unsigned char>((Word & HighBits) != 0) << 7;
      P += 8;
      Dst += 8;
    }
    // The run of bytes copied as they are, at once.
    const char *Run = P;
    while (P != E && !Escapes.Escaped[static_cast<unsigned char>(*P)])
      High |= static_cast<unsigned char>(*P++);
    std::memcpy(Dst, Run, static_cast<size_t>(P - Run));
    Dst += P - Run;
    if (P == E)
      break;
    unsigned char C = static_cast<unsigned char>(*P++);
    *Dst++ = '\\';
    switch (C) {
    case '\b':
      *Dst++ = 'b';
      break;
    case '\t':
      *Dst++ = 't';
      break;
    case '\n':
      *Dst++ = 'n';
      break;
    case '\f':
      *Dst++ = 'f';
      break;
    case '\r':
      *Dst++ = 'r';
      break;
    case '"':
      *Dst++ = '"';
      break;
    case '\\':
      *Dst++ = '\\';
      break;
    default: {
      static const char Hex[] = "0123456789abcdef";
      std::memcpy(Dst, "u00", 3);
      Dst[3] = Hex[C >> 4];
      Dst[4] = Hex[C & 0xf];
      Dst += 5;
    }
    }
  }
  if ((High & 0x80) && !isValidUtf8(S))
    return nullptr;
  *Dst++ = '"';
  return Dst;
}

void JsonWriter::putString(std::string_view S) {
  if (char *End = escapeInto(room(maxLiteralSize(S)), S)) {
    Size = static_cast<size_t>(End - Buf.get());
    return;
  }
  // Invalid UTF-8 is replaced by U+FFFD, as dumpJson does.
  std::string Valid = sanitizeUtf8(S);
  Size = static_cast<size_t>(escapeInto(room(maxLiteralSize(Valid)), Valid) -
                             Buf.get());
}

void JsonWriter::appendString(std::string &Out, std::string_view S) {
  JsonWriter W;
  W.putString(S);
  Out += W.text();
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
