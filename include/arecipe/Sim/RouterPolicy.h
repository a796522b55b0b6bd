//===- RouterPolicy.h - Which backend a routed request goes to -*- C++ -*-===//
//
// arecipe-sim --sim-router stands in for the request router in front of
// several engine servers (docs/simulator.md, "Router"). This is its
// decision alone, without the network, so each policy is unit-tested:
// round_robin, random (seeded), consistent_hash on a request header (a key
// always lands on the same backend, and adding a backend moves few keys),
// dp_sticky (a session's first request picks the backend with the fewest
// sessions, later ones follow it), and pd (prefill and decode picked in
// turn, each from its own pool).
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_ROUTERPOLICY_H
#define ARECIPE_SIM_ROUTERPOLICY_H

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::sim {

enum class RoutingPolicy { RoundRobin, Random, ConsistentHash, DpSticky, Pd };

const char *routingPolicyName(RoutingPolicy P);
std::optional<RoutingPolicy> routingPolicyFromName(std::string_view Name);

/// Chooses among N backends for one policy. Keys are the value of the
/// routing header ("" when the request has none).
class BackendSelector {
public:
  /// \p Names identify the backends on the hash ring (their URLs).
  BackendSelector(RoutingPolicy Policy, std::vector<std::string> Names,
                  uint64_t Seed);

  struct Choice {
    size_t Backend = 0;
    bool NewKey = false; // the key was seen for the first time
  };
  /// A request without a key (under the keyed policies) goes round robin
  /// and is counted as unkeyed.
  Choice choose(std::string_view Key);

  RoutingPolicy policy() const { return Policy; }
  /// Key -> backend, for every key routed so far (the keyed policies).
  const std::map<std::string, size_t, std::less<>> &keys() const {
    return Keys;
  }
  uint64_t unkeyed() const { return Unkeyed; }
  /// Sessions each backend holds (dp_sticky).
  const std::vector<uint64_t> &sessionsPerBackend() const { return Sessions; }

  /// The backend the hash ring maps \p Key to (consistent_hash).
  size_t ringLookup(std::string_view Key) const;

private:
  size_t nextInTurn();

  RoutingPolicy Policy;
  std::vector<std::string> Names;
  size_t Turn = 0;
  std::mt19937_64 Rng;
  /// Virtual nodes: (hash, backend), sorted by hash.
  std::vector<std::pair<uint64_t, size_t>> Ring;
  std::map<std::string, size_t, std::less<>> Keys;
  std::vector<uint64_t> Sessions;
  uint64_t Unkeyed = 0;
};

/// The ring's hash: FNV-1a finished by a 64-bit mixer (stable across runs
/// and machines).
uint64_t routingHash(std::string_view Text);

} // namespace arecipe::sim

#endif
