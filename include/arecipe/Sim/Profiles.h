//===- Profiles.h - Hardware and model profiles for arecipe-sim -*- C++ -*-===//
//
// The numbers the simulator's roofline is built from. They come from the
// recipe's plan (SimSpec.h) or, for arecipe-sim started by hand, from the
// profile catalogue (hardware/NAME.json, models/NAME.json: the plan's
// `hardware` and `model` objects, generated from std at build time and read
// by the same reader). A profile is plain data: this header loads and
// validates it and does no modelling.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_PROFILES_H
#define ARECIPE_SIM_PROFILES_H

#include <map>
#include <string>
#include <vector>

namespace arecipe::sim {

/// One GPU kind and the node it sits in.
struct HardwareProfile {
  std::string Name;
  double HbmBytes = 0;
  double HbmBandwidth = 0;               // bytes/s per GPU
  std::map<std::string, double> PeakFlops; // dense FLOP/s per GPU by dtype
  int GpusPerNode = 8;
  double NodeDramMiB = 0;
  double HostToDeviceBandwidth = 0;      // bytes/s per GPU (CPU KV tier loads)
  /// bytes/s per GPU between GPUs of different servers (prefill-to-decode
  /// KV transfer); 0 when not declared.
  double InterconnectBandwidth = 0;
  double WeightLoadBandwidth = 0;        // bytes/s per GPU at start-up
  double MemEfficiency = 1;              // achieved / peak HBM bandwidth
  double FlopsEfficiency = 1;            // achieved / peak FLOP/s
  double StepOverheadSeconds = 0;        // launch + sampling + scheduling per step
  double PipelineStageOverheadSeconds = 0;
  double GraphCaptureSecondsPerSize = 0;

  double peakFlopsFor(const std::string &Dtype) const;
};

/// How a model's attention stores KV, which decides how it shards.
enum class AttentionKind {
  /// Grouped-query attention: KV heads are split over the attention's TP
  /// ranks (replicated once TP exceeds the KV heads).
  Gqa,
  /// Multi-head latent attention: one latent vector per token and layer,
  /// replicated on every TP rank; only DCP shards it.
  Mla,
};

const char *attentionName(AttentionKind Kind);

/// One served model.
struct ModelProfile {
  std::string Name;
  /// Where the description came from, for the log ("profile FILE", "spec
  /// FILE").
  std::string Source;
  std::vector<std::string> Aliases;
  double WeightBytes = 0;      // whole checkpoint
  double DenseWeightBytes = 0; // read every step (attention, shared experts)
  double ActiveParams = 0;     // per token, for FLOPs
  std::string WeightDtype = "bf16"; // the peak-FLOP/s key it computes at
  std::string Precision;            // as declared ("mxfp4", …)
  int NumExperts = 0;          // 0 = dense model
  int ExpertsPerToken = 0;
  /// KV elements one token stores over all layers, unsharded; multiplied by
  /// the KV dtype size.
  double KvElementsPerToken = 0;
  AttentionKind Attention = AttentionKind::Mla;
  int KvHeads = 0; // GQA only: heads KvElementsPerToken is made of
  double StateBytesPerSequence = 0;
  double AttentionFlopsPerTokenPair = 0;
  long MaxContextTokens = 0;
  double ActivationReserveBytes = 0;
  double DraftModelBytes = 0;
  std::vector<double> GoldenAcceptanceLength; // index = draft tokens - 1

  /// The golden acceptance length for \p DraftTokens, clamped to the curve.
  double goldenAcceptance(int DraftTokens) const;
};

/// Loads a profile named NAME (looked up as DIR/hardware/NAME.json, or the
/// file itself when \p NameOrPath names an existing file; a model profile
/// may also be named by one of its aliases). Returns false and sets \p Error
/// on a missing file or a missing/ill-typed field.
bool loadHardwareProfile(const std::string &NameOrPath,
                         const std::string &ProfilesDir, HardwareProfile &Out,
                         std::string &Error);
bool loadModelProfile(const std::string &NameOrPath,
                      const std::string &ProfilesDir, ModelProfile &Out,
                      std::string &Error);

/// Finds the model profile whose name or alias matches the engine's --model /
/// --served-model-name value (the basename of a path counts), or "".
std::string findModelProfileFor(const std::string &ModelArg,
                                const std::string &ProfilesDir);

/// \p NameOrPath itself when it is a file or a profile name under
/// \p ProfilesDir, else the profile it is an alias of (findModelProfileFor),
/// else \p NameOrPath unchanged (loading then reports it missing).
std::string resolveModelProfile(const std::string &NameOrPath,
                                const std::string &ProfilesDir);

} // namespace arecipe::sim

#endif
