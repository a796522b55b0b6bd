//===- PromptText.cpp - Deterministic synthetic prompt text ---------------===//

#include "arecipe/Client/PromptText.h"

#include <array>
#include <cstdio>

using namespace arecipe::client;

uint64_t SplitMix64::next() {
  uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

int64_t SplitMix64::between(int64_t Lo, int64_t Hi) {
  if (Hi <= Lo)
    return Lo;
  return Lo + int64_t(next() % uint64_t(Hi - Lo + 1));
}

namespace {
// 4096 pronounceable words built from consonant-vowel syllables. Real words
// are not needed: the simulator counts whitespace-separated words.
constexpr int VocabSize = 4096;
struct Vocabulary {
  std::array<std::string, VocabSize> Words;
  Vocabulary() {
    static const char Cons[] = "bcdfghjklmnprstvz";
    static const char Vows[] = "aeiou";
    for (int I = 0; I < VocabSize; ++I) {
      SplitMix64 R(uint64_t(I) * 7919 + 1);
      int Syllables = 1 + int(R.next() % 3);
      std::string W;
      for (int S = 0; S < Syllables; ++S) {
        W.push_back(Cons[R.next() % (sizeof(Cons) - 1)]);
        W.push_back(Vows[R.next() % (sizeof(Vows) - 1)]);
      }
      Words[I] = std::move(W);
    }
  }
};
const Vocabulary &vocabulary() {
  static const Vocabulary V;
  return V;
}

void appendWords(SplitMix64 &R, int64_t N, std::string &Out) {
  const Vocabulary &V = vocabulary();
  for (int64_t I = 0; I < N; ++I) {
    if (!Out.empty())
      Out.push_back(' ');
    Out += V.Words[R.next() % VocabSize];
  }
}
} // namespace

void arecipe::client::appendRandomWords(uint64_t Seed, int64_t N, std::string &Out) {
  SplitMix64 R(Seed);
  appendWords(R, N, Out);
}

void arecipe::client::appendBlockWords(uint64_t BlockId, int64_t Words, std::string &Out) {
  // Distinct streams for blocks and replies so a block id never collides
  // with a reply seed.
  SplitMix64 R(BlockId ^ 0x5ca1ab1eb10cULL);
  appendWords(R, Words < BlockTokens ? Words : BlockTokens, Out);
}

void arecipe::client::appendReplyWords(uint64_t Seed, int64_t Words, std::string &Out) {
  SplitMix64 R(Seed ^ 0x0dd5eedfeedULL);
  appendWords(R, Words, Out);
}

std::string arecipe::client::cacheBustMarker(uint64_t Seed) {
  SplitMix64 R(Seed);
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "[rid:%012llx]",
                (unsigned long long)(R.next() & 0xffffffffffffULL));
  return Buf;
}
