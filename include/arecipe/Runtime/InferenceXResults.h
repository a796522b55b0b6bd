//===- InferenceXResults.h - A cell's InferenceX result files ---*- C++ -*-===//
//
// What InferenceX's processing takes from its environment (hardware, model,
// framework, precision, parallelism, speculative decoding, KV offload, which
// GPUs serve prefill and which decode), read from the plan, and the file
// names the suite gives a cell's results. The runtime writes the files next
// to the cell's own summary after every measured cell;
// docs/inferencex-results.md lists each field and where its value comes from.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_INFERENCEXRESULTS_H
#define ARECIPE_RUNTIME_INFERENCEXRESULTS_H

#include "arecipe/Client/InferenceXResult.h"
#include "arecipe/Runtime/LaunchPlan.h"

#include <string>
#include <vector>

namespace arecipe::runtime {

struct InferenceXCell {
  client::InferenceXContext Context;
  bool Agentic = false;
  /// The suite's RESULT_FILENAME for the cell, without `.json`.
  std::string ResultName;
  /// What the plan could not say, in words for the cell's warnings.
  std::vector<std::string> Notes;
};

InferenceXCell describeForInferenceX(const LaunchPlan &Plan, const Cell &C);

/// Writes the cell's InferenceX files into Dir (fixed-seq-len: `<name>.json`
/// and `agg_<name>.json`; agentic-coding: `<name>.json`) through the
/// runtime's JSON sink. Returns the file names written; on a write error,
/// those before it, with Err set.
std::vector<std::string> writeInferenceXResults(const InferenceXCell &X, const std::string &Dir,
                                                const client::RunResult &Run,
                                                const client::CellMetrics &Metrics,
                                                const client::BenchRunInfo &Info, std::string &Err);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_INFERENCEXRESULTS_H
