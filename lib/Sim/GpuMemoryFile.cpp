//===- GpuMemoryFile.cpp - The simulator's fake device memory -------------===//
#include "GpuMemoryFile.h"

#include <cstdio>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

namespace arecipe::sim {

GpuMemoryFile::~GpuMemoryFile() {
  if (HeldFd >= 0)
    close(HeldFd);
}

bool GpuMemoryFile::write(State S) const {
  if (Path.empty())
    return true;
  std::string Text;
  for (int I = 0; I < Gpus; ++I) {
    if (S == State::Held)
      Text += fmt::format("{} {:.0f} {:.0f} {}\n", I, UsedBytes, HbmBytes,
                          getpid());
    else
      Text += fmt::format("{} {:.0f} {:.0f}\n", I,
                          S == State::Leaked ? UsedBytes : 0.0, HbmBytes);
  }
  std::string Tmp = fmt::format("{}.tmp.{}", Path, getpid());
  int Fd = open(Tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return false;
  // The lock is taken before the file gets its name, so no reader ever sees
  // an owned file without its owner's lock.
  bool Ok = S != State::Held || flock(Fd, LOCK_SH | LOCK_NB) == 0;
  for (size_t Done = 0; Ok && Done < Text.size();) {
    ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
    Ok = N > 0;
    Done += Ok ? size_t(N) : 0;
  }
  if (!Ok || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    close(Fd);
    unlink(Tmp.c_str());
    // A release must take effect even on a full disk: a file that cannot
    // say "nothing used" goes, and no file means nothing is used.
    if (S == State::Released)
      unlink(Path.c_str());
    return false;
  }
  if (HeldFd >= 0)
    close(HeldFd);
  HeldFd = -1;
  if (S == State::Held)
    HeldFd = Fd;
  else
    close(Fd);
  return true;
}

} // namespace arecipe::sim
