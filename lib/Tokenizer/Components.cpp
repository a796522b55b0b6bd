//===- Components.cpp - tokenizer.json pipeline components ----------------===//
//
// Each class mirrors one component of the reference implementation; the
// comments say where its behaviour is surprising, because that is exactly
// what an encoding has to reproduce to count the same tokens.
//
//===----------------------------------------------------------------------===//

#include "Components.h"

#include <algorithm>
#include <initializer_list>

using namespace arecipe::tokenizer::detail;
using nlohmann::json;

namespace {
//===-- Reading JSON ------------------------------------------------------===//

std::string typeOf(const json &J, const std::string &Path) {
  if (!J.is_object())
    throw LoadError(Path, "expected an object");
  auto T = J.find("type");
  if (T == J.end() || !T->is_string())
    throw LoadError(Path + ".type", "expected a string");
  return T->get<std::string>();
}

/// Refuses a key outside Known: an option this implementation does not
/// read could change the encoding.
void onlyKeys(const json &J, const std::string &Path, std::initializer_list<const char *> Known) {
  for (const auto &[Key, V] : J.items()) {
    if (Key == "type")
      continue;
    bool Ok = false;
    for (const char *K : Known)
      Ok |= Key == K;
    if (!Ok)
      throw LoadError(Path + "." + Key, "option not supported by this tokenizer implementation");
  }
}

std::string getString(const json &J, const std::string &Path, const char *Key) {
  auto It = J.find(Key);
  if (It == J.end() || !It->is_string())
    throw LoadError(Path + "." + Key, "expected a string");
  return It->get<std::string>();
}

bool getBool(const json &J, const std::string &Path, const char *Key, bool Default) {
  auto It = J.find(Key);
  if (It == J.end() || It->is_null())
    return Default;
  if (!It->is_boolean())
    throw LoadError(Path + "." + Key, "expected true or false");
  return It->get<bool>();
}

uint64_t getCount(const json &J, const std::string &Path, const char *Key) {
  auto It = J.find(Key);
  if (It == J.end() || !It->is_number_unsigned())
    throw LoadError(Path + "." + Key, "expected a non-negative integer");
  return It->get<uint64_t>();
}

/// One Unicode scalar, as a Rust `char` field.
char32_t getChar(const json &J, const std::string &Path, const char *Key) {
  std::string S = getString(J, Path, Key);
  size_t Len = 0;
  if (S.empty() || !isValidUtf8(S) || (decodeUtf8(S, 0, Len), Len != S.size()))
    throw LoadError(Path + "." + Key, "expected exactly one character");
  return decodeUtf8(S, 0, Len);
}

const json &getArray(const json &J, const std::string &Path, const char *Key) {
  auto It = J.find(Key);
  if (It == J.end() || !It->is_array())
    throw LoadError(Path + "." + Key, "expected an array");
  return *It;
}

/// A `pattern` field: {"String": s} or {"Regex": r}.
std::unique_ptr<Regex> getPattern(const json &J, const std::string &Path) {
  auto It = J.find("pattern");
  std::string P = Path + ".pattern";
  if (It == J.end() || !It->is_object() || It->size() != 1)
    throw LoadError(P, "expected {\"String\": ...} or {\"Regex\": ...}");
  if (auto S = It->find("String"); S != It->end() && S->is_string())
    return Regex::literal(S->get<std::string>());
  if (auto R = It->find("Regex"); R != It->end() && R->is_string()) {
    std::string Err;
    std::unique_ptr<Regex> Re = Regex::compile(R->get<std::string>(), Err);
    if (!Re)
      throw LoadError(P + ".Regex", "invalid regular expression: " + Err);
    return Re;
  }
  throw LoadError(P, "expected {\"String\": ...} or {\"Regex\": ...}");
}

/// Replaces every match of Re in S with Content.
std::string replaceAll(const Regex &Re, const std::string &S, const std::string &Content) {
  std::string Out;
  size_t Prev = 0;
  for (auto [B, E] : Re.findAll(S)) {
    Out.append(S, Prev, B - Prev);
    Out += Content;
    Prev = E;
  }
  Out.append(S, Prev, std::string::npos);
  return Out;
}

//===-- Normalizers -------------------------------------------------------===//

class UnicodeNormalizer : public Normalizer {
public:
  explicit UnicodeNormalizer(NormalForm F) : Form(F) {}
  void normalize(std::string &S) const override { S = normalizeUnicode(S, Form); }

private:
  NormalForm Form;
};

class LowercaseNormalizer : public Normalizer {
public:
  void normalize(std::string &S) const override { S = toLowerUnicode(S); }
};

class StripNormalizer : public Normalizer {
public:
  StripNormalizer(bool Left, bool Right) : Left(Left), Right(Right) {}
  void normalize(std::string &S) const override {
    size_t B = 0, E = S.size(), Len = 0;
    if (Left)
      while (B < E && isWhitespace(decodeUtf8(S, B, Len)))
        B += Len;
    if (Right)
      while (E > B) {
        size_t C = previousCharStart(S, E);
        if (!isWhitespace(decodeUtf8(S, C, Len)))
          break;
        E = C;
      }
    S = S.substr(B, E - B);
  }

private:
  bool Left, Right;
};

/// Prepends only to non-empty text.
class PrependNormalizer : public Normalizer {
public:
  explicit PrependNormalizer(std::string P) : Prefix(std::move(P)) {}
  void normalize(std::string &S) const override {
    if (!S.empty())
      S.insert(0, Prefix);
  }
  bool prepends() const override { return true; }

private:
  std::string Prefix;
};

class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(std::unique_ptr<Regex> Re, std::string Content)
      : Re(std::move(Re)), Content(std::move(Content)) {}
  void normalize(std::string &S) const override { S = replaceAll(*Re, S, Content); }

private:
  std::unique_ptr<Regex> Re;
  std::string Content;
};

class SequenceNormalizer : public Normalizer {
public:
  std::vector<std::unique_ptr<Normalizer>> Parts;
  void normalize(std::string &S) const override {
    for (const auto &N : Parts)
      N->normalize(S);
  }
  bool prepends() const override {
    return std::any_of(Parts.begin(), Parts.end(), [](const auto &N) { return N->prepends(); });
  }
};

//===-- Pre-tokenizers ----------------------------------------------------===//

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct Span {
  size_t Begin, End;
  bool Match;
};

/// The reference's Pattern::find_matches: the whole text as alternating
/// match / non-match spans (an empty text is one empty non-match).
std::vector<Span> findMatches(const std::string &S,
                              const std::vector<std::pair<size_t, size_t>> &M) {
  std::vector<Span> Out;
  if (S.empty())
    return {{0, 0, false}};
  size_t Prev = 0;
  for (auto [B, E] : M) {
    if (Prev != B)
      Out.push_back({Prev, B, false});
    Out.push_back({B, E, true});
    Prev = E;
  }
  if (Prev != S.size())
    Out.push_back({Prev, S.size(), false});
  return Out;
}

/// The reference's NormalizedString::split: which spans become pieces.
/// Returns (begin, end) pairs; the caller drops empty pieces.
std::vector<std::pair<size_t, size_t>> applyBehavior(std::vector<Span> M, SplitBehavior B) {
  std::vector<std::pair<size_t, size_t>> Out;
  switch (B) {
  case SplitBehavior::Isolated:
    for (const Span &S : M)
      Out.emplace_back(S.Begin, S.End);
    break;
  case SplitBehavior::Removed:
    for (const Span &S : M)
      if (!S.Match)
        Out.emplace_back(S.Begin, S.End);
    break;
  case SplitBehavior::Contiguous: {
    bool Previous = false;
    for (const Span &S : M) {
      if (S.Match == Previous && !Out.empty())
        Out.back().second = S.End;
      else
        Out.emplace_back(S.Begin, S.End);
      Previous = S.Match;
    }
    break;
  }
  case SplitBehavior::MergedWithPrevious: {
    bool Previous = false;
    for (const Span &S : M) {
      if (S.Match && !Previous && !Out.empty())
        Out.back().second = S.End;
      else
        Out.emplace_back(S.Begin, S.End);
      Previous = S.Match;
    }
    break;
  }
  case SplitBehavior::MergedWithNext: {
    bool Previous = false;
    for (auto It = M.rbegin(); It != M.rend(); ++It) {
      if (It->Match && !Previous && !Out.empty())
        Out.back().first = It->Begin;
      else
        Out.emplace_back(It->Begin, It->End);
      Previous = It->Match;
    }
    std::reverse(Out.begin(), Out.end());
    break;
  }
  }
  return Out;
}

/// Splits every piece; sub-pieces keep AtStart only at offset 0.
template <typename Fn> void splitPieces(std::vector<Piece> &Pieces, Fn &&SplitOne) {
  std::vector<Piece> Out;
  Out.reserve(Pieces.size());
  for (Piece &P : Pieces) {
    std::vector<std::pair<size_t, size_t>> Parts = SplitOne(P.Text);
    for (auto [B, E] : Parts)
      if (E > B)
        Out.push_back({P.Text.substr(B, E - B), P.AtStart && B == 0});
  }
  Pieces = std::move(Out);
}

class SplitPreTokenizer : public PreTokenizer {
public:
  SplitPreTokenizer(std::unique_ptr<Regex> Re, SplitBehavior B, bool Invert)
      : Re(std::move(Re)), Behavior(B), Invert(Invert) {}
  void split(std::vector<Piece> &Pieces) const override {
    splitPieces(Pieces, [&](const std::string &S) {
      std::vector<Span> M = findMatches(S, Re->findAll(S));
      if (Invert)
        for (Span &Sp : M)
          Sp.Match = !Sp.Match;
      return applyBehavior(std::move(M), Behavior);
    });
  }

private:
  std::unique_ptr<Regex> Re;
  SplitBehavior Behavior;
  bool Invert;
};

// GPT-2's pre-tokenization pattern, as the reference's ByteLevel uses it.
constexpr const char *Gpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevelPreTokenizer : public PreTokenizer {
public:
  ByteLevelPreTokenizer(bool AddPrefixSpace, bool UseRegex) : AddPrefixSpace(AddPrefixSpace) {
    if (UseRegex) {
      std::string Err;
      Re = Regex::compile(Gpt2Pattern, Err);
    }
  }
  void split(std::vector<Piece> &Pieces) const override {
    // The prefix space goes on every piece present at this point, not only
    // the first one of the text.
    if (AddPrefixSpace)
      for (Piece &P : Pieces)
        if (P.Text.empty() || P.Text[0] != ' ')
          P.Text.insert(0, " ");
    if (Re)
      splitPieces(Pieces, [&](const std::string &S) {
        return applyBehavior(findMatches(S, Re->findAll(S)), SplitBehavior::Isolated);
      });
    const std::vector<char32_t> &Map = byteToChar();
    for (Piece &P : Pieces) {
      std::string Mapped;
      Mapped.reserve(P.Text.size() * 2);
      for (unsigned char B : P.Text)
        appendUtf8(Mapped, Map[B]);
      P.Text = std::move(Mapped);
    }
  }

private:
  bool AddPrefixSpace;
  std::unique_ptr<Regex> Re;
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer : public PreTokenizer {
public:
  MetaspacePreTokenizer(char32_t Replacement, PrependScheme Scheme, bool Split)
      : Scheme(Scheme), Split(Split) {
    appendUtf8(Rep, Replacement);
    SpaceRe = Regex::literal(" ");
    RepRe = Regex::literal(Rep);
  }
  void split(std::vector<Piece> &Pieces) const override {
    for (Piece &P : Pieces) {
      P.Text = replaceAll(*SpaceRe, P.Text, Rep);
      bool StartsWithRep = P.Text.compare(0, Rep.size(), Rep) == 0;
      if (!StartsWithRep &&
          (Scheme == PrependScheme::Always || (Scheme == PrependScheme::First && P.AtStart)))
        P.Text.insert(0, Rep);
    }
    if (Split)
      splitPieces(Pieces, [&](const std::string &S) {
        return applyBehavior(findMatches(S, RepRe->findAll(S)), SplitBehavior::MergedWithNext);
      });
  }
  bool needsStartOffsets() const override { return Scheme == PrependScheme::First; }

private:
  std::string Rep;
  PrependScheme Scheme;
  bool Split;
  std::unique_ptr<Regex> SpaceRe, RepRe;
};

/// ASCII digits, one piece each (individual_digits) or one piece per run.
class DigitsPreTokenizer : public PreTokenizer {
public:
  explicit DigitsPreTokenizer(bool Individual) : Individual(Individual) {}
  void split(std::vector<Piece> &Pieces) const override {
    splitPieces(Pieces, [&](const std::string &S) {
      std::vector<std::pair<size_t, size_t>> M;
      for (size_t I = 0; I < S.size(); ++I)
        if (S[I] >= '0' && S[I] <= '9')
          M.emplace_back(I, I + 1);
      return applyBehavior(findMatches(S, M),
                           Individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
    });
  }

private:
  bool Individual;
};

class SequencePreTokenizer : public PreTokenizer {
public:
  std::vector<std::unique_ptr<PreTokenizer>> Parts;
  void split(std::vector<Piece> &Pieces) const override {
    for (const auto &P : Parts)
      P->split(Pieces);
  }
  bool needsStartOffsets() const override {
    return std::any_of(Parts.begin(), Parts.end(),
                       [](const auto &P) { return P->needsStartOffsets(); });
  }
};

PrependScheme metaspaceScheme(const json &J, const std::string &Path) {
  PrependScheme S = PrependScheme::Always;
  if (auto It = J.find("prepend_scheme"); It != J.end() && !It->is_null()) {
    std::string V = It->is_string() ? It->get<std::string>() : "";
    if (V == "always")
      S = PrependScheme::Always;
    else if (V == "first")
      S = PrependScheme::First;
    else if (V == "never")
      S = PrependScheme::Never;
    else
      throw LoadError(Path + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
  }
  // The legacy field: add_prefix_space false means never.
  if (!getBool(J, Path, "add_prefix_space", true))
    S = PrependScheme::Never;
  return S;
}

//===-- Decoders ----------------------------------------------------------===//

/// Rust's String::from_utf8_lossy: each maximal invalid subpart becomes one
/// U+FFFD.
std::string lossyUtf8(const std::string &Bytes) {
  std::string Out;
  for (size_t I = 0; I < Bytes.size();) {
    Utf8Step Step = utf8Step(Bytes, I);
    if (Step.Valid)
      Out.append(Bytes, I, Step.Len);
    else
      Out += "\xEF\xBF\xBD";
    I += Step.Len;
  }
  return Out;
}

class ByteLevelDecoder : public Decoder {
public:
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    static const std::unordered_map<char32_t, unsigned char> CharToByte = [] {
      std::unordered_map<char32_t, unsigned char> M;
      const std::vector<char32_t> &Map = byteToChar();
      for (unsigned B = 0; B < 256; ++B)
        M[Map[B]] = static_cast<unsigned char>(B);
      return M;
    }();
    std::string Bytes;
    for (const std::string &T : Tokens) {
      // A token with a character outside the map (an added token such as
      // "<|eot_id|>" usually maps; one that does not) contributes its bytes.
      std::string Mine;
      bool AllMapped = true;
      for (size_t I = 0, Len = 0; I < T.size(); I += Len) {
        auto It = CharToByte.find(decodeUtf8(T, I, Len));
        if (It == CharToByte.end()) {
          AllMapped = false;
          break;
        }
        Mine.push_back(char(It->second));
      }
      Bytes += AllMapped ? Mine : T;
    }
    return {lossyUtf8(Bytes)};
  }
};

class MetaspaceDecoder : public Decoder {
public:
  MetaspaceDecoder(char32_t Replacement, PrependScheme Scheme)
      : Replacement(Replacement), Scheme(Scheme) {}
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    // Every replacement character of the first token is dropped, not only a
    // leading one: that is the reference's behaviour.
    for (size_t I = 0; I < Tokens.size(); ++I) {
      std::string Out;
      const std::string &T = Tokens[I];
      for (size_t K = 0, Len = 0; K < T.size(); K += Len) {
        char32_t C = decodeUtf8(T, K, Len);
        if (C == Replacement) {
          if (!(I == 0 && Scheme != PrependScheme::Never))
            Out.push_back(' ');
        } else {
          Out.append(T, K, Len);
        }
      }
      Tokens[I] = std::move(Out);
    }
    return Tokens;
  }

private:
  char32_t Replacement;
  PrependScheme Scheme;
};

class ReplaceDecoder : public Decoder {
public:
  ReplaceDecoder(std::unique_ptr<Regex> Re, std::string Content)
      : Re(std::move(Re)), Content(std::move(Content)) {}
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    for (std::string &T : Tokens)
      T = replaceAll(*Re, T, Content);
    return Tokens;
  }

private:
  std::unique_ptr<Regex> Re;
  std::string Content;
};

int hexDigit(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

class ByteFallbackDecoder : public Decoder {
public:
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    std::vector<std::string> Out;
    std::string Pending;
    auto Flush = [&] {
      if (Pending.empty())
        return;
      if (isValidUtf8(Pending))
        Out.push_back(Pending);
      else
        for (size_t I = 0; I < Pending.size(); ++I)
          Out.push_back("\xEF\xBF\xBD");
      Pending.clear();
    };
    for (std::string &T : Tokens) {
      int Byte = -1;
      if (T.size() == 6 && T.compare(0, 3, "<0x") == 0 && T[5] == '>') {
        // u8::from_str_radix: two hex digits, or '+' and one.
        int A = hexDigit(T[3]), B = hexDigit(T[4]);
        if (A >= 0 && B >= 0)
          Byte = A * 16 + B;
        else if (T[3] == '+' && B >= 0)
          Byte = B;
      }
      if (Byte >= 0) {
        Pending.push_back(char(Byte));
      } else {
        Flush();
        Out.push_back(std::move(T));
      }
    }
    Flush();
    return Out;
  }
};

class FuseDecoder : public Decoder {
public:
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    std::string All;
    for (const std::string &T : Tokens)
      All += T;
    return {All};
  }
};

class StripDecoder : public Decoder {
public:
  StripDecoder(char32_t Content, size_t Start, size_t Stop)
      : Content(Content), Start(Start), Stop(Stop) {}
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    for (std::string &T : Tokens) {
      std::vector<std::pair<size_t, char32_t>> Chars;
      for (size_t I = 0, Len = 0; I < T.size(); I += Len)
        Chars.emplace_back(I, decodeUtf8(T, I, Len));
      size_t StartCut = 0;
      for (size_t I = 0; I < Start && I < Chars.size() && Chars[I].second == Content; ++I)
        StartCut = I + 1;
      size_t StopCut = Chars.size();
      for (size_t I = 0; I < Stop && I < Chars.size(); ++I) {
        size_t Index = Chars.size() - I - 1;
        if (Chars[Index].second != Content)
          break;
        StopCut = Index;
      }
      if (StopCut <= StartCut) {
        T.clear();
        continue;
      }
      size_t B = Chars[StartCut].first;
      size_t E = StopCut < Chars.size() ? Chars[StopCut].first : T.size();
      T = T.substr(B, E - B);
    }
    return Tokens;
  }

private:
  char32_t Content;
  size_t Start, Stop;
};

class SequenceDecoder : public Decoder {
public:
  std::vector<std::unique_ptr<Decoder>> Parts;
  std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const override {
    for (const auto &D : Parts)
      Tokens = D->decodeChain(std::move(Tokens));
    return Tokens;
  }
};
} // namespace

//===-- Factories ---------------------------------------------------------===//

const std::vector<char32_t> &arecipe::tokenizer::detail::byteToChar() {
  static const std::vector<char32_t> Map = [] {
    std::vector<char32_t> M(256, 0);
    std::vector<bool> Printable(256, false);
    for (unsigned B = '!'; B <= '~'; ++B)
      Printable[B] = true;
    for (unsigned B = 0xA1; B <= 0xAC; ++B)
      Printable[B] = true;
    for (unsigned B = 0xAE; B <= 0xFF; ++B)
      Printable[B] = true;
    char32_t Next = 256;
    for (unsigned B = 0; B < 256; ++B)
      M[B] = Printable[B] ? char32_t(B) : Next++;
    return M;
  }();
  return Map;
}

std::unique_ptr<Normalizer> arecipe::tokenizer::detail::makeNormalizer(const json &J,
                                                                       const std::string &Path) {
  if (J.is_null())
    return nullptr;
  std::string Type = typeOf(J, Path);
  if (Type == "NFC" || Type == "NFD" || Type == "NFKC" || Type == "NFKD") {
    onlyKeys(J, Path, {});
    NormalForm F = Type == "NFC"    ? NormalForm::NFC
                   : Type == "NFD"  ? NormalForm::NFD
                   : Type == "NFKC" ? NormalForm::NFKC
                                    : NormalForm::NFKD;
    return std::make_unique<UnicodeNormalizer>(F);
  }
  if (Type == "Lowercase") {
    onlyKeys(J, Path, {});
    return std::make_unique<LowercaseNormalizer>();
  }
  if (Type == "Strip") {
    onlyKeys(J, Path, {"strip_left", "strip_right"});
    return std::make_unique<StripNormalizer>(getBool(J, Path, "strip_left", false),
                                             getBool(J, Path, "strip_right", false));
  }
  if (Type == "Prepend") {
    onlyKeys(J, Path, {"prepend"});
    return std::make_unique<PrependNormalizer>(getString(J, Path, "prepend"));
  }
  if (Type == "Replace") {
    onlyKeys(J, Path, {"pattern", "content"});
    return std::make_unique<ReplaceNormalizer>(getPattern(J, Path), getString(J, Path, "content"));
  }
  if (Type == "Sequence") {
    onlyKeys(J, Path, {"normalizers"});
    auto S = std::make_unique<SequenceNormalizer>();
    const json &List = getArray(J, Path, "normalizers");
    for (size_t I = 0; I < List.size(); ++I)
      if (auto N = makeNormalizer(List[I], Path + ".normalizers[" + std::to_string(I) + "]"))
        S->Parts.push_back(std::move(N));
    return S;
  }
  throw LoadError(Path + ".type", "normalizer '" + Type +
                                      "' is not supported (supported: NFC, NFD, NFKC, NFKD, "
                                      "Lowercase, Strip, Prepend, Replace, Sequence)");
}

std::unique_ptr<PreTokenizer>
arecipe::tokenizer::detail::makePreTokenizer(const json &J, const std::string &Path) {
  if (J.is_null())
    return nullptr;
  std::string Type = typeOf(J, Path);
  if (Type == "ByteLevel") {
    // trim_offsets only moves offsets, never ids.
    onlyKeys(J, Path, {"add_prefix_space", "trim_offsets", "use_regex"});
    return std::make_unique<ByteLevelPreTokenizer>(getBool(J, Path, "add_prefix_space", true),
                                                   getBool(J, Path, "use_regex", true));
  }
  if (Type == "Split") {
    onlyKeys(J, Path, {"pattern", "behavior", "invert"});
    std::string B = getString(J, Path, "behavior");
    SplitBehavior Behavior;
    if (B == "Removed")
      Behavior = SplitBehavior::Removed;
    else if (B == "Isolated")
      Behavior = SplitBehavior::Isolated;
    else if (B == "MergedWithPrevious")
      Behavior = SplitBehavior::MergedWithPrevious;
    else if (B == "MergedWithNext")
      Behavior = SplitBehavior::MergedWithNext;
    else if (B == "Contiguous")
      Behavior = SplitBehavior::Contiguous;
    else
      throw LoadError(Path + ".behavior", "unknown split behavior '" + B + "'");
    return std::make_unique<SplitPreTokenizer>(getPattern(J, Path), Behavior,
                                               getBool(J, Path, "invert", false));
  }
  if (Type == "Metaspace") {
    onlyKeys(J, Path, {"replacement", "add_prefix_space", "prepend_scheme", "split", "str_rep"});
    return std::make_unique<MetaspacePreTokenizer>(
        getChar(J, Path, "replacement"), metaspaceScheme(J, Path), getBool(J, Path, "split", true));
  }
  if (Type == "Digits") {
    onlyKeys(J, Path, {"individual_digits"});
    return std::make_unique<DigitsPreTokenizer>(getBool(J, Path, "individual_digits", false));
  }
  if (Type == "Sequence") {
    onlyKeys(J, Path, {"pretokenizers"});
    auto S = std::make_unique<SequencePreTokenizer>();
    const json &List = getArray(J, Path, "pretokenizers");
    for (size_t I = 0; I < List.size(); ++I)
      if (auto P = makePreTokenizer(List[I], Path + ".pretokenizers[" + std::to_string(I) + "]"))
        S->Parts.push_back(std::move(P));
    return S;
  }
  throw LoadError(Path + ".type", "pre-tokenizer '" + Type +
                                      "' is not supported (supported: ByteLevel, Split, "
                                      "Metaspace, Digits, Sequence)");
}

std::unique_ptr<Decoder> arecipe::tokenizer::detail::makeDecoder(const json &J,
                                                                 const std::string &Path) {
  if (J.is_null())
    return nullptr;
  std::string Type = typeOf(J, Path);
  if (Type == "ByteLevel") {
    onlyKeys(J, Path, {"add_prefix_space", "trim_offsets", "use_regex"});
    return std::make_unique<ByteLevelDecoder>();
  }
  if (Type == "Metaspace") {
    onlyKeys(J, Path, {"replacement", "add_prefix_space", "prepend_scheme", "split", "str_rep"});
    return std::make_unique<MetaspaceDecoder>(getChar(J, Path, "replacement"),
                                              metaspaceScheme(J, Path));
  }
  if (Type == "Replace") {
    onlyKeys(J, Path, {"pattern", "content"});
    return std::make_unique<ReplaceDecoder>(getPattern(J, Path), getString(J, Path, "content"));
  }
  if (Type == "ByteFallback") {
    onlyKeys(J, Path, {});
    return std::make_unique<ByteFallbackDecoder>();
  }
  if (Type == "Fuse") {
    onlyKeys(J, Path, {});
    return std::make_unique<FuseDecoder>();
  }
  if (Type == "Strip") {
    onlyKeys(J, Path, {"content", "start", "stop"});
    return std::make_unique<StripDecoder>(getChar(J, Path, "content"),
                                          size_t(getCount(J, Path, "start")),
                                          size_t(getCount(J, Path, "stop")));
  }
  if (Type == "Sequence") {
    onlyKeys(J, Path, {"decoders"});
    auto S = std::make_unique<SequenceDecoder>();
    const json &List = getArray(J, Path, "decoders");
    for (size_t I = 0; I < List.size(); ++I)
      if (auto D = makeDecoder(List[I], Path + ".decoders[" + std::to_string(I) + "]"))
        S->Parts.push_back(std::move(D));
    return S;
  }
  throw LoadError(Path + ".type", "decoder '" + Type +
                                      "' is not supported (supported: ByteLevel, Metaspace, "
                                      "Replace, ByteFallback, Fuse, Strip, Sequence)");
}

namespace {
uint32_t lookupSpecial(const json &Pair, const std::string &Path, const TokenLookup &Lookup) {
  // RobertaProcessing / BertProcessing: ["<s>", 0].
  if (!Pair.is_array() || Pair.size() != 2 || !Pair[0].is_string() || !Pair[1].is_number_unsigned())
    throw LoadError(Path, "expected [token, id]");
  return Pair[1].get<uint32_t>();
}
} // namespace

SpecialTokenFrame arecipe::tokenizer::detail::makePostProcessorFrame(const json &J,
                                                                     const std::string &Path,
                                                                     const TokenLookup &Lookup) {
  SpecialTokenFrame F;
  if (J.is_null())
    return F;
  std::string Type = typeOf(J, Path);
  if (Type == "ByteLevel") {
    // Only trims offsets.
    onlyKeys(J, Path, {"add_prefix_space", "trim_offsets", "use_regex"});
    return F;
  }
  if (Type == "RobertaProcessing" || Type == "BertProcessing") {
    onlyKeys(J, Path, {"sep", "cls", "trim_offsets", "add_prefix_space"});
    auto Sep = J.find("sep"), Cls = J.find("cls");
    if (Sep == J.end() || Cls == J.end())
      throw LoadError(Path, "expected 'sep' and 'cls'");
    F.Prefix.push_back(lookupSpecial(*Cls, Path + ".cls", Lookup));
    F.Suffix.push_back(lookupSpecial(*Sep, Path + ".sep", Lookup));
    return F;
  }
  if (Type == "TemplateProcessing") {
    onlyKeys(J, Path, {"single", "pair", "special_tokens"});
    const json &Single = getArray(J, Path, "single");
    auto Specials = J.find("special_tokens");
    bool SawA = false;
    for (size_t I = 0; I < Single.size(); ++I) {
      std::string P = Path + ".single[" + std::to_string(I) + "]";
      const json &Item = Single[I];
      if (Item.contains("Sequence")) {
        if (SawA)
          throw LoadError(P, "a template with two sequences is not supported");
        SawA = true;
        continue;
      }
      auto S = Item.find("SpecialToken");
      if (S == Item.end() || !S->is_object() || !S->contains("id") || !(*S)["id"].is_string())
        throw LoadError(P, "expected {\"SpecialToken\": {\"id\": ...}} or {\"Sequence\": ...}");
      std::string Name = (*S)["id"].get<std::string>();
      if (Specials == J.end() || !Specials->is_object() || !Specials->contains(Name))
        throw LoadError(P, "special token '" + Name + "' is not in special_tokens");
      const json &Def = (*Specials)[Name];
      if (!Def.contains("ids") || !Def["ids"].is_array())
        throw LoadError(Path + ".special_tokens." + Name + ".ids", "expected an array of ids");
      for (const json &Id : Def["ids"]) {
        if (!Id.is_number_unsigned())
          throw LoadError(Path + ".special_tokens." + Name + ".ids", "expected an array of ids");
        (SawA ? F.Suffix : F.Prefix).push_back(Id.get<uint32_t>());
      }
    }
    if (!SawA)
      throw LoadError(Path + ".single", "the template has no sequence");
    return F;
  }
  if (Type == "Sequence") {
    onlyKeys(J, Path, {"processors"});
    const json &List = getArray(J, Path, "processors");
    for (size_t I = 0; I < List.size(); ++I) {
      // Each processor wraps what the previous ones produced.
      SpecialTokenFrame Inner =
          makePostProcessorFrame(List[I], Path + ".processors[" + std::to_string(I) + "]", Lookup);
      F.Prefix.insert(F.Prefix.begin(), Inner.Prefix.begin(), Inner.Prefix.end());
      F.Suffix.insert(F.Suffix.end(), Inner.Suffix.begin(), Inner.Suffix.end());
    }
    return F;
  }
  throw LoadError(Path + ".type", "post-processor '" + Type +
                                      "' is not supported (supported: ByteLevel, "
                                      "TemplateProcessing, RobertaProcessing, BertProcessing, "
                                      "Sequence)");
}
