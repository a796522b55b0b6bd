//===- CellSummary.h - InferenceX-compatible cell summary JSON --*- C++ -*-===//
//
// Renders a cell's metrics as the JSON InferenceX's tooling reads (domain.md
// §8 field names: request_metrics.throughput / latency with ttft, e2el, itl,
// intvty, e2e_norm_intvty; num_requests_*; server_metrics), plus an
// `arecipe_client` block for what InferenceX has no field for (error classes,
// the per-chunk gap view, send lag, client CPU).
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

nlohmann::ordered_json buildCellSummary(const CellMetrics &M, const RunResult &Run,
                                        const SummaryContext &Context);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_CELLSUMMARY_H
