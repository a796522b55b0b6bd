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

namespace {
/// The longest indentation copied from Run; deeper lines are filled.
constexpr size_t RunSpaces = 128;
/// A comma, a newline and RunSpaces spaces, then a few more bytes so
/// copyRun may copy whole 16-byte blocks past what it needs.
struct SeparatorRun {
  char Text[2 + RunSpaces + 16] = {};
  constexpr SeparatorRun() {
    Text[0] = ',';
    Text[1] = '\n';
    for (size_t I = 2; I < sizeof(Text); ++I)
      Text[I] = ' ';
  }
};
constexpr SeparatorRun Run;
} // namespace

/// Copies N bytes in whole 16-byte blocks, which the compiler turns into a
/// few vector moves instead of a call to memcpy: a separator is mostly
/// under 16 bytes. Dst and Src must both have N + 15 bytes.
static void copyRun(char *Dst, const char *Src, size_t N) {
  for (size_t I = 0; I < N; I += 16)
    std::memcpy(Dst + I, Src + I, 16);
}

char *JsonWriter::separator(bool Comma, size_t Depth, size_t Extra) {
  if (Indent < 0) {
    char *P = room(1 + Extra);
    if (Comma)
      *P++ = ',';
    return P;
  }
  size_t Spaces = Depth * static_cast<size_t>(Indent);
  size_t N = size_t(Comma) + 1 + Spaces;
  // 15 bytes of slack for copyRun's last block, overwritten by what
  // follows or left past the end of the text.
  char *P = room(N + 15 + Extra);
  if (Spaces <= RunSpaces) {
    copyRun(P, Run.Text + !Comma, N);
  } else {
    P[0] = ',';
    P[Comma] = '\n';
    std::memset(P + Comma + 1, ' ', Spaces);
  }
  return P + N;
}

char *JsonWriter::beforeKey(size_t Extra) {
  assert(!Stack.empty() && Stack.back().IsObject && !AfterKey &&
         "a key belongs in an object, before its value");
  Level &L = Stack.back();
  bool Comma = !L.Empty;
  L.Empty = false;
  return separator(Comma, Stack.size(), Extra);
}

void JsonWriter::beforeValue() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (Stack.empty())
    return;
  assert(!Stack.back().IsObject && "a value in an object needs a key");
  Level &L = Stack.back();
  bool Comma = !L.Empty;
  L.Empty = false;
  Size = static_cast<size_t>(separator(Comma, Stack.size(), 0) - Buf.get());
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
  char *P = Empty ? room(1) : separator(false, Stack.size(), 1);
  *P++ = IsObject ? '}' : ']';
  Size = static_cast<size_t>(P - Buf.get());
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

static uint64_t load64(const char *P) {
  uint64_t W;
  std::memcpy(&W, P, 8);
  return W;
}
static uint32_t load32(const char *P) {
  uint32_t W;
  std::memcpy(&W, P, 4);
  return W;
}

/// Copies the N bytes at P to Dst when none of them needs escaping and
/// returns true, with the bits of every byte or-ed into Bits (so the
/// caller sees whether any is not ASCII); returns false as soon as one
/// does (what was written at Dst is then to be overwritten). Checked eight
/// bytes at a time with word arithmetic, the last word overlapping the one
/// before it rather than finishing byte by byte, and a short string as two
/// overlapping halves: a plan's strings are mostly under 16 bytes, where a
/// byte loop or a memcpy call cost more than the check. It never reads or
/// writes outside the N bytes.
static bool copyIfPlain(char *Dst, const char *P, size_t N, uint64_t &Bits) {
  if (N >= 8) {
    size_t I = 0;
    for (; I + 8 <= N; I += 8) {
      uint64_t W = load64(P + I);
      if (hasEscapedByte(W))
        return false;
      Bits |= W;
      std::memcpy(Dst + I, &W, 8);
    }
    if (I != N) {
      uint64_t W = load64(P + N - 8);
      if (hasEscapedByte(W))
        return false;
      Bits |= W;
      std::memcpy(Dst + N - 8, &W, 8);
    }
    return true;
  }
  if (N >= 4) {
    uint32_t Lo = load32(P), Hi = load32(P + N - 4);
    uint64_t W = Lo | uint64_t(Hi) << 32;
    if (hasEscapedByte(W))
      return false;
    Bits |= W;
    std::memcpy(Dst, &Lo, 4);
    std::memcpy(Dst + N - 4, &Hi, 4);
    return true;
  }
  if (N == 0)
    return true;
  // One to three bytes: the first, the middle and the last (the same byte
  // twice when N < 3), in a word padded with 'a', which needs no escape.
  unsigned char First = P[0], Mid = P[N / 2], Last = P[N - 1];
  uint64_t W = 0x6161616161000000ULL | uint64_t(First) | uint64_t(Mid) << 8 |
               uint64_t(Last) << 16;
  if (hasEscapedByte(W))
    return false;
  Bits |= W;
  Dst[0] = static_cast<char>(First);
  Dst[N / 2] = static_cast<char>(Mid);
  Dst[N - 1] = static_cast<char>(Last);
  return true;
}

/// S as nlohmann's dump writes valid UTF-8 with ensure_ascii off, at Dst
/// (room for maxLiteralSize(S)): the two-character escapes it knows, other
/// control characters as \u00xx (lower-case hex), everything else as is.
/// Returns the end, or null when S holds a byte above ASCII and is not
/// valid UTF-8 (what was written at Dst is then to be discarded). The
/// general case of escapeInto, for a string with a byte to escape.
static char *escapeSlow(char *Dst, std::string_view S) {
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

/// S as escapeSlow writes it, copied in one go when no byte of it needs
/// escaping (nearly every string of a plan).
static char *escapeInto(char *Dst, std::string_view S) {
  uint64_t Bits = 0;
  if (!copyIfPlain(Dst + 1, S.data(), S.size(), Bits))
    return escapeSlow(Dst, S);
  if ((Bits & HighBits) && !isValidUtf8(S))
    return nullptr;
  Dst[0] = '"';
  Dst[S.size() + 1] = '"';
  return Dst + S.size() + 2;
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

void JsonWriter::key(std::string_view K) {
  Size = static_cast<size_t>(beforeKey(0) - Buf.get());
  putString(K);
  put(Indent < 0 ? std::string_view(":") : std::string_view(": "));
  AfterKey = true;
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
