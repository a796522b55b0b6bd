//===- Repeats.cpp - A cell measured several times ------------------------===//

#include "arecipe/Runtime/Repeats.h"

#include "arecipe/Client/Metrics.h"
#include "arecipe/Support/Json.h"

#include <fmt/format.h>

namespace arecipe::runtime {

using nlohmann::ordered_json;

namespace {

/// The headline figures, by the InferenceX names of docs/inferencex-results.md
/// where there is one, and where each sits in a cell summary.
struct Headline {
  const char *Key, *Pointer, *Label;
  bool Seconds;
};
constexpr Headline Headlines[] = {
    {"total_tput_per_gpu", "/request_metrics/throughput/per_gpu/total", "total tok/s/GPU", false},
    {"output_tput_per_gpu", "/request_metrics/throughput/per_gpu/output", "output tok/s/GPU",
     false},
    {"p90_interactivity", "/arecipe_client/p90_interactivity", "P90 interactivity", false},
    {"p90_e2e_norm_interactivity", "/arecipe_client/p90_e2e_norm_interactivity",
     "P90 E2E-norm. interactivity", false},
    {"median_ttft", "/request_metrics/latency/ttft/p50", "median TTFT (s)", true},
    {"p90_ttft", "/request_metrics/latency/ttft/p90", "P90 TTFT (s)", true},
    {"median_itl", "/request_metrics/latency/itl/p50", "median ITL (s)", true},
    {"median_e2el", "/request_metrics/latency/e2el/p50", "median E2E latency (s)", true},
    {"p90_e2el", "/request_metrics/latency/e2el/p90", "P90 E2E latency (s)", true},
};

} // namespace

std::string repeatOutDir(const std::string &OutDir, int Repeat) {
  return Repeat <= 1 ? OutDir : fmt::format("{}/repeats/{}", OutDir, Repeat);
}

ordered_json repeatFigures(const std::vector<std::optional<ordered_json>> &Runs, int Planned) {
  ordered_json Out;
  Out["runs"] = Planned;
  ordered_json Statuses = ordered_json::array();
  std::vector<const ordered_json *> Ok;
  for (const std::optional<ordered_json> &R : Runs) {
    const ordered_json *Run = R ? support::objectAt(*R, "arecipe_run") : nullptr;
    std::string Status = Run ? support::stringAt(*Run, "status", "unknown") : "pending";
    Statuses.push_back(Status);
    if (Status == "ok")
      Ok.push_back(&*R);
  }
  Out["statuses"] = Statuses;
  Out["ok"] = Ok.size();
  Out["method"] = "over the ok repeats: mean, sample standard deviation (n - 1) and the 95 % "
                  "confidence interval of the mean, mean +- t(0.975, n - 1) * std / sqrt(n)";
  ordered_json Figures = ordered_json::object();
  for (const Headline &H : Headlines) {
    std::vector<double> Values;
    for (const ordered_json *S : Ok)
      if (std::optional<double> V = support::numberAt(*S, H.Pointer))
        Values.push_back(*V);
    if (Values.empty())
      continue;
    client::MeanInterval M = client::meanInterval95(Values);
    Figures[H.Key] = {{"count", M.Count},  {"mean", M.Mean},      {"std", M.Std},
                      {"ci95_low", M.Low}, {"ci95_high", M.High}, {"values", Values}};
  }
  Out["figures"] = Figures;
  return Out;
}

std::string describeRepeats(const ordered_json &Figures) {
  std::string Out =
      fmt::format("{} of {} repeats ok", Figures.value("ok", 0), Figures.value("runs", 0));
  const ordered_json *F = support::objectAt(Figures, "figures");
  for (const char *Key : {"total_tput_per_gpu", "p90_interactivity", "median_e2el"}) {
    const ordered_json *V = F ? support::objectAt(*F, Key) : nullptr;
    if (!V || V->value("count", 0) < 2)
      continue;
    const Headline *H = nullptr;
    for (const Headline &X : Headlines)
      if (std::string(X.Key) == Key)
        H = &X;
    int Digits = H->Seconds ? 3 : 1;
    Out += fmt::format("; {} {:.{}f} ± {:.{}f} (95 % CI {:.{}f} – {:.{}f})", H->Label,
                       V->value("mean", 0.0), Digits, V->value("std", 0.0), Digits,
                       V->value("ci95_low", 0.0), Digits, V->value("ci95_high", 0.0), Digits);
  }
  return Out;
}

} // namespace arecipe::runtime
