//===- SimOptions.cpp - Parsing --sim-* options and fault specs -----------===//
#include "arecipe/Sim/SimOptions.h"

#include <cstdlib>

#include <fmt/format.h>

namespace arecipe::sim {

const char *simUsage() {
  return R"(usage: arecipe-sim [--sim-OPTION ...] -- ENGINE_ARGV...

ENGINE_ARGV is the argv a real engine would get, e.g.
  python -m atom.entrypoints.openai_server --model M --server-port 8000 ...
  vllm serve M --port 8000 ...
  python -m sglang.launch_server --model-path M --port 8000 ...

options:
  --sim-engine atom|vllm|sglang  override engine detection
  --sim-hardware NAME|PATH       hardware profile (default mi355x)
  --sim-model NAME|ALIAS|PATH    model profile by name, alias or file (default: from
                                 --served-model-name or --model, else kimi-k3)
  --sim-profiles-dir DIR         profile directory (default: ../share/arecipe/std/sim
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
)";
}

static bool toDouble(const std::string &S, double &Out) {
  char *End = nullptr;
  Out = std::strtod(S.c_str(), &End);
  return !S.empty() && *End == '\0';
}

static bool toUnsigned(const std::string &S, uint64_t &Out) {
  char *End = nullptr;
  if (S.empty() || S[0] == '-')
    return false;
  Out = std::strtoull(S.c_str(), &End, 10);
  return *End == '\0';
}

bool parseFault(const std::string &Spec, FaultPlan &F, std::string &Error) {
  size_t Eq = Spec.find('=');
  std::string Name = Spec.substr(0, Eq);
  std::string Value = Eq == std::string::npos ? "" : Spec.substr(Eq + 1);
  auto Bad = [&]() {
    Error = fmt::format("bad --sim-fault '{}'", Spec);
    return false;
  };
  if (Name == "gpu-mem-leak" && Value.empty())
    return F.GpuMemoryLeak = true;
  if (Name == "slow-start")
    return (toDouble(Value, F.SlowStartSeconds) && F.SlowStartSeconds >= 0) ||
           Bad();
  if (Name == "crash-after")
    return (toUnsigned(Value, F.CrashAfterRequests) && F.CrashAfterRequests) ||
           Bad();
  if (Name == "malformed-sse")
    return (toUnsigned(Value, F.MalformedSseEvery) && F.MalformedSseEvery) ||
           Bad();
  if (Name == "reset")
    return (toUnsigned(Value, F.ResetEvery) && F.ResetEvery) || Bad();
  if (Name == "http-5xx") {
    size_t C1 = Value.find(':');
    if (C1 == std::string::npos)
      return Bad();
    size_t C2 = Value.find(':', C1 + 1);
    uint64_t Code = 503;
    if (!toUnsigned(Value.substr(0, C1), F.Http5xxStart) ||
        !toUnsigned(Value.substr(C1 + 1, C2 == std::string::npos
                                             ? std::string::npos
                                             : C2 - C1 - 1),
                    F.Http5xxCount) ||
        (C2 != std::string::npos && !toUnsigned(Value.substr(C2 + 1), Code)) ||
        F.Http5xxStart == 0 || Code < 500 || Code > 599)
      return Bad();
    F.Http5xxCode = static_cast<int>(Code);
    return true;
  }
  return Bad();
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
    if (Opt == "--sim-engine")
      Ok = (O.Engine = engineFromName(Value)).has_value();
    else if (Opt == "--sim-hardware")
      O.Hardware = Value;
    else if (Opt == "--sim-model")
      O.Model = Value;
    else if (Opt == "--sim-profiles-dir")
      O.ProfilesDir = Value;
    else if (Opt == "--sim-time-scale")
      Ok = toDouble(Value, O.TimeScale) && O.TimeScale > 0;
    else if (Opt == "--sim-seed")
      Ok = toUnsigned(Value, O.Seed);
    else if (Opt == "--sim-port-file")
      O.PortFile = Value;
    else if (Opt == "--sim-gpu-mem-file")
      O.GpuMemFile = Value;
    else if (Opt == "--sim-profile-dir")
      O.ProfileDir = Value;
    else if (Opt == "--sim-default-max-tokens")
      Ok = toUnsigned(Value, U) && U > 0 && (O.DefaultMaxTokens = long(U));
    else if (Opt == "--sim-download-rate")
      Ok = toDouble(Value, O.DownloadBytesPerSecond) &&
           O.DownloadBytesPerSecond > 0;
    else if (Opt == "--sim-fetch-timeout")
      Ok = toDouble(Value, O.FetchTimeoutSeconds) && O.FetchTimeoutSeconds >= 0;
    else if (Opt == "--sim-fault") {
      if (!parseFault(Value, O.Faults, Error))
        return false;
    } else if (Opt == "--sim-log-level") {
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
      Error = fmt::format("invalid value '{}' for {}", Value, Opt);
      return false;
    }
  }
  O.EngineArgv.assign(Args.begin() + I, Args.end());
  if (O.EngineArgv.empty()) {
    Error = "no engine argv after --";
    return false;
  }
  return true;
}

} // namespace arecipe::sim
