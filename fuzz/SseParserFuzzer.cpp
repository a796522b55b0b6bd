//===- SseParserFuzzer.cpp - libFuzzer target over the response path -----===//
//
// The client's response path, framing and events, must give the same result
// however the socket splits the bytes. The first input byte picks a chunking
// and, with its top bit, a small SSE line cap (so the over-long-line path is
// exercised too); the rest is the body. It is parsed twice by the SSE
// parser and twice by the HTTP/1.1 response parser, once whole and once in
// those chunks, and the event sequences (name, data, id), the pending byte
// counts and the overflow flag, respectively the framing outcome (head,
// body, error, bytes consumed), must be identical. A difference, a crash or
// a sanitizer report is a bug.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/HttpResponse.h"
#include "arecipe/Client/SseParser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {
using arecipe::client::HttpResponseHead;
using arecipe::client::HttpResponseParser;
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
  bool Overflowed = false;
};

// Calls Feed on Body whole (Seed 0) or in chunk sizes cycling through
// 1..Seed%16+1, so CR/LF pairs, field names and data are split at every
// offset somewhere in the corpus. Stops when Feed consumes less than given.
template <typename Fn> void split(std::string_view Body, unsigned Seed, Fn &&Feed) {
  if (Seed == 0) {
    Feed(Body);
    return;
  }
  size_t Pos = 0, Step = 1, Max = Seed % 16 + 1;
  while (Pos < Body.size()) {
    size_t N = std::min(Step, Body.size() - Pos);
    if (!Feed(Body.substr(Pos, N)))
      return;
    Pos += N;
    Step = Step % Max + 1;
  }
  Feed(std::string_view());
}

Run parseSse(std::string_view Body, unsigned Seed, size_t Cap) {
  Run R;
  SseParser P(
      [&](const SseEvent &E) {
        R.Events.push_back({std::string(E.Name), std::string(E.Data), std::string(E.Id)});
      },
      Cap);
  split(Body, Seed, [&](std::string_view B) {
    P.feed(B);
    return true;
  });
  R.Pending = P.pendingBytes();
  R.Count = P.eventCount();
  R.Overflowed = P.overflowed();
  return R;
}

struct Framing : HttpResponseParser::Handler {
  int Heads = 0, Status = 0;
  bool KeepAlive = false;
  std::string Body;
  void onHead(const HttpResponseHead &H) override {
    ++Heads;
    Status = H.Status;
    KeepAlive = H.KeepAlive;
  }
  bool onBody(std::string_view B) override {
    Body.append(B);
    return true;
  }
};

struct HttpRun {
  Framing F;
  bool Done = false, Failed = false;
  std::string Error;
  size_t Consumed = 0;
  bool operator==(const HttpRun &O) const {
    // After an error the parser stops wherever it noticed; what it had
    // consumed by then is not part of the result.
    return F.Heads == O.F.Heads && F.Status == O.F.Status && F.KeepAlive == O.F.KeepAlive &&
           F.Body == O.F.Body && Done == O.Done && Failed == O.Failed && Error == O.Error &&
           (Failed || Consumed == O.Consumed);
  }
};

HttpRun parseHttp(std::string_view Body, unsigned Seed) {
  HttpRun R;
  HttpResponseParser P(256);
  split(Body, Seed, [&](std::string_view B) {
    size_t Used = P.feed(B, R.F);
    R.Consumed += Used;
    return Used == B.size();
  });
  P.eof(R.F);
  R.Done = P.done();
  R.Failed = P.failed();
  R.Error = P.error();
  return R;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  unsigned Seed = (Data[0] & 0x7f) | 1u;
  size_t Cap = Data[0] & 0x80 ? 1 + Data[0] % 32 : SseParser::DefaultMaxLineBytes;
  std::string_view Body(reinterpret_cast<const char *>(Data + 1), Size - 1);
  Run Whole = parseSse(Body, 0, Cap);
  Run Split = parseSse(Body, Seed, Cap);
  if (Whole.Count != Whole.Events.size() || !(Whole.Events == Split.Events) ||
      Whole.Pending != Split.Pending || Whole.Overflowed != Split.Overflowed) {
    std::fprintf(stderr,
                 "SSE parse depends on chunking: %zu vs %zu events, %zu vs %zu pending, "
                 "overflow %d vs %d\n",
                 Whole.Events.size(), Split.Events.size(), Whole.Pending, Split.Pending,
                 Whole.Overflowed, Split.Overflowed);
    std::abort();
  }
  HttpRun HttpWhole = parseHttp(Body, 0);
  HttpRun HttpSplit = parseHttp(Body, Seed);
  if (!(HttpWhole == HttpSplit)) {
    std::fprintf(stderr,
                 "HTTP framing depends on chunking: done %d/%d, failed %d/%d ('%s' / '%s'), "
                 "consumed %zu/%zu, body %zu/%zu bytes\n",
                 HttpWhole.Done, HttpSplit.Done, HttpWhole.Failed, HttpSplit.Failed,
                 HttpWhole.Error.c_str(), HttpSplit.Error.c_str(), HttpWhole.Consumed,
                 HttpSplit.Consumed, HttpWhole.F.Body.size(), HttpSplit.F.Body.size());
    std::abort();
  }
  return 0;
}
