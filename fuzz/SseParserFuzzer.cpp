//===- SseParserFuzzer.cpp - libFuzzer target over the SSE parser ---------===//
//
// The parser must produce the same events however the socket splits the
// body. The first input byte picks a chunking; the rest is the body, fed
// once whole and once in those chunks, and the two event sequences (name,
// data, id) and the pending byte counts must be identical. A difference, a
// crash or a sanitizer report is a bug.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/SseParser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {
using arecipe::client::SseEvent;
using arecipe::client::SseParser;

struct Recorded {
  std::string Name, Data, Id;
  bool operator==(const Recorded &O) const {
    return Name == O.Name && Data == O.Data && Id == O.Id;
  }
};

struct Run {
  std::vector<Recorded> Events;
  size_t Pending = 0, Count = 0;
};

Run parse(std::string_view Body, unsigned Seed) {
  Run R;
  SseParser P([&](const SseEvent &E) {
    R.Events.push_back({std::string(E.Name), std::string(E.Data), std::string(E.Id)});
  });
  if (Seed == 0) {
    P.feed(Body);
  } else {
    // Chunk sizes cycle through 1..Seed%16+1, so CR/LF pairs, field names
    // and data are split at every offset somewhere in the corpus.
    size_t Pos = 0, Step = 1, Max = Seed % 16 + 1;
    while (Pos < Body.size()) {
      size_t N = std::min(Step, Body.size() - Pos);
      P.feed(Body.substr(Pos, N));
      Pos += N;
      Step = Step % Max + 1;
    }
    P.feed(std::string_view());
  }
  R.Pending = P.pendingBytes();
  R.Count = P.eventCount();
  return R;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  unsigned Seed = Data[0] | 1u;
  std::string_view Body(reinterpret_cast<const char *>(Data + 1), Size - 1);
  Run Whole = parse(Body, 0);
  Run Split = parse(Body, Seed);
  if (Whole.Count != Whole.Events.size() || !(Whole.Events == Split.Events) ||
      Whole.Pending != Split.Pending) {
    std::fprintf(stderr, "SSE parse depends on chunking: %zu vs %zu events, %zu vs %zu pending\n",
                 Whole.Events.size(), Split.Events.size(), Whole.Pending, Split.Pending);
    std::abort();
  }
  return 0;
}
