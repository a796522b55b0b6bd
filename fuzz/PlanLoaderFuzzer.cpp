//===- PlanLoaderFuzzer.cpp - libFuzzer target over the plan loader -------===//
//
// The plan is untrusted input (hand-edited, passed between tools), so the
// loader must reject anything malformed with a field path and never crash.
// Beyond "no crash", this target checks the loader's security promises on
// every plan it accepts: each error has a message, every environment
// variable name is valid, and every cell id and process name is usable as
// one file name (no '/', not '.' or '..'), so no output path can leave
// --out. Accepted plans are also turned into launch commands, as --dry-run
// does, without running anything.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/PlanLoader.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
using namespace arecipe::runtime;

void require(bool Cond, const char *What, const std::string &Value) {
  if (Cond)
    return;
  std::fprintf(stderr, "plan loader accepted %s: '%s'\n", What, Value.c_str());
  std::abort();
}

bool isOneFileName(const std::string &Name) {
  return !Name.empty() && Name != "." && Name != ".." &&
         Name.find('/') == std::string::npos && Name.find('\0') == std::string::npos;
}

void checkAccepted(const LaunchPlan &Plan) {
  RunSettings Settings;
  Settings.OutDir = "/nonexistent/out";
  Settings.PlanPath = "/nonexistent/plan.json";
  for (bool Simulate : {false, true}) {
    Settings.Simulate = Simulate;
    Settings.SimulatorPath = "/nonexistent/arecipe-sim";
    for (const Cell &C : Plan.Cells) {
      require(isOneFileName(C.Id), "a cell id that is not one file name", C.Id);
      for (const ProcessSpec &P : C.Processes) {
        require(isOneFileName(P.Name), "a process name that is not one file name", P.Name);
        for (const auto &[Name, Value] : P.Env)
          require(isValidEnvName(Name), "an invalid environment variable name", Name);
        for (const std::string &Name : P.EnvUnset)
          require(isValidEnvName(Name), "an invalid environment variable name", Name);
        LaunchCommand L = buildLaunchCommand(Plan, C, P, Settings,
                                             Settings.OutDir + "/cells/" + C.Id);
        require(!L.Command.empty(), "a process with an empty command", P.Name);
        (void)quoteForDisplay(L.Command);
      }
    }
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  PlanLoadResult R = parseLaunchPlan(Text, 50);
  if (!R.ok()) {
    for (const PlanError &E : R.Errors)
      require(!E.Message.empty(), "an error without a message", E.Path);
    require(R.Errors.size() <= 50, "more errors than the limit", std::to_string(R.Errors.size()));
    return 0;
  }
  checkAccepted(R.Plan);
  return 0;
}
