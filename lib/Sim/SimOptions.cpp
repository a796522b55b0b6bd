//===- SimOptions.cpp - Parsing --sim-* options and fault specs -----------===//
#include "arecipe/Sim/SimOptions.h"
#include "arecipe/Sim/RouterPolicy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace arecipe::sim {

const char *simUsage() {
  return R"(usage: arecipe-sim [--sim-OPTION ...] -- ENGINE_ARGV...
       arecipe-sim --sim-router POLICY --sim-backend URL... [--sim-OPTION ...]

ENGINE_ARGV is the argv a real engine would get, e.g.
  python -m atom.entrypoints.openai_server --model M --server-port 8000 ...
  vllm serve M --port 8000 ...
  python -m sglang.launch_server --model-path M --port 8000 ...

options:
  --sim-engine atom|vllm|sglang  override engine detection
  --sim-spec FILE                the model and hardware as the recipe declares them
                                 (JSON; docs/simulator.md); excludes the two below
  --sim-hardware NAME|PATH       hardware profile (default mi355x)
  --sim-model NAME|ALIAS|PATH    model profile by name, alias or file (default: the
                                 profile --served-model-name or --model names; none
                                 is an error)
  --sim-profiles-dir DIR         profile directory (default: ../share/arecipe/sim
                                 beside this executable)
  --sim-time-scale K             K simulated seconds per wall-clock second (default 1)
  --sim-seed N                   seed for speculative-decoding acceptance (default 0)
  --sim-port-file PATH           write the bound port here once listening
  --sim-gpu-mem-file PATH        fake device memory: "index used_bytes total_bytes" per GPU
  --sim-profile-dir DIR          where /stop_profile writes traces
  --sim-default-max-tokens N     completion length when a request has no max_tokens (256)
  --sim-download-rate BYTES/S    rate of uncached repository downloads (700000)
  --sim-fetch-timeout S          simulated seconds a proxied fetch hangs (600)
  --sim-fault SPEC               repeatable: slow-start=S, crash-after=N,
                                 malformed-sse=N, reset=N, http-5xx=START:COUNT[:CODE],
                                 gpu-mem-leak
  --sim-log-level debug|info|warning|error
  --sim-clock wall|virtual       virtual: step in lock-step with a closed-loop client,
                                 as fast as the CPU allows (default wall)
  --sim-lockstep-concurrency N   with virtual: the client's closed-loop lanes
  --sim-lockstep-warmup N        with virtual: its warm-up requests (default 0)
  --sim-lockstep-requests N      with virtual: all its requests, warm-up included
  --sim-lockstep-grace S         with virtual: wall seconds to wait for an expected
                                 request before stepping without it (10)
  --sim-timeline FILE            with virtual: each request's virtual times (JSON lines)

router mode (a request router in front of engine servers; no engine argv):
  --sim-router POLICY            round_robin, random (--sim-seed), consistent_hash,
                                 dp_sticky or pd
  --sim-backend URL              repeatable: http://HOST:PORT of an engine server
  --sim-prefill URL              repeatable (pd): a prefill server
  --sim-decode URL               repeatable (pd): a decode server
  --sim-router-header NAME       the key of consistent_hash and dp_sticky (X-Session-ID)
  --sim-router-port PORT         where the router listens (default 0: ephemeral)
)";
}

namespace {

/// A finite decimal number in [Min, Max]: "nan", "inf", 1e300 for a
/// duration and trailing junk are all refused rather than clamped or wrapped.
bool toDouble(const std::string &S, double Min, double Max, double &Out) {
  char *End = nullptr;
  errno = 0;
  double V = std::strtod(S.c_str(), &End);
  if (S.empty() || *End != '\0' || errno == ERANGE || !std::isfinite(V) ||
      V < Min || V > Max)
    return false;
  Out = V;
  return true;
}

/// Decimal digits only, in [Min, Max].
bool toUnsigned(const std::string &S, uint64_t Min, uint64_t Max,
                uint64_t &Out) {
  if (S.empty() || !std::all_of(S.begin(), S.end(), [](char C) {
        return C >= '0' && C <= '9';
      }))
    return false;
  char *End = nullptr;
  errno = 0;
  uint64_t V = std::strtoull(S.c_str(), &End, 10);
  if (*End != '\0' || errno == ERANGE || V < Min || V > Max)
    return false;
  Out = V;
  return true;
}

} // namespace

bool parseFault(const std::string &Spec, FaultPlan &F, std::string &Error) {
  size_t Eq = Spec.find('=');
  std::string Name = Spec.substr(0, Eq);
  std::string Value = Eq == std::string::npos ? "" : Spec.substr(Eq + 1);
  auto Bad = [&](const char *Expected) {
    Error = fmt::format("bad --sim-fault '{}': expected {}", Spec, Expected);
    return false;
  };
  const char *Count = "a count in [1, 2^53]";
  if (Name == "gpu-mem-leak" && Value.empty())
    return F.GpuMemoryLeak = true;
  if (Name == "slow-start")
    return toDouble(Value, 0, MaxSimSeconds, F.SlowStartSeconds) ||
           Bad("slow-start=S with S simulated seconds in [0, 1e9]");
  if (Name == "crash-after")
    return toUnsigned(Value, 1, MaxSimCount, F.CrashAfterRequests) ||
           Bad(Count);
  if (Name == "malformed-sse")
    return toUnsigned(Value, 1, MaxSimCount, F.MalformedSseEvery) ||
           Bad(Count);
  if (Name == "reset")
    return toUnsigned(Value, 1, MaxSimCount, F.ResetEvery) || Bad(Count);
  if (Name == "http-5xx") {
    const char *Form = "http-5xx=START:COUNT[:CODE] with START and COUNT in "
                       "[1, 2^53] and CODE in [500, 599]";
    size_t C1 = Value.find(':');
    if (C1 == std::string::npos)
      return Bad(Form);
    size_t C2 = Value.find(':', C1 + 1);
    uint64_t Code = 503;
    if (!toUnsigned(Value.substr(0, C1), 1, MaxSimCount, F.Http5xxStart) ||
        !toUnsigned(Value.substr(C1 + 1, C2 == std::string::npos
                                             ? std::string::npos
                                             : C2 - C1 - 1),
                    0, MaxSimCount, F.Http5xxCount) ||
        (C2 != std::string::npos &&
         !toUnsigned(Value.substr(C2 + 1), 500, 599, Code)))
      return Bad(Form);
    F.Http5xxCode = static_cast<int>(Code);
    return true;
  }
  Error = fmt::format("bad --sim-fault '{}'", Spec);
  return false;
}

/// Which backends a policy needs: pd prefill and decode pools, every other
/// policy one pool of --sim-backend.
static bool checkRouterOptions(const SimOptions &O, std::string &Error) {
  bool Pd = O.RouterPolicy == "pd";
  if (Pd && (O.Prefills.empty() || O.Decodes.empty() || !O.Backends.empty()))
    Error = "--sim-router pd needs at least one --sim-prefill URL and one "
            "--sim-decode URL, and no --sim-backend";
  else if (!Pd &&
           (O.Backends.empty() || !O.Prefills.empty() || !O.Decodes.empty()))
    Error = fmt::format("--sim-router {} needs at least one --sim-backend URL "
                        "(--sim-prefill and --sim-decode are for pd)",
                        O.RouterPolicy);
  return Error.empty();
}

bool parseSimOptions(const std::vector<std::string> &Args, SimOptions &O,
                     std::string &Error, bool &WantHelp) {
  WantHelp = false;
  size_t I = 0;
  for (; I < Args.size(); ++I) {
    std::string Opt = Args[I];
    if (Opt == "--") {
      ++I;
      break;
    }
    if (Opt == "--help" || Opt == "-h") {
      WantHelp = true;
      return true;
    }
    std::string Value;
    if (size_t Eq = Opt.find('='); Eq != std::string::npos) {
      Value = Opt.substr(Eq + 1);
      Opt = Opt.substr(0, Eq);
    } else if (I + 1 < Args.size()) {
      Value = Args[++I];
    } else {
      Error = fmt::format("option {} needs a value", Opt);
      return false;
    }
    uint64_t U = 0;
    bool Ok = true;
    // What a bad value is checked against, for the error message.
    const char *Expected = nullptr;
    if (Opt == "--sim-engine")
      Ok = (O.Engine = engineFromName(Value)).has_value();
    else if (Opt == "--sim-hardware")
      O.Hardware = Value;
    else if (Opt == "--sim-model")
      O.Model = Value;
    else if (Opt == "--sim-spec")
      O.SpecFile = Value;
    else if (Opt == "--sim-router") {
      Expected = "round_robin, random, consistent_hash, dp_sticky or pd";
      Ok = routingPolicyFromName(Value).has_value();
      O.RouterPolicy = Value;
    } else if (Opt == "--sim-backend")
      O.Backends.push_back(Value);
    else if (Opt == "--sim-prefill")
      O.Prefills.push_back(Value);
    else if (Opt == "--sim-decode")
      O.Decodes.push_back(Value);
    else if (Opt == "--sim-router-header") {
      Expected = "an HTTP header name";
      Ok = !Value.empty() &&
           std::all_of(Value.begin(), Value.end(), [](unsigned char C) {
             return std::isalnum(C) || C == '-' || C == '_';
           });
      O.RouterHeader = Value;
    } else if (Opt == "--sim-router-port") {
      Expected = "a port in [0, 65535]";
      Ok = toUnsigned(Value, 0, 65535, U);
      O.RouterPort = int(U);
    } else if (Opt == "--sim-profiles-dir")
      O.ProfilesDir = Value;
    else if (Opt == "--sim-time-scale") {
      Expected = "a number in [0.001, 1e6]";
      Ok = toDouble(Value, 1e-3, 1e6, O.TimeScale);
    } else if (Opt == "--sim-seed") {
      Expected = "an integer in [0, 2^64-1]";
      Ok = toUnsigned(Value, 0, UINT64_MAX, O.Seed);
    } else if (Opt == "--sim-port-file")
      O.PortFile = Value;
    else if (Opt == "--sim-gpu-mem-file")
      O.GpuMemFile = Value;
    else if (Opt == "--sim-profile-dir")
      O.ProfileDir = Value;
    else if (Opt == "--sim-default-max-tokens") {
      Expected = "an integer in [1, 1e9]";
      Ok = toUnsigned(Value, 1, 1000000000, U);
      O.DefaultMaxTokens = long(U);
    } else if (Opt == "--sim-download-rate") {
      Expected = "bytes per second in [1, 1e15]";
      Ok = toDouble(Value, 1, 1e15, O.DownloadBytesPerSecond);
    } else if (Opt == "--sim-fetch-timeout") {
      Expected = "simulated seconds in [0, 1e9]";
      Ok = toDouble(Value, 0, MaxSimSeconds, O.FetchTimeoutSeconds);
    } else if (Opt == "--sim-fault") {
      if (!parseFault(Value, O.Faults, Error))
        return false;
    } else if (Opt == "--sim-clock") {
      Expected = "wall or virtual";
      Ok = Value == "wall" || Value == "virtual";
      O.VirtualClock = Value == "virtual";
    } else if (Opt == "--sim-lockstep-concurrency") {
      Expected = "a count in [1, 2^53]";
      Ok = toUnsigned(Value, 1, MaxSimCount, O.Lockstep.Concurrency);
    } else if (Opt == "--sim-lockstep-warmup") {
      Expected = "a count in [0, 2^53]";
      Ok = toUnsigned(Value, 0, MaxSimCount, O.Lockstep.Warmup);
    } else if (Opt == "--sim-lockstep-requests") {
      Expected = "a count in [1, 2^53]";
      Ok = toUnsigned(Value, 1, MaxSimCount, O.Lockstep.Requests);
    } else if (Opt == "--sim-lockstep-grace") {
      Expected = "wall seconds in [0.001, 1e6]";
      Ok = toDouble(Value, 1e-3, 1e6, O.LockstepGraceSeconds);
    } else if (Opt == "--sim-timeline")
      O.TimelineFile = Value;
    else if (Opt == "--sim-log-level") {
      Expected = "debug, info, warning or error";
      if (Value == "debug")
        O.Level = LogLevel::Debug;
      else if (Value == "info")
        O.Level = LogLevel::Info;
      else if (Value == "warning")
        O.Level = LogLevel::Warning;
      else if (Value == "error")
        O.Level = LogLevel::Error;
      else
        Ok = false;
    } else {
      Error = fmt::format("unknown option '{}' (simulator options start with "
                          "--sim-; engine flags go after --)",
                          Opt);
      return false;
    }
    if (!Ok) {
      Error = Expected ? fmt::format("invalid value '{}' for {} (expected {})",
                                     Value, Opt, Expected)
                       : fmt::format("invalid value '{}' for {}", Value, Opt);
      return false;
    }
  }
  O.EngineArgv.assign(Args.begin() + I, Args.end());
  if (O.VirtualClock && O.routerMode()) {
    Error = "--sim-clock virtual simulates one engine in lock-step with its "
            "client; a router is not simulated on it";
    return false;
  }
  if (O.VirtualClock &&
      (O.Lockstep.Concurrency == 0 || O.Lockstep.Requests == 0)) {
    Error = "--sim-clock virtual needs --sim-lockstep-concurrency and "
            "--sim-lockstep-requests: the gate waits for the requests a "
            "closed-loop client of that shape sends";
    return false;
  }
  if (O.VirtualClock && O.Lockstep.Warmup > O.Lockstep.Requests) {
    Error = "--sim-lockstep-warmup exceeds --sim-lockstep-requests (which "
            "counts the warm-up requests too)";
    return false;
  }
  if (!O.VirtualClock && (O.Lockstep.Concurrency || O.Lockstep.Requests ||
                          O.Lockstep.Warmup || !O.TimelineFile.empty())) {
    Error = "--sim-lockstep-* and --sim-timeline apply to --sim-clock virtual";
    return false;
  }
  if (O.routerMode())
    return checkRouterOptions(O, Error);
  if (!O.Backends.empty() || !O.Prefills.empty() || !O.Decodes.empty()) {
    Error = "--sim-backend, --sim-prefill and --sim-decode need --sim-router";
    return false;
  }
  if (O.EngineArgv.empty()) {
    Error = "no engine argv after --";
    return false;
  }
  return true;
}

} // namespace arecipe::sim
