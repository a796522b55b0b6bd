//===- TraceFuzzer.cpp - libFuzzer target over the trace loader -----------===//
//
// Agentic traces are JSONL files from outside the project. The loader must
// report problems as "file:line: field: reason" and never crash, whatever
// the bytes (deep sub-agent nesting, huge numbers, invalid UTF-8). Accepted
// traces are written back with sessionToJsonLine and re-read: the result
// must be accepted again with the same shape, and the statistics must be
// computable.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/Trace.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
using namespace arecipe::client;

size_t countTurns(const std::vector<TraceSession> &Sessions) {
  size_t N = 0;
  for (const TraceSession &S : Sessions)
    for (const TraceTurn &T : S.Turns)
      N += 1 + countTurns(T.Subagents);
  return N;
}

[[noreturn]] void fail(const char *What, const std::string &Detail) {
  std::fprintf(stderr, "trace loader: %s: %s\n", What, Detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  TraceLoadResult R = parseTrace(Text, "fuzz.jsonl", 20);
  if (!R.ok()) {
    // At most 20 errors, then one "FILE: and N more errors" line (F14).
    auto IsMoreLine = [](const std::string &E) {
      return E.rfind("fuzz.jsonl: and ", 0) == 0 && E.find(" more error") != std::string::npos;
    };
    if (R.Errors.size() > 21 || (R.Errors.size() == 21 && !IsMoreLine(R.Errors.back())))
      fail("more errors than the limit", std::to_string(R.Errors.size()));
    for (size_t I = 0; I + 1 < R.Errors.size(); ++I)
      if (IsMoreLine(R.Errors[I]))
        fail("the 'and N more' line is not last", R.Errors[I]);
    for (const std::string &E : R.Errors)
      if (E.rfind("fuzz.jsonl", 0) != 0)
        fail("an error not labelled with the file", E);
    return 0;
  }
  (void)computeTraceStats(R.Sessions);
  std::string Again;
  for (const TraceSession &S : R.Sessions)
    Again += sessionToJsonLine(S) + "\n";
  TraceLoadResult R2 = parseTrace(Again, "again.jsonl", 20);
  if (!R2.ok())
    fail("a written trace does not load again", R2.Errors.front());
  if (R2.Sessions.size() != R.Sessions.size() ||
      countTurns(R2.Sessions) != countTurns(R.Sessions))
    fail("a written trace changed shape", Again);
  return 0;
}
