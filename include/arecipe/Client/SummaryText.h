//===- SummaryText.h - A cell summary for people ----------------*- C++ -*-===//
//
// The few lines arecipe-load prints after a run and for `summarize`: the
// measured requests (ok, failed by error kind, cancelled, warm-up), whether
// the cell is valid and why not, throughput in total and per GPU, and a
// table of the latency distributions (mean, p50, p90, p99). It reads the
// summary JSON (CellSummary.h) rather than the metrics, so it shows what
// the file says; a field the summary lacks is shown as "n/a".
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_SUMMARYTEXT_H
#define ARECIPE_CLIENT_SUMMARYTEXT_H

#include <nlohmann/json.hpp>

#include <string>

namespace arecipe::client {

/// The summary as text, one item a line, ending in a newline.
std::string formatSummaryText(const nlohmann::ordered_json &Summary);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_SUMMARYTEXT_H
