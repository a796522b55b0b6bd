//===- StepProfiler.cpp - /start_profile and /stop_profile traces ---------===//
#include "StepProfiler.h"
#include "arecipe/Support/AtomicFile.h"

#include <filesystem>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace arecipe::sim {

void StepProfiler::start(double Now) {
  Profiling = true;
  ProfileStart = Now;
  Trace.clear();
}

std::string StepProfiler::stop(double Now, const std::string &Dir,
                               const char *Engine, double TimeScale) {
  Profiling = false;
  json Events = json::array();
  for (const TraceStep &S : Trace)
    Events.push_back({{"name", "engine_step"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", 0},
                      {"ts", S.Start * 1e6},
                      {"dur", S.Seconds * 1e6},
                      {"args",
                       {{"rows", S.Rows},
                        {"decode_sequences", S.DecodeSequences},
                        {"prefill_tokens", S.PrefillTokens}}}});
  json Doc = {{"traceEvents", Events},
              {"otherData",
               {{"generator", "arecipe-sim"},
                {"engine", Engine},
                {"time_scale", TimeScale},
                {"simulated_start_s", ProfileStart},
                {"simulated_stop_s", Now}}}};
  std::error_code Ec;
  fs::create_directories(Dir, Ec);
  std::string Path =
      (fs::path(Dir) /
       fmt::format("arecipe-sim-trace-{}-{}.json", getpid(), ++TraceFiles))
          .string();
  std::string Err;
  return support::writeFileAtomically(Path, Doc.dump(), Err) ? Path : "";
}

} // namespace arecipe::sim
