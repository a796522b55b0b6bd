//===- SimCalibrate.cpp - Calibration driver for arecipe-sim's model ------===//
//
// Replays a closed-loop agentic workload against the simulator's own
// Scheduler and Roofline (the classes arecipe-sim runs behind its HTTP
// front end) entirely in simulated time, so the figures are exact and do
// not depend on wall-clock jitter, and prints the InferenceX metrics per
// concurrency: throughput per GPU, TTFT, ITL, interactivity, E2E.
//
// Workload: each of C lanes runs multi-turn sessions. A session starts with
// --isl-start context tokens; every turn resends the whole history plus
// --new-tokens fresh tokens and asks for --osl tokens, after --think seconds;
// the history (prompt + answer) becomes the next turn's prefix, so the
// prefix cache matters. A session ends when its context passes --isl-max.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/Scheduler.h"
#include "arecipe/Sim/SimOptions.h"
#include "arecipe/Sim/SimSpec.h"
#include "arecipe/Sim/Startup.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include <fmt/format.h>

using namespace arecipe::sim;

namespace {

struct Workload {
  long IslStart = 30000;
  long IslMax = 240000;
  long NewTokens = 4000;
  long Osl = 1000;
  double Think = 0;
  double Duration = 1800;
  double Warmup = 300;
};

struct Lane {
  int Session = 0;
  long Context = 0;
  double NextArrival = 0;
};

struct InFlight {
  int Lane;
  double Arrival;
  double FirstToken = -1;
  long Prompt;
  long Tokens = 0;
};

double percentile(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  double Rank = P / 100 * (V.size() - 1);
  size_t Lo = static_cast<size_t>(Rank);
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (V[Hi] - V[Lo]) * (Rank - Lo);
}

std::vector<uint64_t> sessionBlocks(int LaneId, int Session, long Tokens) {
  std::vector<uint64_t> B;
  for (long I = 0; I < Tokens / PrefixBlockTokens; ++I)
    B.push_back((uint64_t(LaneId) << 48) ^ (uint64_t(Session) << 32) ^ uint64_t(I));
  return B;
}

void runCell(const Roofline &Line, long CpuTierTokens, int Conc,
             const Workload &W, uint64_t Seed) {
  Scheduler S(Line, CpuTierTokens, Seed);
  std::vector<Lane> Lanes(Conc);
  for (Lane &L : Lanes)
    L.Context = W.IslStart;
  std::map<uint64_t, InFlight> Active;
  std::vector<double> Ttft, Itl, E2e;
  double InputTokens = 0, OutputTokens = 0, FirstStart = -1, LastEnd = 0;
  uint64_t NextId = 0;
  double T = 0;
  while (T < W.Duration) {
    for (size_t I = 0; I < Lanes.size(); ++I) {
      Lane &L = Lanes[I];
      if (L.NextArrival > T || L.NextArrival < 0)
        continue;
      long Prompt = L.Context + W.NewTokens;
      uint64_t Id = ++NextId;
      S.add({Id, Prompt, sessionBlocks(int(I), L.Session, Prompt), W.Osl});
      Active[Id] = {int(I), T, -1, Prompt, 0};
      L.NextArrival = -1; // busy until this turn finishes
    }
    if (!S.hasWork()) {
      double Next = W.Duration;
      for (const Lane &L : Lanes)
        if (L.NextArrival >= 0)
          Next = std::min(Next, L.NextArrival);
      T = Next;
      continue;
    }
    StepResult R = S.step();
    T += R.Seconds;
    for (const RequestProgress &P : R.Progress) {
      InFlight &F = Active[P.Id];
      if (P.NewTokens > 0 && F.FirstToken < 0)
        F.FirstToken = T;
      F.Tokens += P.NewTokens;
      if (!P.Finished)
        continue;
      Lane &L = Lanes[F.Lane];
      L.Context = F.Prompt + F.Tokens;
      if (L.Context + W.NewTokens > W.IslMax) {
        ++L.Session;
        L.Context = W.IslStart;
      }
      L.NextArrival = T + W.Think;
      if (F.Arrival >= W.Warmup) {
        if (FirstStart < 0)
          FirstStart = F.Arrival;
        LastEnd = T;
        InputTokens += F.Prompt;
        OutputTokens += F.Tokens;
        double TtftS = F.FirstToken - F.Arrival;
        Ttft.push_back(TtftS);
        E2e.push_back(T - F.Arrival);
        if (F.Tokens > 1)
          Itl.push_back((T - F.FirstToken) / (F.Tokens - 1));
      }
      Active.erase(P.Id);
    }
  }
  double Span = LastEnd - FirstStart;
  int Gpus = Line.config().gpus();
  if (Span <= 0 || Ttft.empty()) {
    fmt::print("| {} | no measured requests |\n", Conc);
    return;
  }
  double P90Itl = percentile(Itl, 90);
  fmt::print("| {} | {} | {:.0f} | {:.0f} | {:.3f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} | {:.2f} |\n",
             Conc, Ttft.size(), (InputTokens + OutputTokens) / Span / Gpus,
             OutputTokens / Span / Gpus, percentile(Ttft, 50),
             percentile(Itl, 50) * 1e3, P90Itl * 1e3,
             P90Itl > 0 ? 1 / P90Itl : 0, percentile(E2e, 50),
             S.stats().PrefixQueriedTokens
                 ? double(S.stats().PrefixHitTokens) / S.stats().PrefixQueriedTokens
                 : 0);
}

bool takeLong(const std::string &Arg, const char *Name, std::string Value,
              long &Out) {
  if (Arg != Name)
    return false;
  Out = std::strtol(Value.c_str(), nullptr, 10);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> Args(argv + 1, argv + argc);
  auto Dash = std::find(Args.begin(), Args.end(), "--");
  if (Dash == Args.end()) {
    fmt::print(stderr,
               "usage: sim-calibrate [--conc 1,2,...] [--isl-start N] [--isl-max N] "
               "[--new-tokens N] [--osl N] [--think S] [--duration S] [--warmup S]\n"
               "       [--hardware NAME] [--model NAME | --spec FILE] [--env K=V]... -- "
               "ENGINE_ARGV...\n");
    return 2;
  }
  Workload W;
  std::vector<int> Concs = {1, 2, 4, 8, 12, 14, 16, 32, 40, 56, 64};
  SimOptions O;
  O.ProfilesDir = ARECIPE_SIM_PROFILES_DIR;
  O.Hardware = "mi355x";
  O.Model = "kimi-k3";
  Environment Env;
  for (auto It = Args.begin(); It != Dash; ++It) {
    std::string Arg = *It;
    if (std::next(It) == Dash) {
      fmt::print(stderr, "sim-calibrate: {} needs a value\n", Arg);
      return 2;
    }
    std::string Value = *++It;
    double D = std::strtod(Value.c_str(), nullptr);
    if (takeLong(Arg, "--isl-start", Value, W.IslStart) ||
        takeLong(Arg, "--isl-max", Value, W.IslMax) ||
        takeLong(Arg, "--new-tokens", Value, W.NewTokens) ||
        takeLong(Arg, "--osl", Value, W.Osl))
      continue;
    if (Arg == "--think")
      W.Think = D;
    else if (Arg == "--duration")
      W.Duration = D;
    else if (Arg == "--warmup")
      W.Warmup = D;
    else if (Arg == "--hardware")
      O.Hardware = Value;
    else if (Arg == "--model")
      O.Model = Value;
    else if (Arg == "--spec")
      O.SpecFile = Value;
    else if (Arg == "--env") {
      size_t Eq = Value.find('=');
      Env[Value.substr(0, Eq)] = Value.substr(Eq + 1);
    } else if (Arg == "--conc") {
      Concs.clear();
      std::stringstream In(Value);
      for (std::string Item; std::getline(In, Item, ',');)
        Concs.push_back(std::atoi(Item.c_str()));
    } else {
      fmt::print(stderr, "sim-calibrate: unknown option {}\n", Arg);
      return 2;
    }
  }
  O.EngineArgv.assign(Dash + 1, Args.end());
  EngineParseResult Parsed = parseEngineArgv(O.EngineArgv, std::nullopt);
  if (!Parsed.Error.empty()) {
    fmt::print(stderr, "sim-calibrate: {}\n", Parsed.Error);
    return 2;
  }
  HardwareProfile Hw;
  ModelProfile M;
  std::string Error;
  // A spec (the recipe's model and hardware) replaces both profiles.
  if (!O.SpecFile.empty() ? !loadSimSpec(O.SpecFile, Hw, M, Error)
                          : !loadHardwareProfile(O.Hardware, O.ProfilesDir, Hw,
                                                 Error) ||
                                !loadModelProfile(O.Model, O.ProfilesDir, M,
                                                  Error)) {
    fmt::print(stderr, "sim-calibrate: {}\n", Error);
    return 2;
  }
  Roofline Line(Hw, M, Parsed.Config);
  StartupPlan Plan = planStartup(Line, O, Env);
  fmt::print("workload: isl {}..{} (+{} new per turn), osl {}, think {} s, "
             "{} s simulated ({} s warm-up); {} GPUs; KV {} tokens; CPU tier {} tokens\n\n",
             W.IslStart, W.IslMax, W.NewTokens, W.Osl, W.Think, W.Duration,
             W.Warmup, Parsed.Config.gpus(), Line.kvCapacityTokens(),
             Plan.CpuTierTokens);
  fmt::print("| conc | requests | tok/s/GPU (in+out) | out tok/s/GPU | TTFT p50 s | "
             "ITL p50 ms | ITL p90 ms | interactivity tok/s/user | E2E p50 s | prefix hit |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n");
  for (int Conc : Concs)
    runCell(Line, Plan.CpuTierTokens, Conc, W, 0);
  return 0;
}
