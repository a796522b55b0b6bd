//===- TraceGenerator.cpp - Synthetic coding-agent traces -----------------===//

#include "arecipe/Client/TraceGenerator.h"

#include "arecipe/Client/PromptText.h"

#include <algorithm>
#include <cmath>

using namespace arecipe::client;

namespace {
// Block ids below this are reserved for the shared system prompt.
constexpr uint64_t FirstPrivateBlock = 1u << 20;

class Generator {
public:
  explicit Generator(const TraceGeneratorOptions &O) : O(O), R(O.Seed) {}

  std::vector<TraceSession> run() {
    std::vector<TraceSession> Sessions;
    for (size_t I = 0; I < O.Sessions; ++I) {
      TraceSession S = session(lognormalInt(O.TurnsMedian, 0.6, 2, 400), true);
      S.Id = "s" + std::to_string(I);
      Sessions.push_back(std::move(S));
    }
    return Sessions;
  }

private:
  // Box-Muller on SplitMix64, so the trace does not depend on the standard
  // library's distribution implementations.
  double normal() {
    double U1 = std::max(R.uniform(), 1e-12), U2 = R.uniform();
    return std::sqrt(-2 * std::log(U1)) * std::cos(2 * M_PI * U2);
  }
  double lognormal(double Median, double Sigma) {
    return Median * std::exp(Sigma * normal());
  }
  int64_t lognormalInt(double Median, double Sigma, int64_t Lo, int64_t Hi) {
    return std::clamp<int64_t>(std::llround(lognormal(Median, Sigma)), Lo, Hi);
  }

  TraceTurn turn(int64_t Tokens, bool WithSystemPrompt) {
    TraceTurn T;
    int64_t Total = Tokens;
    if (WithSystemPrompt) {
      for (int64_t B = 0; B < O.SystemPromptTokens / BlockTokens; ++B)
        T.HashIds.push_back(uint64_t(B + 1));
      Total += (O.SystemPromptTokens / BlockTokens) * BlockTokens;
    }
    for (int64_t Left = Tokens; Left > 0; Left -= BlockTokens)
      T.HashIds.push_back(NextBlock++);
    T.InputTokens = Total;
    return T;
  }

  TraceSession session(int64_t Turns, bool Root) {
    TraceSession S;
    int64_t Context = 0;
    for (int64_t I = 0; I < Turns; ++I) {
      bool First = I == 0;
      int64_t In = First ? lognormalInt(Root ? O.FirstTurnMedianTokens : O.ToolResultMedianTokens * 2,
                                        0.5, 64, 60000)
                         : lognormalInt(O.ToolResultMedianTokens, 1.0, 1, 40000);
      TraceTurn T = turn(In, First && Root);
      T.OutputTokens = lognormalInt(O.OutputMedianTokens, 0.8, 1, 8000);
      if (!First)
        T.ThinkTimeS = std::min(O.ThinkMaxS, std::round(lognormal(O.ThinkMedianS, 0.9) * 1000) / 1000);
      if (Context + T.InputTokens + T.OutputTokens > O.MaxContextTokens && !First)
        break;
      Context += T.InputTokens + T.OutputTokens;
      if (Root && !First && R.uniform() < O.SubagentProbability)
        T.Subagents.push_back(session(lognormalInt(O.SubagentTurnsMedian, 0.5, 1, 40), false));
      S.Turns.push_back(std::move(T));
    }
    return S;
  }

  const TraceGeneratorOptions &O;
  SplitMix64 R;
  uint64_t NextBlock = FirstPrivateBlock;
};
} // namespace

std::vector<TraceSession> arecipe::client::generateTrace(const TraceGeneratorOptions &Options) {
  return Generator(Options).run();
}
