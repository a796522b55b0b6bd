//===- CellSummary.h - InferenceX-compatible cell summary JSON --*- C++ -*-===//
//
// Renders a cell's metrics as the JSON InferenceX's tooling reads (its field
// names, docs/metrics.md: request_metrics.throughput / latency with ttft,
// e2el, itl, intvty, e2e_norm_intvty; num_requests_*; server_metrics), plus an
// `arecipe_client` block for what InferenceX has no field for (error classes,
// the per-chunk gap view, send lag, client CPU, stalls, and whether the
// client itself was the bottleneck). Files are written atomically so a reader
// never sees half a summary.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_CELLSUMMARY_H
#define ARECIPE_CLIENT_CELLSUMMARY_H

#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/Workload.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace arecipe::client {

struct SummaryContext {
  /// Caller-provided identity fields (hw, conc, image, model, framework,
  /// precision, tp, ...), emitted first and in the given order.
  nlohmann::ordered_json Metadata = nlohmann::ordered_json::object();
  double FailedRequestThreshold = 0.10;
  int64_t ExpectedOutputTokens = 0; ///< sum of requested max_tokens
};

/// Sum of MaxOutputTokens over successful measured records.
int64_t expectedOutputTokens(const std::vector<RequestRecord> &Records);

/// Loop lag p99 above which the client counts as the bottleneck: it could
/// not act on its own timers, or stamp arriving chunks, within this.
constexpr double ClientBoundLagP99Seconds = 0.002;
/// Share of one core the loop thread may use before it counts as the
/// bottleneck (spinning for precise sends excluded).
constexpr double ClientBoundCpuFraction = 0.9;

/// Whether the client itself limited or distorted the measurement
/// (docs/metrics.md, "Client saturation").
struct ClientSaturation {
  bool Measured = false; ///< the run measured its loop (not an offline summary)
  Distribution Lag;      ///< loop lag, s
  double CpuSeconds = 0, WallSeconds = 0, CpuFraction = 0;
  bool Bound = false;
  std::string Reason; ///< why it was the bottleneck, when Bound
};

ClientSaturation clientSaturation(const RunResult &Run);

nlohmann::ordered_json buildCellSummary(const CellMetrics &M, const RunResult &Run,
                                        const SummaryContext &Context);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_CELLSUMMARY_H
