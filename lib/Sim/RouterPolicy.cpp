//===- RouterPolicy.cpp - Which backend a routed request goes to ----------===//
#include "arecipe/Sim/RouterPolicy.h"
#include "arecipe/Sim/PrefixCache.h"

#include <algorithm>

namespace arecipe::sim {

namespace {
/// Virtual nodes per backend: enough that keys spread within a few percent.
constexpr int RingReplicas = 160;
} // namespace

const char *routingPolicyName(RoutingPolicy P) {
  switch (P) {
  case RoutingPolicy::RoundRobin:
    return "round_robin";
  case RoutingPolicy::Random:
    return "random";
  case RoutingPolicy::ConsistentHash:
    return "consistent_hash";
  case RoutingPolicy::DpSticky:
    return "dp_sticky";
  case RoutingPolicy::Pd:
    return "pd";
  }
  return "round_robin";
}

std::optional<RoutingPolicy> routingPolicyFromName(std::string_view Name) {
  for (RoutingPolicy P : {RoutingPolicy::RoundRobin, RoutingPolicy::Random,
                          RoutingPolicy::ConsistentHash,
                          RoutingPolicy::DpSticky, RoutingPolicy::Pd})
    if (Name == routingPolicyName(P))
      return P;
  return std::nullopt;
}

uint64_t routingHash(std::string_view Text) {
  // FNV's bits mix poorly for short keys; finish with a 64-bit mixer
  // (splitmix64's) so ring positions spread evenly.
  uint64_t H = fnv1a64(Text);
  H ^= H >> 30;
  H *= 0xbf58476d1ce4e5b9ull;
  H ^= H >> 27;
  H *= 0x94d049bb133111ebull;
  H ^= H >> 31;
  return H;
}

BackendSelector::BackendSelector(RoutingPolicy Policy,
                                 std::vector<std::string> TheNames,
                                 uint64_t Seed)
    : Policy(Policy), Names(std::move(TheNames)), Rng(Seed),
      Sessions(Names.size(), 0) {
  if (Policy == RoutingPolicy::ConsistentHash) {
    for (size_t B = 0; B < Names.size(); ++B)
      for (int R = 0; R < RingReplicas; ++R)
        Ring.emplace_back(routingHash(Names[B] + "#" + std::to_string(R)), B);
    std::sort(Ring.begin(), Ring.end());
  }
}

size_t BackendSelector::nextInTurn() {
  size_t B = Turn % Names.size();
  ++Turn;
  return B;
}

size_t BackendSelector::ringLookup(std::string_view Key) const {
  uint64_t H = routingHash(Key);
  auto It =
      std::lower_bound(Ring.begin(), Ring.end(), std::make_pair(H, size_t(0)));
  return (It == Ring.end() ? Ring.front() : *It).second;
}

BackendSelector::Choice BackendSelector::choose(std::string_view Key) {
  Choice C;
  switch (Policy) {
  case RoutingPolicy::RoundRobin:
  case RoutingPolicy::Pd:
    C.Backend = nextInTurn();
    return C;
  case RoutingPolicy::Random:
    C.Backend = std::uniform_int_distribution<size_t>(0, Names.size() - 1)(Rng);
    return C;
  case RoutingPolicy::ConsistentHash:
  case RoutingPolicy::DpSticky:
    break;
  }
  if (Key.empty()) {
    ++Unkeyed;
    C.Backend = nextInTurn();
    return C;
  }
  if (auto It = Keys.find(Key); It != Keys.end()) {
    C.Backend = It->second;
    return C;
  }
  if (Policy == RoutingPolicy::ConsistentHash) {
    C.Backend = ringLookup(Key);
  } else {
    // A new session goes where the fewest sessions are (the first such
    // backend), which spreads sessions evenly however they arrive.
    C.Backend = size_t(std::min_element(Sessions.begin(), Sessions.end()) -
                       Sessions.begin());
    ++Sessions[C.Backend];
  }
  C.NewKey = true;
  Keys.emplace(std::string(Key), C.Backend);
  return C;
}

} // namespace arecipe::sim
