//===- PrefixCache.cpp - LRU block cache and prompt block hashing ---------===//
#include "arecipe/Sim/PrefixCache.h"

namespace arecipe::sim {

size_t PrefixCache::matchPrefix(const std::vector<uint64_t> &Hashes,
                                size_t From) {
  size_t I = From;
  for (; I < Hashes.size(); ++I) {
    auto It = Index.find(Hashes[I]);
    if (It == Index.end())
      break;
    Lru.splice(Lru.begin(), Lru, It->second);
  }
  return I - From;
}

void PrefixCache::insert(uint64_t Hash) {
  if (Capacity <= 0)
    return;
  auto It = Index.find(Hash);
  if (It != Index.end()) {
    Lru.splice(Lru.begin(), Lru, It->second);
    return;
  }
  Lru.push_front(Hash);
  Index.emplace(Hash, Lru.begin());
  evictToCapacity();
}

void PrefixCache::setCapacity(long Blocks) {
  Capacity = Blocks < 0 ? 0 : Blocks;
  evictToCapacity();
}

void PrefixCache::evictToCapacity() {
  while (static_cast<long>(Index.size()) > Capacity) {
    Index.erase(Lru.back());
    Lru.pop_back();
  }
}

// FNV-1a over the bytes; words are then mixed into the block and the chain.
// Any stable 64-bit hash would do since it never leaves the process.
uint64_t fnv1a64(std::string_view Text) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (unsigned char C : Text)
    H = (H ^ C) * 0x100000001b3ULL;
  return H;
}

static uint64_t mix(uint64_t A, uint64_t B) {
  uint64_t H = A ^ (B + 0x9e3779b97f4a7c15ULL + (A << 6) + (A >> 2));
  H ^= H >> 31;
  H *= 0x7fb5d329728ea185ULL;
  H ^= H >> 27;
  return H;
}

static bool isSpace(char C) {
  return C == ' ' || C == '\n' || C == '\t' || C == '\r' || C == '\f' ||
         C == '\v';
}

static void hashPromptBlocks(std::string_view Text, uint64_t &ChainState,
                             long &Tokens, std::vector<uint64_t> &Hashes,
                             uint64_t &PartialBlock) {
  size_t I = 0, N = Text.size();
  while (I < N) {
    while (I < N && isSpace(Text[I]))
      ++I;
    size_t Start = I;
    while (I < N && !isSpace(Text[I]))
      ++I;
    if (I == Start)
      break;
    PartialBlock = mix(PartialBlock, fnv1a64(Text.substr(Start, I - Start)));
    if (++Tokens % PrefixBlockTokens == 0) {
      ChainState = mix(ChainState, PartialBlock);
      Hashes.push_back(ChainState);
      PartialBlock = 0;
    }
  }
}

void PromptHasher::add(std::string_view Text) {
  hashPromptBlocks(Text, Chain, Tokens, Blocks, Partial);
}

} // namespace arecipe::sim
