//===- PortOwner.h - Who listens on a TCP port ------------------*- C++ -*-===//
//
// An engine's readiness is judged by what answers on its port, so the
// runtime must know that the answer comes from the engine it started: a
// server left from another run, or another user's, would otherwise be
// benchmarked in its place. This reads the kernel's socket tables
// (/proc/net/tcp and tcp6, every address) for the listening sockets on a
// port, and /proc/<pid>/fd for the processes that hold them, and says
// whether such a process belongs to a process tree. It only observes,
// except to ask the kernel for free ports (--simulate remaps fixed ones).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PORTOWNER_H
#define ARECIPE_RUNTIME_PORTOWNER_H

#include <string>
#include <sys/types.h>
#include <vector>

namespace arecipe::runtime {

struct PortListener {
  pid_t Pid = 0;       ///< 0: a listening socket whose holder is not visible here
  std::string Command; ///< the holder's name (/proc/<pid>/comm)
};

/// Every holder of a listening TCP socket on Port, in this network
/// namespace; empty when nothing listens.
std::vector<PortListener> listenersOnPort(int Port);

/// Whether Pid is Root, a descendant of Root, or in Root's process group.
bool belongsToProcessTree(pid_t Pid, pid_t Root);

/// "pid 123 (arecipe-sim)", or "a process this user cannot see".
std::string describeListener(const PortListener &L);

/// N distinct TCP ports that are free now on every address, chosen by the
/// kernel (bound to port 0 and released together), so concurrent runs do
/// not pick the same one. False with Err when the kernel refuses.
bool chooseFreePorts(size_t N, std::vector<int> &Out, std::string &Err);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PORTOWNER_H
