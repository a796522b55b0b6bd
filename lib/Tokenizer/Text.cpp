//===- Text.cpp - UTF-8, Unicode properties and Oniguruma regexes ---------===//

#include "Text.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

using namespace arecipe::tokenizer::detail;

Utf8Step arecipe::tokenizer::detail::utf8Step(std::string_view S, size_t I) {
  const auto *U = reinterpret_cast<const unsigned char *>(S.data());
  size_t N = S.size();
  unsigned char B = U[I];
  if (B < 0x80)
    return {1, true};
  size_t Len;
  unsigned char Lo = 0x80, Hi = 0xBF; // the second byte's range
  if (B >= 0xC2 && B <= 0xDF)
    Len = 2;
  else if (B == 0xE0)
    Len = 3, Lo = 0xA0;
  else if (B == 0xED)
    Len = 3, Hi = 0x9F;
  else if (B >= 0xE1 && B <= 0xEF)
    Len = 3;
  else if (B == 0xF0)
    Len = 4, Lo = 0x90;
  else if (B == 0xF4)
    Len = 4, Hi = 0x8F;
  else if (B >= 0xF1 && B <= 0xF3)
    Len = 4;
  else
    return {1, false};
  if (I + 1 >= N || U[I + 1] < Lo || U[I + 1] > Hi)
    return {1, false};
  size_t Good = 2;
  while (Good < Len && I + Good < N && U[I + Good] >= 0x80 && U[I + Good] <= 0xBF)
    ++Good;
  return {Good, Good == Len};
}

bool arecipe::tokenizer::detail::isValidUtf8(std::string_view S) {
  for (size_t I = 0; I < S.size();) {
    Utf8Step Step = utf8Step(S, I);
    if (!Step.Valid)
      return false;
    I += Step.Len;
  }
  return true;
}

char32_t arecipe::tokenizer::detail::decodeUtf8(std::string_view S, size_t I, size_t &Len) {
  auto B = [&](size_t K) { return char32_t(static_cast<unsigned char>(S[I + K])); };
  char32_t C = B(0);
  if (C < 0x80) {
    Len = 1;
    return C;
  }
  if (C < 0xE0) {
    Len = 2;
    return ((C & 0x1F) << 6) | (B(1) & 0x3F);
  }
  if (C < 0xF0) {
    Len = 3;
    return ((C & 0x0F) << 12) | ((B(1) & 0x3F) << 6) | (B(2) & 0x3F);
  }
  Len = 4;
  return ((C & 0x07) << 18) | ((B(1) & 0x3F) << 12) | ((B(2) & 0x3F) << 6) | (B(3) & 0x3F);
}

void arecipe::tokenizer::detail::appendUtf8(std::string &Out, char32_t C) {
  if (C < 0x80) {
    Out.push_back(char(C));
  } else if (C < 0x800) {
    Out.push_back(char(0xC0 | (C >> 6)));
    Out.push_back(char(0x80 | (C & 0x3F)));
  } else if (C < 0x10000) {
    Out.push_back(char(0xE0 | (C >> 12)));
    Out.push_back(char(0x80 | ((C >> 6) & 0x3F)));
    Out.push_back(char(0x80 | (C & 0x3F)));
  } else {
    Out.push_back(char(0xF0 | (C >> 18)));
    Out.push_back(char(0x80 | ((C >> 12) & 0x3F)));
    Out.push_back(char(0x80 | ((C >> 6) & 0x3F)));
    Out.push_back(char(0x80 | (C & 0x3F)));
  }
}

size_t arecipe::tokenizer::detail::previousCharStart(std::string_view S, size_t End) {
  size_t I = End - 1;
  while (I > 0 && (static_cast<unsigned char>(S[I]) & 0xC0) == 0x80)
    --I;
  return I;
}

bool arecipe::tokenizer::detail::isWhitespace(char32_t C) {
  return u_hasBinaryProperty(UChar32(C), UCHAR_WHITE_SPACE);
}

bool arecipe::tokenizer::detail::isAlphanumeric(char32_t C) {
  if (u_hasBinaryProperty(UChar32(C), UCHAR_ALPHABETIC))
    return true;
  int8_t T = u_charType(UChar32(C));
  return T == U_DECIMAL_DIGIT_NUMBER || T == U_LETTER_NUMBER || T == U_OTHER_NUMBER;
}

std::string arecipe::tokenizer::detail::normalizeUnicode(std::string_view S, NormalForm Form) {
  UErrorCode Status = U_ZERO_ERROR;
  const icu::Normalizer2 *N = nullptr;
  switch (Form) {
  case NormalForm::NFC:
    N = icu::Normalizer2::getNFCInstance(Status);
    break;
  case NormalForm::NFD:
    N = icu::Normalizer2::getNFDInstance(Status);
    break;
  case NormalForm::NFKC:
    N = icu::Normalizer2::getNFKCInstance(Status);
    break;
  case NormalForm::NFKD:
    N = icu::Normalizer2::getNFKDInstance(Status);
    break;
  }
  icu::UnicodeString In =
      icu::UnicodeString::fromUTF8(icu::StringPiece(S.data(), int32_t(S.size())));
  icu::UnicodeString Out = N->normalize(In, Status);
  std::string R;
  Out.toUTF8String(R);
  return R;
}

std::string arecipe::tokenizer::detail::toLowerUnicode(std::string_view S) {
  icu::UnicodeString U =
      icu::UnicodeString::fromUTF8(icu::StringPiece(S.data(), int32_t(S.size())));
  U.toLower(icu::Locale::getRoot());
  std::string R;
  U.toUTF8String(R);
  return R;
}
