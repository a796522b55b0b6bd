//===- SimOptions.h - arecipe-sim's own --sim-* options -*- C++ -*-===//
//
// Everything on the command line before `--`: which profiles to model, the
// time scale, the port file, and the faults to inject. Engine flags after
// `--` are parsed by EngineConfig.h.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_SIMOPTIONS_H
#define ARECIPE_SIM_SIMOPTIONS_H

#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/Lockstep.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arecipe::sim {

/// Bounds of every duration and count the options take: a simulated
/// duration beyond 1e9 s (31 years) or a count beyond 2^53 is refused, so no
/// value can wrap or overflow a timer.
inline constexpr double MaxSimSeconds = 1e9;
inline constexpr uint64_t MaxSimCount = uint64_t(1) << 53;

/// Faults injected with --sim-fault SPEC (see docs/simulator.md).
struct FaultPlan {
  double SlowStartSeconds = 0;   // slow-start=S: extra weight-loading time
  uint64_t CrashAfterRequests = 0; // crash-after=N: exit after N completions
  uint64_t MalformedSseEvery = 0;  // malformed-sse=N: every Nth stream
  uint64_t ResetEvery = 0;         // reset=N: every Nth request is reset
  uint64_t Http5xxStart = 0;       // http-5xx=START:COUNT[:CODE]
  uint64_t Http5xxCount = 0;
  int Http5xxCode = 503;
  bool GpuMemoryLeak = false;      // gpu-mem-leak: memory kept at exit
};

enum class LogLevel { Debug, Info, Warning, Error };

struct SimOptions {
  std::optional<EngineKind> Engine;
  std::string Hardware; // empty: mi355x (without --sim-spec)
  std::string Model;    // empty: derived from the engine's --model
  std::string SpecFile; // --sim-spec: the model and hardware, from the recipe
  std::string ProfilesDir;
  double TimeScale = 1;
  uint64_t Seed = 0;
  std::string PortFile;
  std::string GpuMemFile;
  std::string ProfileDir;
  LogLevel Level = LogLevel::Info;
  long DefaultMaxTokens = 256;
  double DownloadBytesPerSecond = 0.7e6;
  double FetchTimeoutSeconds = 600;
  FaultPlan Faults;
  std::vector<std::string> EngineArgv;

  // --sim-clock virtual: the engine steps in lock-step with a closed-loop
  // client (Lockstep.h) instead of following the wall clock, and writes each
  // request's virtual times to TimelineFile (docs/simulator.md, "Virtual
  // clock").
  bool VirtualClock = false;
  LockstepPlan Lockstep;
  /// Wall seconds the gate waits for an expected request before it steps
  /// without it (counted and logged: the figures are no longer exact).
  double LockstepGraceSeconds = 10;
  std::string TimelineFile;

  // Router mode (--sim-router POLICY): a request router in front of engine
  // servers instead of an engine (docs/simulator.md, "Router").
  std::string RouterPolicy;                  // empty: simulate an engine
  std::vector<std::string> Backends;         // --sim-backend URL (not pd)
  std::vector<std::string> Prefills;         // --sim-prefill URL (pd)
  std::vector<std::string> Decodes;          // --sim-decode URL (pd)
  std::string RouterHeader = "X-Session-ID"; // consistent_hash, dp_sticky
  int RouterPort = 0; // 0: ephemeral (see --sim-port-file)
  bool routerMode() const { return !RouterPolicy.empty(); }
};

/// Parses `[--sim-OPTION ...] -- ENGINE_ARGV...` (in router mode the
/// `--` and what follows are optional: the argv of the router stood in for).
/// Returns false and sets \p Error on a bad option; \p WantHelp is set by
/// --help.
bool parseSimOptions(const std::vector<std::string> &Args, SimOptions &Out,
                     std::string &Error, bool &WantHelp);
bool parseFault(const std::string &Spec, FaultPlan &Faults,
                std::string &Error);
const char *simUsage();

} // namespace arecipe::sim

#endif
