//===- PrefixCache.h - LRU set of cached 64-token KV blocks -*- C++ -*-===//
//
// One tier of the prefix cache: which content blocks (identified by the hash
// chain of their 64 tokens) have KV stored, with least-recently-used
// eviction. The GPU tier and the optional CPU (LMCache) tier are two
// instances; the scheduler decides how they interact.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_PREFIXCACHE_H
#define ARECIPE_SIM_PREFIXCACHE_H

#include <cstdint>
#include <list>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace arecipe::sim {

/// Tokens per prefix-cache block; shared with the load client's agentic
/// traces, whose inputs are described as 64-token hash blocks.
inline constexpr int PrefixBlockTokens = 64;

class PrefixCache {
public:
  explicit PrefixCache(long CapacityBlocks) : Capacity(CapacityBlocks) {}

  /// Number of leading blocks of \p Hashes (from \p From) present; marks
  /// them recently used.
  size_t matchPrefix(const std::vector<uint64_t> &Hashes, size_t From = 0);
  void insert(uint64_t Hash);
  /// Shrinks (or grows) the tier, evicting least recently used blocks.
  void setCapacity(long Blocks);
  long capacity() const { return Capacity; }
  size_t size() const { return Index.size(); }

private:
  void evictToCapacity();

  long Capacity;
  std::list<uint64_t> Lru; // front = most recently used
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> Index;
};

/// FNV-1a, 64 bits: the simulator's stable hash of a word or a key (the
/// same on every run and machine).
uint64_t fnv1a64(std::string_view Text);

/// Counts a prompt's tokens (one whitespace-separated word = one token) and
/// hashes its full 64-word blocks as a chain, so identical leading blocks
/// give identical hashes. For chat, add() each message content in order;
/// words never join across two contents.
class PromptHasher {
public:
  void add(std::string_view Text);
  long tokens() const { return Tokens; }
  std::vector<uint64_t> takeBlocks() { return std::move(Blocks); }

private:
  uint64_t Chain = 0x9e3779b97f4a7c15ULL;
  uint64_t Partial = 0;
  long Tokens = 0;
  std::vector<uint64_t> Blocks;
};

} // namespace arecipe::sim

#endif
