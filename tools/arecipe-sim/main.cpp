//===- arecipe-sim - an OpenAI-compatible serving-engine simulator --------===//
//
// Thin entry point: options and environment in, lib/Sim does the rest.
// See docs/simulator.md.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Server.h"
#include "arecipe/Support/InstallLayout.h"

#include <cstdio>

extern char **environ;

int main(int argc, char **argv) {
  using namespace arecipe::sim;
  std::vector<std::string> Args(argv + 1, argv + argc);
  SimOptions Options;
  std::string Error;
  bool WantHelp = false;
  if (!parseSimOptions(Args, Options, Error, WantHelp)) {
    std::fprintf(stderr, "arecipe-sim: error: %s\n%s", Error.c_str(),
                 simUsage());
    return 2;
  }
  if (WantHelp) {
    std::fputs(simUsage(), stdout);
    return 0;
  }
  if (Options.routerMode())
    return runRouter(std::move(Options));
  // The profiles installed beside this executable (docs/build.md#install);
  // a missing profile is reported with the path looked at.
  if (Options.ProfilesDir.empty())
    Options.ProfilesDir = arecipe::support::simProfilesDir();
  Environment Env;
  for (char **E = environ; *E; ++E) {
    std::string Entry = *E;
    size_t Eq = Entry.find('=');
    if (Eq != std::string::npos)
      Env[Entry.substr(0, Eq)] = Entry.substr(Eq + 1);
  }
  return runSimulator(std::move(Options), Env);
}
