//===- GpuMemory.h - How much device memory each GPU holds ------*- C++ -*-===//
//
// The clean-GPU wait needs used/total memory per GPU. This reads it from the
// vendor tools' machine-readable output (`amd-smi metric --mem-usage --json`,
// `rocm-smi --showmeminfo vram --json`, `nvidia-smi --query-gpu=... --format=
// csv`) and from the simulator's device-memory files. Parsing is separated
// from running the tool so every format is unit-tested; a format this code
// does not recognise is an error, never "zero bytes used".
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_GPUMEMORY_H
#define ARECIPE_RUNTIME_GPUMEMORY_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <optional>
#include <string>
#include <vector>

namespace arecipe::runtime {

struct GpuMemory {
  int Index = 0;
  double UsedBytes = 0, TotalBytes = 0;
  double usedFraction() const { return TotalBytes > 0 ? UsedBytes / TotalBytes : 1; }
};

/// The argv that asks Tool (amd-smi, rocm-smi, nvidia-smi) for memory use.
Argv gpuMemoryQuery(const std::string &Tool);

/// Parses Tool's output; nullopt with Err set if it is not understood.
std::optional<std::vector<GpuMemory>> parseGpuMemory(const std::string &Tool,
                                                     const std::string &Output, std::string &Err);

/// Reads every simulator device-memory file in Dir ("index used total
/// [owner_pid]" per line) and sums per GPU index, skipping a file whose
/// owner has died (it no longer holds its lock on the file). A missing
/// directory means no GPU is used.
std::vector<GpuMemory> readSimulatedGpuMemory(const std::string &Dir);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_GPUMEMORY_H
