//===- GpuMemoryFile.h - The simulator's fake device memory ----*- C++ -*-===//
//
// A real engine holds HBM from the moment it sizes its KV cache until it
// exits, and the runtime's clean-GPU wait reads that through the vendor SMI.
// Under simulation the SMI is this file (--sim-gpu-mem-file): one line per
// GPU of this node, `INDEX USED_BYTES TOTAL_BYTES [OWNER_PID]`.
//
// As with a real driver, memory a process holds is freed when it dies, however
// it dies: while the memory is held, the lines name the owner's pid and the
// simulator keeps a shared flock(2) on the file, which the kernel drops when
// the process exits, even on SIGKILL. A reader counts a file with an owner
// only while that lock is held (lib/Runtime/GpuMemory.cpp). The gpu-mem-leak
// fault writes its lines without an owner: memory that outlives the process,
// as a leaked device allocation does.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_GPUMEMORYFILE_H
#define ARECIPE_LIB_SIM_GPUMEMORYFILE_H

#include <string>

namespace arecipe::sim {

class GpuMemoryFile {
public:
  enum class State {
    Held,     // allocated by this live process (owner pid, lock held)
    Released, // nothing used
    Leaked,   // used, no owner: counted even after this process is gone
  };

  /// \p Path empty: no file, every call is a no-op.
  GpuMemoryFile(std::string Path, int Gpus, double HbmBytes, double UsedBytes)
      : Path(std::move(Path)), Gpus(Gpus), HbmBytes(HbmBytes),
        UsedBytes(UsedBytes) {}
  ~GpuMemoryFile();
  GpuMemoryFile(const GpuMemoryFile &) = delete;
  GpuMemoryFile &operator=(const GpuMemoryFile &) = delete;

  bool enabled() const { return !Path.empty(); }
  const std::string &path() const { return Path; }
  /// Replaces the file (through a temporary file and a rename, so a reader
  /// sees the old or the new state). Returns false when it cannot be
  /// written; a release that cannot be written (a full disk) removes the
  /// file instead, which readers take as nothing used.
  bool write(State S) const;

private:
  std::string Path;
  int Gpus;
  double HbmBytes;
  double UsedBytes;
  mutable int HeldFd = -1; // open, locked descriptor while State::Held
};

} // namespace arecipe::sim

#endif
