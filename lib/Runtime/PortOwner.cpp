//===- PortOwner.cpp - Who listens on a TCP port --------------------------===//

#include "arecipe/Runtime/PortOwner.h"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <netinet/in.h>
#include <set>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace arecipe::runtime {

namespace {

/// The inodes of the listening sockets on Port in one of /proc/net/tcp{,6}.
void listeningInodes(const char *Table, int Port, std::set<unsigned long> &Out) {
  std::ifstream In(Table);
  std::string Line;
  std::getline(In, Line); // the header
  while (std::getline(In, Line)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    std::istringstream Fields(Line);
    std::string Sl, Local, Remote, State, Queues, Timer, Retransmits, Uid, Timeout;
    unsigned long Inode = 0;
    if (!(Fields >> Sl >> Local >> Remote >> State >> Queues >> Timer >> Retransmits >> Uid >>
          Timeout >> Inode))
      continue;
    size_t Colon = Local.rfind(':');
    if (State != "0A" || Colon == std::string::npos) // 0A: TCP_LISTEN
      continue;
    if (std::strtol(Local.c_str() + Colon + 1, nullptr, 16) == Port)
      Out.insert(Inode);
  }
}

std::string commandOf(pid_t Pid) {
  std::ifstream In(fmt::format("/proc/{}/comm", Pid));
  std::string Name;
  std::getline(In, Name);
  return Name;
}

pid_t parentOf(pid_t Pid, pid_t &Group) {
  std::ifstream In(fmt::format("/proc/{}/stat", Pid));
  std::string Line;
  std::getline(In, Line);
  size_t Close = Line.rfind(')');
  long PPid = 0, PGrp = 0;
  char State;
  if (Close == std::string::npos ||
      std::sscanf(Line.c_str() + Close + 1, " %c %ld %ld", &State, &PPid, &PGrp) != 3)
    return 0;
  Group = pid_t(PGrp);
  return pid_t(PPid);
}

} // namespace

std::vector<PortListener> listenersOnPort(int Port) {
  std::set<unsigned long> Inodes;
  listeningInodes("/proc/net/tcp", Port, Inodes);
  listeningInodes("/proc/net/tcp6", Port, Inodes);
  std::vector<PortListener> Out;
  if (Inodes.empty())
    return Out;
  std::set<unsigned long> Found;
  if (DIR *Procs = opendir("/proc")) {
    while (dirent *P = readdir(Procs)) {
      char *End = nullptr;
      long Pid = std::strtol(P->d_name, &End, 10);
      if (!End || *End || Pid <= 0)
        continue;
      std::string FdDir = fmt::format("/proc/{}/fd", Pid);
      DIR *Fds = opendir(FdDir.c_str());
      if (!Fds)
        continue; // gone, or another user's
      bool Holds = false;
      while (dirent *F = readdir(Fds)) {
        char Target[64];
        std::string Link = FdDir + "/" + F->d_name;
        ssize_t N = readlink(Link.c_str(), Target, sizeof Target - 1);
        if (N <= 0)
          continue;
        Target[N] = '\0';
        unsigned long Inode = 0;
        if (std::sscanf(Target, "socket:[%lu]", &Inode) == 1 && Inodes.count(Inode)) {
          Found.insert(Inode);
          Holds = true;
        }
      }
      closedir(Fds);
      if (Holds)
        Out.push_back({pid_t(Pid), commandOf(pid_t(Pid))});
    }
    closedir(Procs);
  }
  if (Found.size() < Inodes.size())
    Out.push_back({0, ""}); // a socket whose holder is hidden from us
  return Out;
}

bool belongsToProcessTree(pid_t Pid, pid_t Root) {
  for (int Depth = 0; Pid > 1 && Depth < 64; ++Depth) {
    if (Pid == Root)
      return true;
    pid_t Group = 0;
    pid_t Parent = parentOf(Pid, Group);
    if (Group == Root)
      return true;
    Pid = Parent;
  }
  return false;
}

std::string describeListener(const PortListener &L) {
  if (L.Pid == 0)
    return "a process this user cannot see";
  return fmt::format("pid {} ({})", L.Pid, L.Command);
}

bool chooseFreePorts(size_t N, std::vector<int> &Out, std::string &Err) {
  // Every socket stays bound until all are chosen: the kernel then gives
  // N different ports.
  std::vector<int> Fds;
  bool Ok = true;
  for (size_t I = 0; I < N && Ok; ++I) {
    int Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in Addr{};
    Addr.sin_family = AF_INET;
    Addr.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t Len = sizeof Addr;
    Ok = Fd >= 0 && bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) == 0 &&
         getsockname(Fd, reinterpret_cast<sockaddr *>(&Addr), &Len) == 0;
    if (!Ok)
      Err = fmt::format("cannot choose a free port: {}", std::strerror(errno));
    else
      Out.push_back(ntohs(Addr.sin_port));
    if (Fd >= 0)
      Fds.push_back(Fd);
  }
  for (int Fd : Fds)
    close(Fd);
  return Ok;
}

} // namespace arecipe::runtime
