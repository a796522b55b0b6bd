//===- Tokenizer.cpp - Hugging Face tokenizer.json encoder/decoder --------===//
//
// The pipeline of the reference implementation's encode: added tokens are
// cut out of the raw text first (those marked `normalized: false`), each
// remaining piece is normalized and cut again at the `normalized: true`
// ones, the pre-tokenizer splits what is left into words, the model encodes
// each word, and the post-processor adds its special tokens.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Tokenizer/Tokenizer.h"

#include "Components.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_set>

using namespace arecipe::tokenizer;
using namespace arecipe::tokenizer::detail;
using nlohmann::json;

namespace {
struct AddedToken {
  uint32_t Id;
  std::string Content;
  bool SingleWord, Lstrip, Rstrip, Normalized, Special;
};

/// Finds added tokens leftmost-longest, as the reference's Aho-Corasick
/// automaton does, over a byte trie.
class AddedTokenMatcher {
public:
  void add(const std::string &Content, size_t Index) {
    if (Content.empty())
      return;
    size_t Node = 0;
    for (unsigned char C : Content) {
      auto It = Nodes[Node].Next.find(C);
      if (It == Nodes[Node].Next.end()) {
        Nodes.push_back({});
        It = Nodes[Node].Next.emplace(C, Nodes.size() - 1).first;
      }
      Node = It->second;
    }
    Nodes[Node].Token = int64_t(Index);
  }
  bool empty() const { return Nodes.size() == 1; }
  /// The longest token starting at Pos: (token index, end), or -1.
  std::pair<int64_t, size_t> longestAt(std::string_view S, size_t Pos) const {
    std::pair<int64_t, size_t> Best{-1, Pos};
    size_t Node = 0;
    for (size_t I = Pos; I < S.size(); ++I) {
      auto It = Nodes[Node].Next.find(static_cast<unsigned char>(S[I]));
      if (It == Nodes[Node].Next.end())
        break;
      Node = It->second;
      if (Nodes[Node].Token >= 0)
        Best = {Nodes[Node].Token, I + 1};
    }
    return Best;
  }

private:
  struct Node {
    std::map<unsigned char, size_t> Next;
    int64_t Token = -1;
  };
  std::vector<Node> Nodes{1};
};

bool endsWithWordChar(std::string_view S) {
  if (S.empty())
    return false;
  size_t Len;
  char32_t C = decodeUtf8(S, previousCharStart(S, S.size()), Len);
  return isAlphanumeric(C) || C == '_';
}

bool startsWithWordChar(std::string_view S) {
  if (S.empty())
    return false;
  size_t Len;
  char32_t C = decodeUtf8(S, 0, Len);
  return isAlphanumeric(C) || C == '_';
}

/// A piece of the text after the added-token split: either a token id or
/// text still to be encoded.
struct Segment {
  std::optional<uint32_t> Token;
  std::string Text;
  bool AtStart;
};
} // namespace

struct Tokenizer::Impl {
  std::unique_ptr<Normalizer> Norm;
  std::unique_ptr<PreTokenizer> Pre;
  std::unique_ptr<BpeModel> Model;
  std::unique_ptr<Decoder> Dec;
  SpecialTokenFrame Frame;
  std::vector<AddedToken> Added;
  AddedTokenMatcher RawMatcher, NormalizedMatcher;
  std::unordered_map<uint32_t, size_t> AddedById;
  std::unordered_map<std::string, uint32_t> AddedByContent;
  std::vector<const std::string *> IdToToken;
  uint32_t VocabSize = 0;
  std::string Description;

  /// The reference's find_matches over one text with one matcher.
  void splitAdded(const std::string &S, bool AtStart, const AddedTokenMatcher &M,
                  std::vector<Segment> &Out) const {
    size_t Offset = 0, Pos = 0;
    while (Pos < S.size()) {
      auto [Index, End] = M.longestAt(S, Pos);
      if (Index < 0) {
        ++Pos;
        continue;
      }
      const AddedToken &T = Added[size_t(Index)];
      size_t Start = Pos, Stop = End;
      Pos = End; // matches never overlap
      if (T.SingleWord) {
        bool SpaceBefore = Start == 0 || !endsWithWordChar(std::string_view(S).substr(0, Start));
        bool SpaceAfter = Stop == S.size() || !startsWithWordChar(std::string_view(S).substr(Stop));
        if (!SpaceBefore || !SpaceAfter)
          continue;
      }
      if (T.Lstrip) {
        size_t NewStart = Start, Len;
        while (NewStart > 0) {
          size_t C = previousCharStart(S, NewStart);
          if (!isWhitespace(decodeUtf8(S, C, Len)))
            break;
          NewStart = C;
        }
        Start = std::max(NewStart, Offset);
      }
      if (T.Rstrip) {
        size_t Len;
        while (Stop < S.size() && isWhitespace(decodeUtf8(S, Stop, Len)))
          Stop += Len;
      }
      if (Offset < Start)
        Out.push_back({std::nullopt, S.substr(Offset, Start - Offset), AtStart && Offset == 0});
      Out.push_back({T.Id, "", false});
      Offset = Stop;
      Pos = std::max(Pos, Stop);
    }
    if (Offset < S.size())
      Out.push_back({std::nullopt, S.substr(Offset), AtStart && Offset == 0});
  }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> P) : P(std::move(P)) {}
Tokenizer::~Tokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::loadFile(const std::string &Path, std::string &Err) {
  namespace fs = std::filesystem;
  std::error_code Ec;
  fs::path File = Path;
  if (fs::is_directory(File, Ec))
    File /= "tokenizer.json";
  std::ifstream In(File, std::ios::binary);
  if (!In) {
    Err = File.string() + ": cannot open the tokenizer file";
    return nullptr;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  return loadJson(SS.str(), File.string(), Err);
}

std::unique_ptr<Tokenizer> Tokenizer::loadJson(std::string_view Text, std::string_view Label,
                                               std::string &Err) {
  json J = json::parse(Text.begin(), Text.end(), nullptr, false);
  if (J.is_discarded() || !J.is_object()) {
    Err = std::string(Label) + ": not a JSON object";
    return nullptr;
  }
  auto I = std::make_unique<Impl>();
  try {
    for (const auto &[Key, V] : J.items()) {
      if (Key == "truncation" || Key == "padding") {
        // Both apply to batches of fixed length; a prompt is never cut or
        // padded, so they must be off.
        if (!V.is_null())
          throw LoadError(Key, "must be null (truncation and padding are not supported)");
      } else if (Key != "version" && Key != "added_tokens" && Key != "normalizer" &&
                 Key != "pre_tokenizer" && Key != "post_processor" && Key != "decoder" &&
                 Key != "model") {
        throw LoadError(Key, "unknown top-level field");
      }
    }
    auto Model = J.find("model");
    if (Model == J.end() || !Model->is_object())
      throw LoadError("model", "expected an object");
    std::string Type = Model->value("type", std::string("BPE"));
    if (Type != "BPE")
      throw LoadError("model.type", "model '" + Type +
                                        "' is not supported (supported: BPE; Unigram, "
                                        "WordPiece and WordLevel are refused rather than "
                                        "encoded approximately)");
    I->Model = std::make_unique<BpeModel>(*Model, "model");
    I->Norm = makeNormalizer(J.value("normalizer", json()), "normalizer");
    I->Pre = makePreTokenizer(J.value("pre_tokenizer", json()), "pre_tokenizer");
    I->Dec = makeDecoder(J.value("decoder", json()), "decoder");
    if (I->Pre && I->Pre->needsStartOffsets() && I->Norm && I->Norm->prepends())
      throw LoadError("pre_tokenizer", "a Metaspace prepend_scheme \"first\" after a Prepend "
                                       "normalizer is not supported");

    // Ids: the model's vocabulary, then added tokens (which may reuse a
    // model id, as Llama-2's <unk>, <s> and </s> do).
    uint32_t MaxId = 0;
    for (const auto &[Tok, Id] : I->Model->vocab())
      MaxId = std::max(MaxId, Id + 1);
    auto AddedList = J.find("added_tokens");
    if (AddedList != J.end() && !AddedList->is_null()) {
      if (!AddedList->is_array())
        throw LoadError("added_tokens", "expected an array");
      for (size_t K = 0; K < AddedList->size(); ++K) {
        const json &A = (*AddedList)[K];
        std::string P = "added_tokens[" + std::to_string(K) + "]";
        if (!A.is_object() || !A.contains("id") || !A["id"].is_number_unsigned() ||
            !A.contains("content") || !A["content"].is_string())
          throw LoadError(P, "expected {\"id\": ..., \"content\": ...}");
        for (const auto &[Key, V] : A.items())
          if (Key != "id" && Key != "content" && Key != "single_word" && Key != "lstrip" &&
              Key != "rstrip" && Key != "normalized" && Key != "special")
            throw LoadError(P + "." + Key, "option not supported by this tokenizer implementation");
        AddedToken T;
        T.Id = A["id"].get<uint32_t>();
        T.Content = A["content"].get<std::string>();
        T.SingleWord = A.value("single_word", false);
        T.Lstrip = A.value("lstrip", false);
        T.Rstrip = A.value("rstrip", false);
        T.Special = A.value("special", false);
        T.Normalized = A.value("normalized", !T.Special);
        if (T.Content.empty() || !isValidUtf8(T.Content))
          throw LoadError(P + ".content", "expected a non-empty UTF-8 string");
        I->AddedById[T.Id] = I->Added.size();
        I->AddedByContent[T.Content] = T.Id;
        MaxId = std::max(MaxId, T.Id + 1);
        I->Added.push_back(std::move(T));
      }
    }
    for (size_t K = 0; K < I->Added.size(); ++K) {
      AddedToken &T = I->Added[K];
      if (T.Normalized) {
        // Matched in normalized text, so its pattern is normalized too.
        std::string N = T.Content;
        if (I->Norm)
          I->Norm->normalize(N);
        I->NormalizedMatcher.add(N, K);
      } else {
        I->RawMatcher.add(T.Content, K);
      }
    }
    I->VocabSize = MaxId;
    I->IdToToken.assign(MaxId, nullptr);
    for (const auto &[Tok, Id] : I->Model->vocab())
      I->IdToToken[Id] = &Tok;
    for (const AddedToken &T : I->Added)
      I->IdToToken[T.Id] = &T.Content;

    TokenLookup Lookup = [&I](const std::string &S) -> std::optional<uint32_t> {
      if (auto It = I->AddedByContent.find(S); It != I->AddedByContent.end())
        return It->second;
      if (auto It = I->Model->vocab().find(S); It != I->Model->vocab().end())
        return It->second;
      return std::nullopt;
    };
    I->Frame = makePostProcessorFrame(J.value("post_processor", json()), "post_processor", Lookup);
    for (uint32_t Id : I->Frame.Prefix)
      if (Id >= MaxId)
        throw LoadError("post_processor",
                        "special token id " + std::to_string(Id) + " is not in the vocabulary");
    for (uint32_t Id : I->Frame.Suffix)
      if (Id >= MaxId)
        throw LoadError("post_processor",
                        "special token id " + std::to_string(Id) + " is not in the vocabulary");

    bool ByteLevel =
        J.value("pre_tokenizer", json()).dump().find("\"ByteLevel\"") != std::string::npos;
    I->Description = std::string("BPE") + (ByteLevel ? ", byte-level" : "") +
                     (I->Model->byteFallback() ? ", byte fallback" : "") + ", " +
                     std::to_string(MaxId) + " tokens";
  } catch (const LoadError &E) {
    Err = std::string(Label) + ": " + E.what();
    return nullptr;
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(I)));
}

std::vector<uint32_t> Tokenizer::encode(std::string_view Text, bool AddSpecialTokens) const {
  if (!isValidUtf8(Text))
    throw std::invalid_argument("text to encode is not valid UTF-8");
  std::vector<Segment> Raw;
  P->splitAdded(std::string(Text), true, P->RawMatcher, Raw);
  std::vector<uint32_t> Ids;
  if (AddSpecialTokens)
    Ids = P->Frame.Prefix;
  for (Segment &S : Raw) {
    if (S.Token) {
      Ids.push_back(*S.Token);
      continue;
    }
    if (P->Norm)
      P->Norm->normalize(S.Text);
    std::vector<Segment> Cut;
    if (P->NormalizedMatcher.empty())
      Cut.push_back(std::move(S));
    else
      P->splitAdded(S.Text, S.AtStart, P->NormalizedMatcher, Cut);
    for (Segment &C : Cut) {
      if (C.Token) {
        Ids.push_back(*C.Token);
        continue;
      }
      if (C.Text.empty())
        continue;
      std::vector<Piece> Pieces{{std::move(C.Text), C.AtStart}};
      if (P->Pre)
        P->Pre->split(Pieces);
      for (const Piece &W : Pieces)
        P->Model->tokenize(W.Text, Ids);
    }
  }
  if (AddSpecialTokens)
    Ids.insert(Ids.end(), P->Frame.Suffix.begin(), P->Frame.Suffix.end());
  return Ids;
}

std::string Tokenizer::decode(const std::vector<uint32_t> &Ids, bool SkipSpecialTokens) const {
  std::vector<std::string> Tokens;
  Tokens.reserve(Ids.size());
  for (uint32_t Id : Ids) {
    const std::string *T = idToToken(Id);
    if (!T || (SkipSpecialTokens && isSpecialToken(Id)))
      continue;
    Tokens.push_back(*T);
  }
  if (!P->Dec) {
    std::string Out;
    for (size_t K = 0; K < Tokens.size(); ++K)
      Out += (K ? " " : "") + Tokens[K];
    return Out;
  }
  std::string Out;
  for (const std::string &S : P->Dec->decodeChain(std::move(Tokens)))
    Out += S;
  return Out;
}

uint32_t Tokenizer::vocabSize() const { return P->VocabSize; }

std::optional<uint32_t> Tokenizer::tokenToId(std::string_view Token) const {
  std::string T(Token);
  if (auto It = P->AddedByContent.find(T); It != P->AddedByContent.end())
    return It->second;
  if (auto It = P->Model->vocab().find(T); It != P->Model->vocab().end())
    return It->second;
  return std::nullopt;
}

const std::string *Tokenizer::idToToken(uint32_t Id) const {
  return Id < P->IdToToken.size() ? P->IdToToken[Id] : nullptr;
}

bool Tokenizer::isAddedToken(uint32_t Id) const { return P->AddedById.count(Id) != 0; }

bool Tokenizer::isSpecialToken(uint32_t Id) const {
  auto It = P->AddedById.find(Id);
  return It != P->AddedById.end() && P->Added[It->second].Special;
}

size_t Tokenizer::numSpecialTokensToAdd() const {
  return P->Frame.Prefix.size() + P->Frame.Suffix.size();
}

const std::string &Tokenizer::description() const { return P->Description; }
