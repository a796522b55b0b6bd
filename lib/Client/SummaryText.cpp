//===- SummaryText.cpp - A cell summary for people ------------------------===//

#include "arecipe/Client/SummaryText.h"

#include "arecipe/Support/Json.h"

#include <fmt/format.h>

#include <iterator>

namespace arecipe::client {

using nlohmann::ordered_json;
using support::numberAt;

namespace {

std::string number(std::optional<double> V, const char *Format = "{:.1f}") {
  return V ? fmt::format(fmt::runtime(Format), *V) : std::string("n/a");
}

std::optional<double> scaled(std::optional<double> V, double K) {
  return V ? std::optional<double>(*V * K) : std::nullopt;
}

std::string count(const ordered_json &S, const char *Pointer) {
  std::optional<double> V = numberAt(S, Pointer);
  return V ? fmt::format("{:.0f}", *V) : std::string("n/a");
}

} // namespace

std::string formatSummaryText(const ordered_json &S) {
  std::string Out;
  auto Line = [&](std::string_view Label, const std::string &Text) {
    fmt::format_to(std::back_inserter(Out), "{:<11}{}\n", Label, Text);
  };
  const ordered_json *Client = support::objectAt(S, "arecipe_client");
  static const ordered_json Empty = ordered_json::object();
  const ordered_json &C = Client ? *Client : Empty;

  std::string Failed = count(C, "/num_requests_failed") + " failed";
  if (const ordered_json *Kinds = support::objectAt(C, "errors_by_kind"); Kinds && !Kinds->empty()) {
    std::string List;
    for (const auto &[Kind, N] : Kinds->items())
      if (N.is_number())
        List += fmt::format("{}{:.0f} {}", List.empty() ? "" : ", ", N.get<double>(), Kind);
    Failed += " (" + List + ")";
  }
  Line("requests", fmt::format("{} measured: {} ok, {}, {} cancelled; {} warm-up",
                               count(S, "/num_requests_total"),
                               count(S, "/num_requests_successful"), Failed,
                               count(C, "/num_requests_cancelled"),
                               count(C, "/num_requests_warmup")));

  bool Valid = support::boolAt(C, "valid", false);
  std::string Why =
      fmt::format("error rate {} %, threshold {} %",
                  number(scaled(numberAt(C, "/error_rate"), 100)),
                  number(scaled(numberAt(C, "/failed_request_threshold"), 100)));
  if (std::string Abort = support::stringAt(C, "abort_reason"); !Abort.empty())
    Why = Abort + "; " + Why;
  Line("valid", fmt::format("{} ({})", Valid ? "yes" : "no", Why));

  const char *T = "/request_metrics/throughput";
  auto At = [&](const char *Base, const char *Leaf) {
    return numberAt(S, (std::string(Base) + Leaf).c_str());
  };
  Line("duration", number(At(T, "/duration_seconds"), "{:.2f}") + " s");
  Line("throughput", fmt::format("output {}, input {}, total {} tok/s", number(At(T, "/output")),
                                 number(At(T, "/input")), number(At(T, "/total"))));
  Line("per GPU", fmt::format("output {}, input {}, total {} tok/s ({} GPUs)",
                              number(At(T, "/per_gpu/output")), number(At(T, "/per_gpu/input")),
                              number(At(T, "/per_gpu/total")), count(C, "/num_gpus")));

  fmt::format_to(std::back_inserter(Out), "{:<27}{:>10}{:>10}{:>10}{:>10}\n", "latency", "mean",
                 "p50", "p90", "p99");
  struct Row {
    const char *Label, *Key;
    double Scale;
  };
  for (const Row &R : {Row{"TTFT (ms)", "ttft", 1000}, Row{"ITL (ms)", "itl", 1000},
                       Row{"E2E latency (ms)", "e2el", 1000},
                       Row{"interactivity (tok/s/user)", "intvty", 1}}) {
    std::string Base = std::string("/request_metrics/latency/") + R.Key + "/";
    std::string Cells;
    for (const char *Stat : {"mean", "p50", "p90", "p99"}) {
      std::optional<double> V = numberAt(S, (Base + Stat).c_str());
      Cells += fmt::format("{:>10}", number(scaled(V, R.Scale)));
    }
    fmt::format_to(std::back_inserter(Out), "{:<27}{}\n", R.Label, Cells);
  }
  return Out;
}

} // namespace arecipe::client
