//===- GpuMemory.cpp - How much device memory each GPU holds --------------===//

#include "arecipe/Runtime/GpuMemory.h"

#include "arecipe/Support/Json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using nlohmann::json;
namespace fs = std::filesystem;

namespace arecipe::runtime {

namespace {

double unitBytes(std::string Unit) {
  for (char &C : Unit)
    C = char(std::toupper(static_cast<unsigned char>(C)));
  if (Unit == "B" || Unit.empty())
    return 1;
  if (Unit == "KB" || Unit == "KIB")
    return 1024.0;
  if (Unit == "MB" || Unit == "MIB")
    return 1024.0 * 1024;
  if (Unit == "GB" || Unit == "GIB")
    return 1024.0 * 1024 * 1024;
  return 0;
}

/// amd-smi writes `{"value": 123, "unit": "MB"}`, older versions a bare
/// number in MB or a string "123 MB".
std::optional<double> amdQuantity(const json &V) {
  if (V.is_number())
    return V.get<double>() * unitBytes("MB");
  if (V.is_object() && V.contains("value") && V["value"].is_number()) {
    double Scale = unitBytes(support::stringAt(V, "unit", "MB"));
    return Scale > 0 ? std::optional<double>(V["value"].get<double>() * Scale) : std::nullopt;
  }
  if (V.is_string()) {
    std::istringstream In(V.get<std::string>());
    double N;
    std::string Unit;
    if (In >> N) {
      In >> Unit;
      double Scale = unitBytes(Unit.empty() ? "MB" : Unit);
      if (Scale > 0)
        return N * Scale;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<GpuMemory>> parseAmdSmi(const std::string &Output, std::string &Err) {
  json J = support::parseJsonOrNull(Output).value_or(json());
  if (J.is_object() && J.contains("gpu_data"))
    J = J["gpu_data"];
  if (J.is_object())
    J = json::array({J});
  if (!J.is_array()) {
    Err = "amd-smi output is not a JSON list of GPUs";
    return std::nullopt;
  }
  std::vector<GpuMemory> Out;
  for (size_t I = 0; I < J.size(); ++I) {
    const json &G = J[I];
    const json *Mem = nullptr;
    for (const char *Key : {"mem_usage", "memory_usage", "usage"})
      if (G.is_object() && G.contains(Key) && G[Key].is_object())
        Mem = &G[Key];
    if (!Mem || !Mem->contains("total_vram") || !Mem->contains("used_vram")) {
      Err = fmt::format("amd-smi output: GPU entry {} has no mem_usage.total_vram/used_vram", I);
      return std::nullopt;
    }
    auto Total = amdQuantity((*Mem)["total_vram"]);
    auto Used = amdQuantity((*Mem)["used_vram"]);
    if (!Total || !Used) {
      Err = fmt::format("amd-smi output: GPU entry {} has unreadable memory values", I);
      return std::nullopt;
    }
    int Index = G.contains("gpu") && G["gpu"].is_number_integer() ? G["gpu"].get<int>() : int(I);
    Out.push_back({Index, *Used, *Total});
  }
  return Out;
}

std::optional<std::vector<GpuMemory>> parseRocmSmi(const std::string &Output, std::string &Err) {
  json J = support::parseJsonOrNull(Output).value_or(json());
  if (!J.is_object()) {
    Err = "rocm-smi output is not a JSON object";
    return std::nullopt;
  }
  std::vector<GpuMemory> Out;
  for (auto It = J.begin(); It != J.end(); ++It) {
    if (It.key().rfind("card", 0) != 0 || !It.value().is_object())
      continue;
    auto Num = [&](const char *Key) -> std::optional<double> {
      if (!It.value().contains(Key))
        return std::nullopt;
      const json &V = It.value()[Key];
      if (V.is_number())
        return V.get<double>();
      if (V.is_string())
        return std::strtod(V.get<std::string>().c_str(), nullptr);
      return std::nullopt;
    };
    auto Total = Num("VRAM Total Memory (B)");
    auto Used = Num("VRAM Total Used Memory (B)");
    if (!Total || !Used) {
      Err = fmt::format("rocm-smi output: {} has no VRAM total/used", It.key());
      return std::nullopt;
    }
    Out.push_back({std::atoi(It.key().c_str() + 4), *Used, *Total});
  }
  if (Out.empty())
    Err = "rocm-smi output lists no card";
  return Out.empty() ? std::nullopt : std::optional(Out);
}

std::optional<std::vector<GpuMemory>> parseNvidiaSmi(const std::string &Output, std::string &Err) {
  std::vector<GpuMemory> Out;
  std::istringstream In(Output);
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    int Index;
    double Used, Total;
    if (std::sscanf(Line.c_str(), "%d , %lf , %lf", &Index, &Used, &Total) != 3) {
      Err = fmt::format("nvidia-smi output: cannot read '{}'", Line);
      return std::nullopt;
    }
    Out.push_back({Index, Used * 1024 * 1024, Total * 1024 * 1024}); // MiB
  }
  if (Out.empty())
    Err = "nvidia-smi output lists no GPU";
  return Out.empty() ? std::nullopt : std::optional(Out);
}

} // namespace

Argv gpuMemoryQuery(const std::string &Tool) {
  if (Tool == "nvidia-smi")
    return {Tool, "--query-gpu=index,memory.used,memory.total", "--format=csv,noheader,nounits"};
  if (Tool == "rocm-smi")
    return {Tool, "--showmeminfo", "vram", "--json"};
  return {Tool, "metric", "--mem-usage", "--json"};
}

std::optional<std::vector<GpuMemory>> parseGpuMemory(const std::string &Tool,
                                                     const std::string &Output, std::string &Err) {
  if (Tool == "nvidia-smi")
    return parseNvidiaSmi(Output, Err);
  if (Tool == "rocm-smi")
    return parseRocmSmi(Output, Err);
  return parseAmdSmi(Output, Err);
}

std::vector<GpuMemory> readSimulatedGpuMemory(const std::string &Dir) {
  std::map<int, GpuMemory> ByIndex;
  std::error_code Ec;
  for (const auto &Entry : fs::directory_iterator(Dir, Ec)) {
    std::ifstream In(Entry.path());
    std::vector<GpuMemory> Lines;
    bool Owned = false;
    std::string Line;
    while (std::getline(In, Line)) {
      std::istringstream Fields(Line);
      GpuMemory G;
      long Owner;
      if (!(Fields >> G.Index >> G.UsedBytes >> G.TotalBytes))
        break;
      Owned |= bool(Fields >> Owner);
      Lines.push_back(G);
    }
    // A file that names an owner is memory a live simulator holds: it keeps
    // a shared lock on it, which the kernel drops when the process dies
    // however it dies. If the lock can be taken, the owner is gone and, as
    // with a real driver, its memory is free (docs/simulator.md).
    if (Owned) {
      int Fd = open(Entry.path().c_str(), O_RDONLY | O_CLOEXEC);
      bool OwnerGone = Fd >= 0 && flock(Fd, LOCK_EX | LOCK_NB) == 0;
      if (Fd >= 0)
        close(Fd);
      if (OwnerGone)
        continue;
    }
    for (const GpuMemory &L : Lines) {
      GpuMemory &G = ByIndex[L.Index];
      G.Index = L.Index;
      G.UsedBytes += L.UsedBytes;
      G.TotalBytes = std::max(G.TotalBytes, L.TotalBytes);
    }
  }
  std::vector<GpuMemory> Out;
  for (auto &[I, G] : ByIndex)
    Out.push_back(G);
  return Out;
}

} // namespace arecipe::runtime
