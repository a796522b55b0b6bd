//===- Regex.cpp - Oniguruma regexes with the reference's iteration -------===//
//
// Kept apart from Text.cpp: oniguruma.h defines UChar, which ICU's headers
// declare differently.
//
//===----------------------------------------------------------------------===//

#include "Text.h"

#include <oniguruma.h>

#include <cctype>
#include <mutex>

using namespace arecipe::tokenizer::detail;

namespace {
void initializeOniguruma() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    OnigEncoding Encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(Encodings, 1);
  });
}

std::string escapeLiteral(std::string_view Literal) {
  // Every ASCII punctuation character is escaped; letters, digits, spaces
  // and non-ASCII bytes stand for themselves in Oniguruma syntax.
  std::string P;
  for (char C : Literal) {
    unsigned char U = static_cast<unsigned char>(C);
    if (U < 0x80 && !std::isalnum(U) && C != ' ' && C != '_')
      P.push_back('\\');
    P.push_back(C);
  }
  return P;
}
} // namespace

std::unique_ptr<Regex> Regex::compile(std::string_view Pattern, std::string &Err) {
  initializeOniguruma();
  auto R = std::unique_ptr<Regex>(new Regex());
  regex_t *Reg = nullptr;
  OnigErrorInfo Info;
  const auto *P = reinterpret_cast<const OnigUChar *>(Pattern.data());
  int Code = onig_new(&Reg, P, P + Pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8,
                      ONIG_SYNTAX_DEFAULT, &Info);
  if (Code != ONIG_NORMAL) {
    OnigUChar Msg[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(Msg, Code, &Info);
    Err = reinterpret_cast<const char *>(Msg);
    return nullptr;
  }
  R->Compiled = Reg;
  return R;
}

std::unique_ptr<Regex> Regex::literal(std::string_view Literal) {
  std::string Err;
  return compile(escapeLiteral(Literal), Err);
}

Regex::~Regex() {
  if (Compiled)
    onig_free(static_cast<regex_t *>(Compiled));
}

std::vector<std::pair<size_t, size_t>> Regex::findAll(std::string_view S) const {
  std::vector<std::pair<size_t, size_t>> Out;
  auto *Reg = static_cast<regex_t *>(Compiled);
  OnigRegion *Region = onig_region_new();
  const auto *Str = reinterpret_cast<const OnigUChar *>(S.data());
  const OnigUChar *End = Str + S.size();
  size_t From = 0;
  bool HaveLast = false;
  size_t LastEnd = 0;
  while (From <= S.size()) {
    int R = onig_search(Reg, Str, End, Str + From, End, Region, ONIG_OPTION_NONE);
    if (R < 0)
      break; // ONIG_MISMATCH, or a search error (treated as no further match)
    size_t B = size_t(Region->beg[0]), E = size_t(Region->end[0]);
    if (B == E && HaveLast && LastEnd == E) {
      // An empty match where the last one ended: step one character on.
      if (From >= S.size())
        break;
      size_t Len = 1;
      decodeUtf8(S, From, Len);
      From += Len;
      continue;
    }
    Out.emplace_back(B, E);
    From = E;
    HaveLast = true;
    LastEnd = E;
  }
  onig_region_free(Region, 1);
  return Out;
}
