//===- stream_server_main.cpp - The benchmark's fast streaming server -----===//
//
// Runs StreamServer as its own process so the client's CPU time can be
// measured apart from the server's. Writes the bound port to --port-file.
//
//===----------------------------------------------------------------------===//

#include "StreamServer.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace arecipe::bench;

static StreamServer *Running = nullptr;

static void onSignal(int) {
  if (Running)
    Running->stop();
}

int main(int Argc, char **Argv) {
  StreamServerOptions O;
  std::string PortFile;
  for (int I = 1; I + 1 < Argc; I += 2) {
    if (!std::strcmp(Argv[I], "--tick-us"))
      O.TickUs = std::atoll(Argv[I + 1]);
    else if (!std::strcmp(Argv[I], "--tokens-per-chunk"))
      O.TokensPerChunk = std::atoll(Argv[I + 1]);
    else if (!std::strcmp(Argv[I], "--port-file"))
      PortFile = Argv[I + 1];
    else if (!std::strcmp(Argv[I], "--port"))
      O.Port = std::atoi(Argv[I + 1]);
  }
  StreamServer S(O);
  int Port = S.listen();
  if (Port < 0) {
    std::perror("listen");
    return 1;
  }
  if (!PortFile.empty()) {
    std::string Tmp = PortFile + ".tmp";
    FILE *F = std::fopen(Tmp.c_str(), "w");
    if (!F)
      return 1;
    std::fprintf(F, "%d\n", Port);
    std::fclose(F);
    std::rename(Tmp.c_str(), PortFile.c_str());
  }
  Running = &S;
  std::signal(SIGTERM, onSignal);
  std::signal(SIGINT, onSignal);
  S.serve();
  return 0;
}
