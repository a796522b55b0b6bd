//===- Bpe.cpp - The BPE model of tokenizer.json --------------------------===//
//
// Merging follows the reference implementation step for step: a word starts
// as one symbol per character (or per byte, through byte fallback), and the
// pair with the lowest merge rank is merged first, leftmost on ties, with a
// priority queue whose stale entries are skipped. Any other order can give
// a different segmentation for the same vocabulary.
//
//===----------------------------------------------------------------------===//

#include "Components.h"

#include <cstdio>
#include <queue>

using namespace arecipe::tokenizer::detail;
using nlohmann::json;

BpeModel::BpeModel(const json &M, const std::string &Path) {
  for (const auto &[Key, V] : M.items()) {
    static const char *Known[] = {"type",
                                  "dropout",
                                  "unk_token",
                                  "continuing_subword_prefix",
                                  "end_of_word_suffix",
                                  "fuse_unk",
                                  "byte_fallback",
                                  "ignore_merges",
                                  "vocab",
                                  "merges"};
    bool Ok = false;
    for (const char *K : Known)
      Ok |= Key == K;
    if (!Ok)
      throw LoadError(Path + "." + Key, "option not supported by this tokenizer implementation");
  }
  if (auto D = M.find("dropout");
      D != M.end() && !D->is_null() && !(D->is_number() && D->get<double>() == 0))
    throw LoadError(Path + ".dropout", "BPE dropout is not supported (encodings would be random)");
  auto StrOpt = [&](const char *Key) -> std::string {
    auto It = M.find(Key);
    if (It == M.end() || It->is_null())
      return "";
    if (!It->is_string())
      throw LoadError(Path + "." + Key, "expected a string or null");
    return It->get<std::string>();
  };
  auto Flag = [&](const char *Key) {
    auto It = M.find(Key);
    if (It == M.end() || It->is_null())
      return false;
    if (!It->is_boolean())
      throw LoadError(Path + "." + Key, "expected true or false");
    return It->get<bool>();
  };
  ContinuingSubwordPrefix = StrOpt("continuing_subword_prefix");
  EndOfWordSuffix = StrOpt("end_of_word_suffix");
  FuseUnk = Flag("fuse_unk");
  ByteFallback = Flag("byte_fallback");
  IgnoreMerges = Flag("ignore_merges");

  auto V = M.find("vocab");
  if (V == M.end() || !V->is_object())
    throw LoadError(Path + ".vocab", "expected an object of token -> id");
  Vocab.reserve(V->size());
  for (const auto &[Token, Id] : V->items()) {
    if (!Id.is_number_unsigned() || Id.get<uint64_t>() > 0xFFFFFFFFull)
      throw LoadError(Path + ".vocab." + Token, "expected a non-negative id");
    Vocab.emplace(Token, Id.get<uint32_t>());
  }
  if (std::string Unk = StrOpt("unk_token"); !Unk.empty()) {
    auto It = Vocab.find(Unk);
    if (It == Vocab.end())
      throw LoadError(Path + ".unk_token", "'" + Unk + "' is not in the vocabulary");
    UnkId = It->second;
  }
  for (unsigned B = 0; B < 256; ++B) {
    char Name[8];
    std::snprintf(Name, sizeof Name, "<0x%02X>", B);
    auto It = Vocab.find(Name);
    HasByteTokens[B] = It != Vocab.end();
    ByteTokens[B] = HasByteTokens[B] ? It->second : 0;
  }

  auto Ms = M.find("merges");
  if (Ms == M.end() || !Ms->is_array())
    throw LoadError(Path + ".merges", "expected an array");
  Merges.reserve(Ms->size());
  for (size_t I = 0; I < Ms->size(); ++I) {
    const json &E = (*Ms)[I];
    std::string MP = Path + ".merges[" + std::to_string(I) + "]";
    std::string A, B;
    if (E.is_string()) {
      // "a b": exactly one space separates the two halves.
      const std::string &S = E.get_ref<const std::string &>();
      size_t Sp = S.find(' ');
      if (Sp == std::string::npos || S.find(' ', Sp + 1) != std::string::npos)
        throw LoadError(MP, "expected \"left right\"");
      A = S.substr(0, Sp);
      B = S.substr(Sp + 1);
    } else if (E.is_array() && E.size() == 2 && E[0].is_string() && E[1].is_string()) {
      A = E[0].get<std::string>();
      B = E[1].get<std::string>();
    } else {
      throw LoadError(MP, "expected \"left right\" or [left, right]");
    }
    auto AI = Vocab.find(A), BI = Vocab.find(B);
    if (AI == Vocab.end() || BI == Vocab.end())
      throw LoadError(MP, "'" + (AI == Vocab.end() ? A : B) + "' is not in the vocabulary");
    size_t PrefixLen = ContinuingSubwordPrefix.size();
    if (B.size() < PrefixLen)
      throw LoadError(MP, "'" + B + "' is shorter than the continuing subword prefix");
    std::string New = A + B.substr(PrefixLen);
    auto NI = Vocab.find(New);
    if (NI == Vocab.end())
      throw LoadError(MP, "the merged token '" + New + "' is not in the vocabulary");
    // A pair listed twice keeps its later rank, as a map built from the
    // list in order does in the reference.
    Merges[pairKey(AI->second, BI->second)] = {uint32_t(I), NI->second};
  }
}

namespace {
struct Symbol {
  uint32_t Id;
  int Prev, Next;
  size_t Len; ///< bytes of the word it covers; 0 once merged away
};
struct MergeCandidate {
  size_t Pos;
  uint32_t Rank, NewId;
  // The queue pops the lowest rank, then the leftmost position.
  bool operator<(const MergeCandidate &O) const {
    return Rank != O.Rank ? Rank > O.Rank : Pos > O.Pos;
  }
};
} // namespace

void BpeModel::tokenize(std::string_view W, std::vector<uint32_t> &Out) const {
  if (W.empty())
    return;
  if (IgnoreMerges)
    if (auto It = Vocab.find(std::string(W)); It != Vocab.end()) {
      Out.push_back(It->second);
      return;
    }
  std::vector<Symbol> Syms;
  Syms.reserve(W.size());
  auto Add = [&](uint32_t Id, size_t Len) {
    int Index = int(Syms.size());
    Syms.push_back({Id, Index - 1, -1, Len});
    if (Index > 0)
      Syms[size_t(Index - 1)].Next = Index;
  };
  // A pending unknown: its id and the bytes it covers (Unk.Len 0 = none).
  struct {
    uint32_t Id = 0;
    size_t Len = 0;
  } Unk;
  std::string Key;
  for (size_t I = 0, Len = 0; I < W.size(); I += Len) {
    decodeUtf8(W, I, Len);
    bool First = I == 0, Last = I + Len == W.size();
    Key.clear();
    if (!First)
      Key += ContinuingSubwordPrefix;
    Key.append(W.data() + I, Len);
    if (Last)
      Key += EndOfWordSuffix;
    if (auto It = Vocab.find(Key); It != Vocab.end()) {
      if (Unk.Len) {
        Add(Unk.Id, Unk.Len);
        Unk.Len = 0;
      }
      Add(It->second, Len);
      continue;
    }
    if (ByteFallback) {
      // The bytes of the whole key, prefix and suffix included, as the
      // reference does; all of them must exist or none is used.
      bool All = true;
      for (unsigned char B : Key)
        All &= HasByteTokens[B];
      if (All) {
        // A pending unknown is not flushed here: the reference leaves it to
        // the next known character or the end of the word.
        for (unsigned char B : Key)
          Add(ByteTokens[B], 1);
        continue;
      }
    }
    if (UnkId) {
      if (Unk.Len && FuseUnk) {
        Unk.Len += Len;
      } else {
        if (Unk.Len)
          Add(Unk.Id, Unk.Len);
        Unk.Id = *UnkId;
        Unk.Len = Len;
      }
    }
    // Without an unknown token the character is dropped, as in the reference.
  }
  if (Unk.Len)
    Add(Unk.Id, Unk.Len);

  std::priority_queue<MergeCandidate> Queue;
  auto Candidate = [&](size_t Pos) -> std::optional<MergeCandidate> {
    int Next = Syms[Pos].Next;
    if (Next < 0)
      return std::nullopt;
    auto It = Merges.find(pairKey(Syms[Pos].Id, Syms[size_t(Next)].Id));
    if (It == Merges.end())
      return std::nullopt;
    return MergeCandidate{Pos, It->second.Rank, It->second.NewId};
  };
  for (size_t I = 0; I + 1 < Syms.size(); ++I)
    if (auto C = Candidate(I))
      Queue.push(*C);
  while (!Queue.empty()) {
    MergeCandidate Top = Queue.top();
    Queue.pop();
    Symbol &S = Syms[Top.Pos];
    if (S.Len == 0 || S.Next < 0)
      continue;
    Symbol &Right = Syms[size_t(S.Next)];
    auto It = Merges.find(pairKey(S.Id, Right.Id));
    if (It == Merges.end() || It->second.NewId != Top.NewId)
      continue; // stale: one side was merged since this entry was queued
    S.Id = Top.NewId;
    S.Len += Right.Len;
    S.Next = Right.Next;
    Right.Len = 0;
    if (S.Next >= 0)
      Syms[size_t(S.Next)].Prev = int(Top.Pos);
    if (S.Prev >= 0)
      if (auto C = Candidate(size_t(S.Prev)))
        Queue.push(*C);
    if (auto C = Candidate(Top.Pos))
      Queue.push(*C);
  }
  for (const Symbol &S : Syms)
    if (S.Len)
      Out.push_back(S.Id);
}
