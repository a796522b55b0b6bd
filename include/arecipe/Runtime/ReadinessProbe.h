//===- ReadinessProbe.h - Is a launched engine ready to serve? --*- C++ -*-===//
//
// Decides, one polling round at a time, whether a process that is starting
// up is ready, still starting, or has failed and why. Ready means all three
// of: the health endpoint answers 200, the served model is listed by the
// models endpoint, and the process is alive — an engine can answer /health
// before it has loaded the model, and a crashed engine's port can be held by
// an orphaned worker. Failure modes are told apart because each one has a
// different fix: the process exited, it stalled (its log stopped growing),
// or it kept logging but never became ready before the start-up timeout.
// The probe only observes; it never signals or restarts the process.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_READINESSPROBE_H
#define ARECIPE_RUNTIME_READINESSPROBE_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <chrono>
#include <optional>
#include <string>

namespace arecipe::runtime {

class ChildProcess;

enum class Readiness { Starting, Ready, Exited, Stalled, TimedOut };

/// Where the engine listens: a known port, or a file the simulator writes
/// the port it bound into (a plan port of 0 under --simulate).
struct PortSource {
  int Port = 0;
  std::string PortFile;

  /// The port, reading PortFile if needed; nullopt until it is known.
  std::optional<int> resolve() const;
};

class ReadinessProbe {
public:
  using Clock = std::chrono::steady_clock;

  /// Timeouts are wall-clock (already divided by a simulation time scale).
  /// Without Http the process is ready as soon as it runs (a headless worker).
  ReadinessProbe(PortSource Port, std::optional<Endpoints> Http, std::string RequiresModel,
                 std::string LogPath, std::chrono::milliseconds StartupTimeout,
                 std::chrono::milliseconds StallTimeout);

  /// One round: checks the process, the log and the endpoints.
  Readiness poll(ChildProcess &Process);

  /// Why the last poll was not Ready, in one line.
  const std::string &reason() const { return Reason; }
  /// The port, once known.
  std::optional<int> port() const { return Port.resolve(); }
  Clock::duration elapsed() const { return Clock::now() - Started; }

private:
  bool checkEndpoints(int PortNumber);

  PortSource Port;
  std::optional<Endpoints> Http;
  std::string RequiresModel;
  std::string LogPath;
  std::chrono::milliseconds StartupTimeout, StallTimeout;
  Clock::time_point Started, LastGrowth;
  long long LogSize = -1;
  std::string Reason;
};

/// True if the body of a /v1/models answer lists Model (`data[].id`).
bool modelsListContains(const std::string &Body, const std::string &Model);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_READINESSPROBE_H
