//===- Profiles.cpp - Loading hardware and model profiles -----------------===//
//
// The profile catalogue: hardware and model objects in the simulation
// spec's format (SimSpec.h reads them, so a profile and a recipe's plan are
// one format with one reader), generated from std at build time.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Profiles.h"
#include "arecipe/Sim/SimSpec.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

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

/// The text of profile \p NameOrPath: the file itself when it is one, else
/// DIR/KIND/NAME.json. \p Path is where it was read from.
static bool readProfile(const std::string &NameOrPath, const std::string &Dir,
                        const char *Kind, std::string &Text, fs::path &Path,
                        std::string &Error) {
  Path = NameOrPath;
  std::error_code Ec;
  if (!fs::is_regular_file(Path, Ec))
    Path = fs::path(Dir) / Kind / (NameOrPath + ".json");
  std::ifstream In(Path);
  if (!In) {
    Error = fmt::format("no {} profile '{}' (looked for {})", Kind, NameOrPath,
                        Path.string());
    return false;
  }
  std::stringstream S;
  S << In.rdbuf();
  Text = S.str();
  return true;
}

bool loadHardwareProfile(const std::string &NameOrPath,
                         const std::string &ProfilesDir, HardwareProfile &Out,
                         std::string &Error) {
  std::string Text;
  fs::path Path;
  return readProfile(NameOrPath, ProfilesDir, "hardware", Text, Path, Error) &&
         parseHardwareSpec(Text, Path.string(), Out, Error);
}

/// The names a model profile answers to: its file name, its served id and
/// the id's last component ("kimi_k3", "moonshotai/Kimi-K3", "Kimi-K3").
static std::vector<std::string> profileNames(const fs::path &File,
                                             const json &J) {
  std::vector<std::string> Names{File.stem().string()};
  if (auto It = J.find("id"); It != J.end() && It->is_string()) {
    std::string Id = It->get<std::string>();
    Names.push_back(Id);
    Names.push_back(fs::path(Id).filename().string());
  }
  return Names;
}

bool loadModelProfile(const std::string &NameOrPath,
                      const std::string &ProfilesDir, ModelProfile &Out,
                      std::string &Error) {
  std::string Text;
  fs::path Path;
  if (!readProfile(resolveModelProfile(NameOrPath, ProfilesDir), ProfilesDir,
                   "models", Text, Path, Error) ||
      !parseModelSpec(Text, Path.string(), Out, Error))
    return false;
  json J = json::parse(Text, nullptr, /*allow_exceptions=*/false);
  Out.Aliases = profileNames(Path, J);
  // A profile found by name is named; one given as a file, by its path.
  Out.Source = "profile " + (Path.string() == NameOrPath
                                 ? NameOrPath
                                 : Path.stem().string());
  return true;
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
    if (J.is_discarded() || !J.is_object())
      continue;
    std::vector<std::string> Names = profileNames(File, J);
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
