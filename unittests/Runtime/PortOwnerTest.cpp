//===- PortOwnerTest.cpp - Who listens on a TCP port ----------------------===//

#include "arecipe/Runtime/PortOwner.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace arecipe::runtime;

namespace {

/// A listening socket on a free port of the given address family.
int listenOn(int Family, int &Port) {
  int Fd = socket(Family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Family == AF_INET) {
    sockaddr_in A{};
    A.sin_family = AF_INET;
    A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A);
  } else {
    sockaddr_in6 A{};
    A.sin6_family = AF_INET6;
    A.sin6_addr = in6addr_any;
    bind(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A);
  }
  listen(Fd, 1);
  sockaddr_storage Bound{};
  socklen_t Len = sizeof Bound;
  getsockname(Fd, reinterpret_cast<sockaddr *>(&Bound), &Len);
  Port = ntohs(Family == AF_INET ? reinterpret_cast<sockaddr_in &>(Bound).sin_port
                                 : reinterpret_cast<sockaddr_in6 &>(Bound).sin6_port);
  return Fd;
}

TEST(PortOwner, ListenersAreFoundOnEitherFamilyWithTheirProcess) {
  for (int Family : {AF_INET, AF_INET6}) {
    int Port = 0;
    int Fd = listenOn(Family, Port);
    ASSERT_GT(Port, 0);
    std::vector<PortListener> L = listenersOnPort(Port);
    ASSERT_EQ(L.size(), 1u) << Family;
    EXPECT_EQ(L[0].Pid, getpid());
    EXPECT_EQ(describeListener(L[0]),
              "pid " + std::to_string(getpid()) + " (" + L[0].Command + ")");
    close(Fd);
    EXPECT_TRUE(listenersOnPort(Port).empty());
  }
}

TEST(PortOwner, ProcessTreeMembership) {
  EXPECT_TRUE(belongsToProcessTree(getpid(), getpid()));
  EXPECT_FALSE(belongsToProcessTree(getppid(), getpid()));
  EXPECT_FALSE(belongsToProcessTree(1, getpid()));
  // This process descends from its parent.
  EXPECT_TRUE(belongsToProcessTree(getpid(), getppid()));
}

} // namespace
