//===- Metrics.h - InferenceX cell metrics from request records -*- C++ -*-===//
//
// Pure functions from request records to the numbers a benchmark cell reports:
// throughput (total and per GPU), TTFT, end-to-end latency, per-request ITL and
// the per-chunk gap view, interactivity, error rate. The definitions are
// InferenceX's, written out with formulas in docs/metrics.md; every
// latency is measured from the request's *scheduled* time, so client-side
// queueing is never hidden. Nothing here touches the network or the clock.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_METRICS_H
#define ARECIPE_CLIENT_METRICS_H

#include "arecipe/Client/RequestRecord.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace arecipe::client {

/// Percentile P (0..100) of sorted values by linear interpolation between the
/// two closest ranks (numpy's default): rank = P/100 * (n-1).
double percentile(const std::vector<double> &Sorted, double P);

/// Mean, population standard deviation and the reported percentiles.
struct Distribution {
  size_t Count = 0;
  double Mean = 0, Std = 0;
  double P50 = 0, P75 = 0, P90 = 0, P95 = 0, P99 = 0;
};

Distribution summarize(std::vector<double> Values);

/// The interactivity view of a latency-per-token distribution: percentile pX
/// is 1 / pX(Values) (so p90 is the slow tail), while mean and std are taken
/// over the per-request reciprocals. Non-positive values are dropped.
Distribution reciprocalSummary(std::vector<double> Values);

/// A figure measured several times (a cell's repeats): its mean, the sample
/// standard deviation (n − 1), and the two-sided 95 % confidence interval of
/// the mean by Student's t with n − 1 degrees of freedom,
/// mean ± t(0.975, n − 1) · std / √n. With one value the interval is the
/// value itself and Std is 0.
struct MeanInterval {
  size_t Count = 0;
  double Mean = 0, Std = 0, Low = 0, High = 0;
};

MeanInterval meanInterval95(const std::vector<double> &Values);

/// The 0.975 quantile of Student's t with Df ≥ 1 degrees of freedom: the
/// published table to four decimals up to 30, the Cornish-Fisher expansion
/// around the normal quantile beyond (error below 1e-4).
double studentT975(size_t Df);

/// How many GPUs a cell uses, for the per-GPU division.
struct GpuTopology {
  bool Disaggregated = false;
  // Aggregated: one server (or a TPxPP group) answers prefill and decode.
  int Tp = 1, Pp = 1, Pcp = 1;
  // Disaggregated xPyD: prefill and decode pools.
  int PrefillWorkers = 0, PrefillTp = 0, PrefillPp = 1;
  int DecodeWorkers = 0, DecodeTp = 0, DecodePp = 1;

  static GpuTopology aggregated(int Tp, int Pp = 1, int Pcp = 1);
  static GpuTopology disaggregated(int PrefillWorkers, int PrefillTp, int PrefillPp,
                                   int DecodeWorkers, int DecodeTp, int DecodePp = 1);
  /// TP*PP*PCP, or prefill_workers*tp*pp + decode_workers*tp*pp. DCP adds none.
  int gpus() const;
};

struct Throughput {
  double DurationSeconds = 0;
  double Input = 0, Output = 0, Total = 0;                   ///< tokens/s
  double PerGpuInput = 0, PerGpuOutput = 0, PerGpuTotal = 0; ///< tokens/s/GPU
};

/// Everything a cell summary reports about the client side.
struct CellMetrics {
  size_t NumWarmup = 0;    ///< excluded from everything below
  size_t NumCancelled = 0; ///< stopped by the client at the end; excluded
  size_t NumTotal = 0;     ///< measured requests: successful + failed
  size_t NumSuccessful = 0;
  size_t NumFailed = 0;
  std::map<std::string, size_t> ErrorsByKind;
  double ErrorRate = 0; ///< failed / (failed + successful)

  int64_t TotalInputTokens = 0, TotalOutputTokens = 0;
  size_t UsageFallbacks = 0; ///< successful requests without server usage
  int Gpus = 1;
  Throughput Tput;

  Distribution Ttft;          ///< s, first output chunk - scheduled
  Distribution E2el;          ///< s, end - scheduled
  Distribution Itl;           ///< s, per request (E2E - TTFT) / (OSL - 1)
  Distribution Intvty;        ///< tokens/s/user, reciprocalSummary(ITL)
  Distribution E2eNormIntvty; ///< tokens/s/user, reciprocalSummary(ITL + TTFT/OSL)
  Distribution ChunkGap;      ///< s, every gap between consecutive output chunks
  Distribution SendLag;       ///< s, dispatched - scheduled
  size_t ItlExcluded = 0;     ///< successful requests with OSL < 2

  double p90Interactivity() const { return Intvty.P90; }
  double p90E2eNormInteractivity() const { return E2eNormIntvty.P90; }
};

/// Computes the cell metrics over successful measured requests; warm-up and
/// cancelled requests are excluded, failed ones only count toward the error
/// rate.
CellMetrics computeCellMetrics(const std::vector<RequestRecord> &Records,
                               const GpuTopology &Topology);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_METRICS_H
