//===- GpuMemoryFile.h - The simulator's fake device memory ----*- C++ -*-===//
//
// A real engine holds HBM from the moment it sizes its KV cache until it
// exits, and the runtime's clean-GPU wait reads that through the vendor SMI.
// Under simulation the SMI is this file (--sim-gpu-mem-file): one line per
// GPU of this node, written when the KV cache is allocated and when the
// process releases the memory.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_GPUMEMORYFILE_H
#define ARECIPE_LIB_SIM_GPUMEMORYFILE_H

#include <string>

namespace arecipe::sim {

class GpuMemoryFile {
public:
  /// \p Path empty: no file, every call is a no-op.
  GpuMemoryFile(std::string Path, int Gpus, double HbmBytes, double UsedBytes)
      : Path(std::move(Path)), Gpus(Gpus), HbmBytes(HbmBytes),
        UsedBytes(UsedBytes) {}

  bool enabled() const { return !Path.empty(); }
  const std::string &path() const { return Path; }
  /// Records the memory as held (KV cache allocated) or released. Returns
  /// false when the file cannot be written.
  bool write(bool Allocated) const;

private:
  std::string Path;
  int Gpus;
  double HbmBytes;
  double UsedBytes;
};

} // namespace arecipe::sim

#endif
