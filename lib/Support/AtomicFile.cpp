//===- AtomicFile.cpp - Replace a file so readers see old or new ----------===//

#include "arecipe/Support/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace arecipe::support {

namespace {

std::string failure(const std::string &Path, int Errno) {
  return "cannot write " + Path + ": " + std::strerror(Errno);
}

/// The directory that holds Path, for the fsync that makes the rename
/// durable.
std::string parentOf(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  if (Slash == std::string::npos)
    return ".";
  return Slash == 0 ? "/" : Path.substr(0, Slash);
}

} // namespace

bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Err,
                         mode_t Mode) {
  // The pid and a counter keep concurrent writers (threads, or the ranks of
  // a multi-node cell on a shared file system) off each other's temporary.
  static std::atomic<unsigned> Counter{0};
  std::string Temp = Path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(Counter++);
  // O_EXCL and O_NOFOLLOW: a name planted in the directory is never followed
  // or overwritten, only the final rename replaces what is there.
  int Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, Mode);
  if (Fd < 0 && errno == EEXIST) {
    // Left by a killed run whose pid this one reuses (containers restart
    // pids): unlink removes that name itself, never what a link points to.
    unlink(Temp.c_str());
    Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, Mode);
  }
  if (Fd < 0) {
    Err = failure(Temp, errno);
    return false;
  }
  auto Fail = [&](const std::string &Name, int Errno) {
    Err = failure(Name, Errno);
    if (Fd >= 0)
      close(Fd);
    unlink(Temp.c_str());
    return false;
  };
  size_t Done = 0;
  while (Done < Contents.size()) {
    ssize_t N = write(Fd, Contents.data() + Done, Contents.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Fail(Temp, N < 0 ? errno : EIO);
    Done += size_t(N);
  }
  // The data must be on disk before the name points at it, or a crash can
  // leave a complete-looking empty file.
  if (fsync(Fd) != 0)
    return Fail(Temp, errno);
  int Closed = close(Fd);
  Fd = -1;
  if (Closed != 0)
    return Fail(Temp, errno);
  if (std::rename(Temp.c_str(), Path.c_str()) != 0)
    return Fail(Path, errno);
  // And the rename itself must reach the disk before the caller goes on to
  // act on it (a resumed run trusting a summary, a cell marked finished).
  int Dir = open(parentOf(Path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Dir < 0) {
    Err = failure(Path, errno);
    return false;
  }
  int Synced = fsync(Dir);
  int SyncErrno = errno;
  close(Dir);
  // Some file systems cannot fsync a directory (EINVAL); the rename is done.
  if (Synced != 0 && SyncErrno != EINVAL) {
    Err = failure(Path, SyncErrno);
    return false;
  }
  return true;
}

std::string fileVersion(const std::string &Path) {
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return {};
  return std::to_string(St.st_ino) + ":" + std::to_string(St.st_size) + ":" +
         std::to_string(St.st_mtim.tv_sec) + "." + std::to_string(St.st_mtim.tv_nsec);
}

} // namespace arecipe::support
