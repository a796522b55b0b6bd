//===- GpuMemoryFile.cpp - The simulator's fake device memory -------------===//
#include "GpuMemoryFile.h"
#include "AtomicFile.h"

#include <fmt/format.h>

namespace arecipe::sim {

bool GpuMemoryFile::write(bool Allocated) const {
  if (Path.empty())
    return true;
  double Used = Allocated ? UsedBytes : 0;
  std::string Text;
  for (int I = 0; I < Gpus; ++I)
    Text += fmt::format("{} {:.0f} {:.0f}\n", I, Used, HbmBytes);
  return writeAtomically(Path, Text);
}

} // namespace arecipe::sim
