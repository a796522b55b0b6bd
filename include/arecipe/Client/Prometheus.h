//===- Prometheus.h - Server metrics scrape, parse and delta ----*- C++ -*-===//
//
// Engines expose Prometheus text on /metrics (`vllm:`, `sglang:`, `atom:`
// prefixes). The client scrapes it at the start and the end of the measured
// window and reports deltas, so counters accumulated during start-up and
// warm-up do not leak into the cell. Parsing is a pure function of the text;
// only scrapeMetrics() does I/O.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_PROMETHEUS_H
#define ARECIPE_CLIENT_PROMETHEUS_H

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arecipe::client {

struct PrometheusSample {
  std::string Name;
  std::vector<std::pair<std::string, std::string>> Labels;
  double Value = 0;
};

/// Parses the text exposition format. Malformed lines are skipped and, if
/// Errors is given, described there as "line N: reason".
std::vector<PrometheusSample> parsePrometheusText(std::string_view Text,
                                                  std::vector<std::string> *Errors = nullptr);

/// Metric name -> value summed over every label set (one series per engine
/// or rank is normal; the cell wants the total). Histogram buckets are left
/// out; their _sum and _count are kept.
using MetricTotals = std::map<std::string, double>;
MetricTotals totalsByName(const std::vector<PrometheusSample> &Samples);

/// The server side of a cell: counter deltas over the window, gauges at both
/// ends, and the derived figures when the engine exports their inputs.
struct ServerMetricsDelta {
  std::string Prefix; ///< "vllm:", "sglang:", "atom:" or empty if unknown
  std::map<std::string, double> CounterDeltas; ///< *_total, *_sum, *_count
  std::map<std::string, double> GaugesStart, GaugesEnd;
  std::optional<double> PrefixCacheHitRate;
  std::optional<double> SpecAcceptanceRate;   ///< accepted / draft tokens
  std::optional<double> SpecAcceptanceLength; ///< 1 + accepted / drafts
  std::optional<double> KvCacheUsageStart, KvCacheUsageEnd;
};

/// NumSpecTokens is the drafts per step, used for the acceptance length when
/// the engine exports draft tokens but not the number of drafts (0 = unknown).
ServerMetricsDelta diffServerMetrics(const MetricTotals &Start, const MetricTotals &End,
                                     int NumSpecTokens = 0);

/// Blocking GET of a /metrics URL, with Headers ("Name: value", e.g. an
/// endpoint's authorization). Returns the body, or nullopt with Err set.
std::optional<std::string> scrapeMetrics(const std::string &Url, std::string &Err,
                                         long TimeoutMs = 10000,
                                         const std::vector<std::string> &Headers = {});

/// The blocking GET behind scrapeMetrics and the readiness wait: the body
/// (at most 64 MiB) of any answer, with its status in Status (0 when no
/// HTTP answer came); nullopt with Err on a transport failure.
std::optional<std::string> httpGetText(const std::string &Url,
                                       const std::vector<std::string> &Headers, long TimeoutMs,
                                       long &Status, std::string &Err);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_PROMETHEUS_H
