//===- InferenceXResult.h - Result files InferenceX reads unchanged -*- C++
//-*-===//
//
// Builds the result documents of InferenceX's processing scripts from a
// cell's request records, so the suite's collector, ingest and dashboard read
// arecipe results without a converter (docs/inferencex-results.md lists every
// field and where it comes from):
//
// - fixed-seq-len: the benchmark client's result (`<name>.json`, the flat
//   `*_ms` statistics its serving benchmark saves) and the processed row
//   (`agg_<name>.json`: identity, topology, `tput_per_gpu`,
//   `output_tput_per_gpu`, `input_tput_per_gpu`, latencies in seconds and
//   their `intvty` twins), derived from the first by the suite's rules;
// - agentic-coding: the aggregate (`<name>.json`: identity, topology, KV
//   offload, request accounting, nested request and server metrics).
//
// The caller (the runtime) supplies what the suite takes from its
// environment — identity and topology, from the plan; everything measured
// comes from the records. The richer arecipe summary (CellSummary.h) is
// written alongside and is unaffected.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_INFERENCEXRESULT_H
#define ARECIPE_CLIENT_INFERENCEXRESULT_H

#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/Workload.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace arecipe::client {

/// One side's parallelism (PREFILL_TP, PREFILL_EP, … in the suite).
struct InferenceXParallelism {
  int Tp = 1, Pp = 1, DcpSize = 1, PcpSize = 1, Ep = 1;
  bool DpAttention = false; ///< written as the string "true"/"false"
};

/// What InferenceX's processing reads from its environment.
struct InferenceXContext {
  std::string Hw, Image, Model, ModelPrefix, Framework, Precision;
  std::string SpecDecoding = "none"; ///< mtp | draft_model | none
  std::string RecipeFingerprint;
  bool Disagg = false;
  int Conc = 0;
  int64_t Isl = 0, Osl = 0; ///< fixed-seq-len only
  /// The multi-node field set (prefill_* / decode_*), used for a cell on
  /// several nodes or with separate prefill and decode workers.
  bool Multinode = false;
  int Gpus = 1; ///< the cell's GPUs (the plan's figure)
  /// The aggregated server's parallelism, or a disaggregated cell's prefill
  /// side; `Decode` is the decode side (each role has its own).
  InferenceXParallelism Server, Decode;
  int PrefillWorkers = 0, DecodeWorkers = 0;
  int PrefillGpus = 0, DecodeGpus = 0; ///< multi-node only
  /// agentic-coding only.
  std::string KvOffloading = "none"; ///< none | dram
  std::string KvOffloadBackend;      ///< empty when KvOffloading is none
  int64_t AllocatedCpuDramGb = 0;
};

/// What the serving benchmark records about its own run.
struct BenchRunInfo {
  std::string Backend;    ///< openai-chat | openai (completions)
  double RequestRate = 0; ///< 0: "inf" (closed loop)
  int64_t NumPrompts = 0; ///< measured requests asked for
};

/// The fixed-seq-len client result, in the serving benchmark's format:
/// totals, throughputs (`Metrics`' own figures) and mean / median / std /
/// p90 / p99 / p99.9 of ttft, tpot, itl and e2el in milliseconds.
nlohmann::ordered_json inferencexBenchResult(const std::vector<RequestRecord> &Records,
                                             const CellMetrics &Metrics,
                                             const InferenceXContext &Ctx,
                                             const BenchRunInfo &Info);

/// The processed fixed-seq-len row, derived from Bench by the suite's rules.
nlohmann::ordered_json inferencexFixedResult(const nlohmann::ordered_json &Bench,
                                             const InferenceXContext &Ctx);

/// The agentic-coding aggregate.
nlohmann::ordered_json inferencexAgenticResult(const RunResult &Run, const InferenceXContext &Ctx);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_INFERENCEXRESULT_H
