//===- PlanLoaderFuzzer.cpp - libFuzzer target over the plan loader -------===//
//
// The plan is untrusted input (hand-edited, passed between tools), so the
// loader must reject anything malformed with a field path and never crash.
// Beyond "no crash", this target checks the loader's security promises on
// every plan it accepts: each error has a message, every environment
// variable name is valid, and every cell id and process name is usable as
// one file name (no '/', not '.' or '..'), so no output path can leave
// --out. Accepted plans are also turned into launch commands, as --dry-run
// does, without running anything, and their copy for OUT/plan.json is
// redacted. Nesting is bounded (finding 2 of the second hardening round): a
// text nested deeper than the loader's 64 levels must be refused. Every
// input is also redacted as text, which must end and be idempotent
// (finding 5), and sanitised, which must give valid UTF-8 (finding 1).
//
//===----------------------------------------------------------------------===//

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"
#include "arecipe/Support/Utf8.h"

#include <algorithm>
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
        std::string CellDir = Settings.OutDir + "/cells/" + C.Id;
        LaunchCommand L = buildLaunchCommand(Plan, C, P, Settings, CellDir,
                                             cellPlaceholderValues(C, Settings, CellDir));
        // A process the runtime refuses to start names why instead.
        require(!L.Command.empty() || !L.Error.empty(), "a process with an empty command",
                P.Name);
        (void)arecipe::support::shellJoin(arecipe::support::redactArgv(L.Command));
      }
    }
  }
}
/// The deepest nesting of an accepted plan, counted on the parsed tree
/// (not on the text, as the loader does, so the oracle is independent).
size_t nestingDepth(std::string_view Text) {
  std::optional<nlohmann::json> Root = arecipe::support::parseJsonOrNull(
      Text, arecipe::support::JsonLimits{1000000, size_t(1) << 30});
  if (!Root)
    return 0;
  size_t Max = 0;
  std::vector<std::pair<const nlohmann::json *, size_t>> Stack = {{&*Root, 1}};
  while (!Stack.empty()) {
    auto [V, Depth] = Stack.back();
    Stack.pop_back();
    if (!V->is_structured())
      continue;
    Max = std::max(Max, Depth);
    for (const nlohmann::json &Child : *V)
      Stack.push_back({&Child, Depth + 1});
  }
  return Max;
}

void checkText(std::string_view Text) {
  std::string Once = arecipe::support::redact(Text);
  require(arecipe::support::redact(Once) == Once, "a redaction that changes when repeated", Once);
  require(arecipe::support::isValidUtf8(arecipe::support::sanitizeUtf8(Text)),
          "a sanitised text that is not UTF-8", std::string(Text));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  checkText(Text);
  PlanLoadResult R = parseLaunchPlan(Text, 50);
  if (!R.ok()) {
    for (const PlanError &E : R.Errors)
      require(!E.Message.empty(), "an error without a message", E.Path);
    require(R.Errors.size() <= 50, "more errors than the limit", std::to_string(R.Errors.size()));
    return 0;
  }
  require(nestingDepth(Text) <= 64, "a plan nested deeper than 64 levels",
          std::to_string(nestingDepth(Text)));
  checkAccepted(R.Plan);
  // The copy written to OUT/plan.json: redacted field by field, still JSON.
  std::string Copy = redactPlanText(std::string(Text));
  require(arecipe::support::parseJsonOrNull(Copy).has_value(), "a plan copy that is not JSON",
          Copy);
  return 0;
}
