//===- PromptText.h - Deterministic synthetic prompt text -------*- C++ -*-===//
//
// Prompt text for load generation under the tokenisation shared with
// arecipe-sim: one token is one whitespace-separated word. Fixed-ISL prompts
// are N seeded random words; agentic prompts are built from 64-token hash
// blocks, where a block id always expands to the same 64 words, so identical
// block ids give byte-identical text and a server's prefix cache sees real
// reuse. Pure functions; no global state beyond a constant vocabulary.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_PROMPTTEXT_H
#define ARECIPE_CLIENT_PROMPTTEXT_H

#include <cstdint>
#include <string>

namespace arecipe::client {

/// Tokens per hash block in agentic traces.
inline constexpr int64_t BlockTokens = 64;

/// SplitMix64: a small, well-mixed, platform-independent generator, so the
/// same seed gives the same prompts everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t Seed) : State(Seed) {}
  uint64_t next();
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [Lo, Hi] (inclusive).
  int64_t between(int64_t Lo, int64_t Hi);

private:
  uint64_t State;
};

/// Appends N words drawn from Seed to Out, separated by single spaces (a
/// leading space is added when Out is non-empty).
void appendRandomWords(uint64_t Seed, int64_t N, std::string &Out);

/// Appends the first Words (<= BlockTokens) words of block BlockId.
void appendBlockWords(uint64_t BlockId, int64_t Words, std::string &Out);

/// Appends Words deterministic words standing for a recorded assistant reply.
void appendReplyWords(uint64_t Seed, int64_t Words, std::string &Out);

/// A cache-bust marker `[rid:<12 hex digits>]` (one token).
std::string cacheBustMarker(uint64_t Seed);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_PROMPTTEXT_H
