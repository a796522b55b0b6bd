//===- Profiles.cpp - Loading hardware and model profiles -----------------===//
//
// JSON → profile structs. Every field is required so that a typo in a data
// file is reported instead of silently modelling a zero.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Profiles.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace arecipe::sim {

double HardwareProfile::peakFlopsFor(const std::string &Dtype) const {
  auto It = PeakFlops.find(Dtype);
  if (It != PeakFlops.end())
    return It->second;
  auto Bf16 = PeakFlops.find("bf16");
  return Bf16 == PeakFlops.end() ? 0 : Bf16->second;
}

const char *attentionName(AttentionKind Kind) {
  return Kind == AttentionKind::Gqa ? "gqa" : "mla";
}

double ModelProfile::goldenAcceptance(int DraftTokens) const {
  if (DraftTokens <= 0)
    return 1;
  if (GoldenAcceptanceLength.empty())
    return 1 + 0.5 * DraftTokens;
  size_t Index = std::min<size_t>(DraftTokens, GoldenAcceptanceLength.size());
  return GoldenAcceptanceLength[Index - 1];
}

static bool readJson(const std::string &NameOrPath, const std::string &Dir,
                     const char *Kind, json &Out, std::string &Error,
                     std::string *Source = nullptr) {
  fs::path Path = NameOrPath;
  if (!fs::is_regular_file(Path))
    Path = fs::path(Dir) / Kind / (NameOrPath + ".json");
  std::ifstream In(Path);
  if (!In) {
    Error = fmt::format("no {} profile '{}' (looked for {})", Kind, NameOrPath,
                        Path.string());
    return false;
  }
  Out = json::parse(In, nullptr, /*allow_exceptions=*/false);
  if (Out.is_discarded()) {
    Error = fmt::format("{}: not valid JSON", Path.string());
    return false;
  }
  // A profile found by name is named; one given as a file, by its path.
  if (Source)
    *Source = "profile " + (Path.string() == NameOrPath
                                ? NameOrPath
                                : Path.stem().string());
  return true;
}

namespace {
/// Reads required fields and remembers the first one that is missing.
struct FieldReader {
  const json &J;
  std::string &Error;
  bool Ok = true;

  template <typename T> void get(const char *Key, T &Out) {
    if (!Ok)
      return;
    auto It = J.find(Key);
    if (It == J.end()) {
      Error = fmt::format("profile field '{}' is missing", Key);
      Ok = false;
      return;
    }
    try {
      Out = It->template get<T>();
    } catch (const json::exception &) {
      Error = fmt::format("profile field '{}' has the wrong type", Key);
      Ok = false;
    }
  }
};
} // namespace

bool loadHardwareProfile(const std::string &NameOrPath,
                         const std::string &ProfilesDir, HardwareProfile &Out,
                         std::string &Error) {
  json J;
  if (!readJson(NameOrPath, ProfilesDir, "hardware", J, Error))
    return false;
  FieldReader R{J, Error};
  R.get("name", Out.Name);
  R.get("hbmBytes", Out.HbmBytes);
  R.get("hbmBandwidth", Out.HbmBandwidth);
  R.get("peakFlops", Out.PeakFlops);
  R.get("gpusPerNode", Out.GpusPerNode);
  R.get("nodeDramMiB", Out.NodeDramMiB);
  R.get("hostToDeviceBandwidth", Out.HostToDeviceBandwidth);
  R.get("weightLoadBandwidth", Out.WeightLoadBandwidth);
  R.get("memEfficiency", Out.MemEfficiency);
  R.get("flopsEfficiency", Out.FlopsEfficiency);
  R.get("stepOverheadSeconds", Out.StepOverheadSeconds);
  R.get("pipelineStageOverheadSeconds", Out.PipelineStageOverheadSeconds);
  R.get("graphCaptureSecondsPerSize", Out.GraphCaptureSecondsPerSize);
  if (R.Ok && J.contains("interconnectBandwidth"))
    R.get("interconnectBandwidth", Out.InterconnectBandwidth);
  if (R.Ok && (Out.HbmBytes <= 0 || Out.HbmBandwidth <= 0 ||
               Out.GpusPerNode <= 0 || Out.peakFlopsFor("bf16") <= 0)) {
    Error = fmt::format("hardware profile '{}': sizes and rates must be "
                        "positive (and a bf16 peak is required)",
                        Out.Name);
    return false;
  }
  return R.Ok;
}

bool loadModelProfile(const std::string &NameOrPath,
                      const std::string &ProfilesDir, ModelProfile &Out,
                      std::string &Error) {
  json J;
  if (!readJson(resolveModelProfile(NameOrPath, ProfilesDir), ProfilesDir,
                "models", J, Error, &Out.Source))
    return false;
  FieldReader R{J, Error};
  R.get("name", Out.Name);
  R.get("aliases", Out.Aliases);
  R.get("weightBytes", Out.WeightBytes);
  R.get("denseWeightBytes", Out.DenseWeightBytes);
  R.get("activeParams", Out.ActiveParams);
  R.get("weightDtype", Out.WeightDtype);
  R.get("numExperts", Out.NumExperts);
  R.get("expertsPerToken", Out.ExpertsPerToken);
  R.get("kvElementsPerToken", Out.KvElementsPerToken);
  R.get("stateBytesPerSequence", Out.StateBytesPerSequence);
  R.get("attentionFlopsPerTokenPair", Out.AttentionFlopsPerTokenPair);
  R.get("maxContextTokens", Out.MaxContextTokens);
  R.get("activationReserveBytes", Out.ActivationReserveBytes);
  R.get("draftModelBytes", Out.DraftModelBytes);
  R.get("goldenAcceptanceLength", Out.GoldenAcceptanceLength);
  // Optional (older profiles describe MLA-style KV): how the KV shards.
  std::string Attention = "mla";
  if (R.Ok && J.contains("attention"))
    R.get("attention", Attention);
  if (R.Ok && Attention == "gqa") {
    Out.Attention = AttentionKind::Gqa;
    R.get("kvHeads", Out.KvHeads);
    if (R.Ok && Out.KvHeads <= 0) {
      Error = fmt::format("model profile '{}': kvHeads must be positive",
                          Out.Name);
      return false;
    }
  } else if (R.Ok && Attention != "mla") {
    Error = fmt::format("model profile '{}': attention must be 'mla' or 'gqa'",
                        Out.Name);
    return false;
  }
  if (R.Ok && (Out.WeightBytes <= 0 || Out.ActiveParams <= 0 ||
               Out.KvElementsPerToken <= 0 || Out.MaxContextTokens <= 0)) {
    Error = fmt::format("model profile '{}': sizes must be positive", Out.Name);
    return false;
  }
  return R.Ok;
}

static std::string lower(std::string S) {
  std::transform(S.begin(), S.end(), S.begin(),
                 [](unsigned char C) { return std::tolower(C); });
  return S;
}

std::string findModelProfileFor(const std::string &ModelArg,
                                const std::string &ProfilesDir) {
  std::string Wanted = lower(ModelArg);
  std::string Base = lower(fs::path(ModelArg).filename().string());
  std::error_code Ec;
  std::vector<fs::path> Files;
  for (const auto &Entry :
       fs::directory_iterator(fs::path(ProfilesDir) / "models", Ec))
    if (Entry.path().extension() == ".json")
      Files.push_back(Entry.path());
  // Directory order is unspecified; sort so the choice is deterministic.
  std::sort(Files.begin(), Files.end());
  for (const fs::path &File : Files) {
    std::ifstream In(File);
    json J = json::parse(In, nullptr, false);
    if (J.is_discarded() || !J.contains("name"))
      continue;
    std::vector<std::string> Names{J["name"].get<std::string>()};
    if (J.contains("aliases") && J["aliases"].is_array())
      for (const auto &A : J["aliases"])
        if (A.is_string())
          Names.push_back(A.get<std::string>());
    for (const std::string &Name : Names)
      if (lower(Name) == Wanted || lower(Name) == Base)
        return File.stem().string();
  }
  return "";
}

std::string resolveModelProfile(const std::string &NameOrPath,
                                const std::string &ProfilesDir) {
  std::error_code Ec;
  if (fs::is_regular_file(NameOrPath, Ec) ||
      fs::is_regular_file(fs::path(ProfilesDir) / "models" /
                              (NameOrPath + ".json"),
                          Ec))
    return NameOrPath;
  std::string ByAlias = findModelProfileFor(NameOrPath, ProfilesDir);
  return ByAlias.empty() ? NameOrPath : ByAlias;
}

} // namespace arecipe::sim
