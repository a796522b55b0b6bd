//===- Utf8.cpp - Text from outside, made safe to show and store ----------===//

#include "arecipe/Support/Utf8.h"

#include <cstdio>

namespace arecipe::support {

namespace {

/// The length of the well-formed sequence at Text[I], or 0 if the byte
/// there does not start one.
size_t sequenceLength(std::string_view Text, size_t I) {
  unsigned char C = static_cast<unsigned char>(Text[I]);
  if (C < 0x80)
    return 1;
  size_t Len = C >= 0xc2 && C <= 0xdf   ? 2
               : C >= 0xe0 && C <= 0xef ? 3
               : C >= 0xf0 && C <= 0xf4 ? 4
                                        : 0;
  if (Len == 0 || I + Len > Text.size())
    return 0;
  for (size_t K = 1; K < Len; ++K)
    if ((static_cast<unsigned char>(Text[I + K]) & 0xc0) != 0x80)
      return 0;
  if (Len >= 3) {
    // Overlong forms, UTF-16 surrogates, and code points above U+10FFFF.
    unsigned char C1 = static_cast<unsigned char>(Text[I + 1]);
    if ((C == 0xe0 && C1 < 0xa0) || (C == 0xed && C1 > 0x9f) || (C == 0xf0 && C1 < 0x90) ||
        (C == 0xf4 && C1 > 0x8f))
      return 0;
  }
  return Len;
}

} // namespace

bool isValidUtf8(std::string_view Text) {
  for (size_t I = 0; I < Text.size();) {
    size_t Len = sequenceLength(Text, I);
    if (Len == 0)
      return false;
    I += Len;
  }
  return true;
}

std::string sanitizeUtf8(std::string_view Text) {
  if (isValidUtf8(Text))
    return std::string(Text);
  std::string Out;
  Out.reserve(Text.size() + 16);
  for (size_t I = 0; I < Text.size();) {
    size_t Len = sequenceLength(Text, I);
    if (Len == 0) {
      Out += "\xef\xbf\xbd"; // U+FFFD REPLACEMENT CHARACTER
      ++I;
      continue;
    }
    Out.append(Text.substr(I, Len));
    I += Len;
  }
  return Out;
}

std::string escapeForErrorLine(std::string_view Text) {
  std::string Out;
  Out.reserve(Text.size());
  auto Hex = [&](unsigned char C) {
    char Buf[8];
    std::snprintf(Buf, sizeof Buf, "\\x%02x", C);
    Out += Buf;
  };
  for (size_t I = 0; I < Text.size();) {
    unsigned char C = static_cast<unsigned char>(Text[I]);
    size_t Len = sequenceLength(Text, I);
    if (Len == 0) {
      Hex(C);
      ++I;
      continue;
    }
    if (Len == 1) {
      if (C == '\n')
        Out += "\\n";
      else if (C == '\t')
        Out += "\\t";
      else if (C == '\r')
        Out += "\\r";
      else if (C < 0x20 || C == 0x7f)
        Hex(C);
      else
        Out += char(C);
    } else {
      Out.append(Text.substr(I, Len));
    }
    I += Len;
  }
  return Out;
}

} // namespace arecipe::support
