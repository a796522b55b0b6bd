//===- FixedWorkload.cpp - Fixed ISL/OSL random-prompt workload -----------===//
//
// Warm-up first (closed loop at the workload's concurrency), then the measured
// requests, either closed loop (C lanes, each sending its next request the
// moment the previous one ends) or open loop (Poisson or constant arrivals,
// optionally capped at C in flight; a capped request waits in a queue and
// that wait is part of its latency because it is timed from its arrival).
//
//===----------------------------------------------------------------------===//

#include "WorkloadDriver.h"

#include "arecipe/Client/PromptText.h"
#include "arecipe/Client/TokenPrompts.h"

#include <cmath>
#include <deque>
#include <stdexcept>

using namespace arecipe::client;
using namespace arecipe::client::detail;

namespace {
struct Prepared {
  std::string Body;
  int64_t InputTokens, OutputTokens, ClientTokens;
};

class FixedDriver : public Driver {
public:
  FixedDriver(const WorkloadSpec &Spec, const Endpoint &Target, RecordSink &Sink,
              ProgressCallback OnProgress, EventLoop &Loop)
      : Driver(Spec, Target, Sink, std::move(OnProgress), Loop),
        W(std::get<FixedWorkload>(Spec.Kind)) {
    bool Open = W.Arrival != ArrivalMode::ClosedLoop;
    if (!Open && Spec.Concurrency < 1)
      throw std::invalid_argument("a closed-loop workload needs concurrency >= 1");
    if (Open && !(W.RequestRate > 0))
      throw std::invalid_argument("an open-loop workload needs a request rate > 0");
    if (W.RangeRatio < 0 || W.RangeRatio > 1 ||
        (W.Rule == LengthRule::Around && W.RangeRatio == 1))
      throw std::invalid_argument(W.Rule == LengthRule::Around
                                      ? "range ratio must be in [0, 1) under the around rule"
                                      : "range ratio must be in [0, 1] under the below rule");
    NumMeasured = fixedMeasuredRequests(W, Spec.Concurrency);
    if (NumMeasured < 1)
      throw std::invalid_argument("an uncapped open-loop workload needs a number of prompts");
    NumWarmup = fixedWarmupRequests(W, Spec.Concurrency);
    prepare();
  }

  void start() override {
    if (NumWarmup == 0) {
      startMeasured();
      return;
    }
    int Lanes = std::max(1, Spec.Concurrency);
    for (int L = 0; L < Lanes && Cursor < NumWarmup; ++L)
      closedLoopNext(L, NumWarmup, Phase::Warmup, monotonicNowNs());
  }

private:
  // Bodies are built before the run so no prompt synthesis sits between a
  // request's scheduled and actual send time.
  void prepare() {
    auto [InLo, InHi] = lengthRange(W.InputTokens, W.RangeRatio, W.Rule);
    auto [OutLo, OutHi] = lengthRange(W.OutputTokens, W.RangeRatio, W.Rule);
    if (W.Prompt == PromptMode::TokenIds && Target.Api != ApiKind::Completions)
      throw std::invalid_argument("prompt mode 'token_ids' needs the completions API");
    std::string Err;
    std::unique_ptr<PromptBuilder> Builder =
        PromptBuilder::create(W.Prompt, W.TokenizerPath, W.VocabSize, Err);
    if (!Builder)
      throw std::invalid_argument(Err);
    bool Chat = Target.Api == ApiKind::Chat;
    // The chat template's tokens are the server's; the client counts the rest.
    Slack = Chat ? ChatTemplateSlack : 0;
    SplitMix64 R(Spec.Seed);
    std::vector<Message> Messages;
    Requests.reserve(size_t(NumWarmup + NumMeasured));
    for (int64_t I = 0; I < NumWarmup + NumMeasured; ++I) {
      Prepared P;
      P.InputTokens = R.between(InLo, InHi);
      P.OutputTokens = R.between(OutLo, OutHi);
      PromptBuilder::Prompt Prompt = Builder->build(R.next(), P.InputTokens, Chat);
      P.ClientTokens = Prompt.ClientTokens;
      if (W.Prompt == PromptMode::TokenIds) {
        P.Body = tokenIdsRequestBody(Target, Prompt.Ids, P.OutputTokens, W.IgnoreEos);
      } else {
        // Moved in: a braced list would copy the prompt once more.
        Messages.clear();
        Messages.push_back(Message{true, std::move(Prompt.Text)});
        P.Body = requestBody(Target, Messages, P.OutputTokens, W.IgnoreEos);
      }
      Requests.push_back(std::move(P));
    }
  }

  void sendIndex(int64_t Index, Phase Ph, int Lane, int64_t ScheduledNs, Then After) {
    RequestRecord Rec;
    Rec.RequestPhase = Ph;
    Rec.Lane = Lane;
    Rec.ScheduledNs = ScheduledNs;
    Rec.ExpectedInputTokens = Requests[Index].InputTokens;
    Rec.MaxOutputTokens = Requests[Index].OutputTokens;
    Rec.ClientInputTokens = Requests[Index].ClientTokens;
    Rec.InputTokenSlack = Slack;
    Rec.ExpectExactOutput = W.IgnoreEos;
    send(std::move(Requests[Index].Body), std::move(Rec), {}, std::move(After));
  }

  // Sends the next request of [Cursor, End) on Lane; chains itself.
  void closedLoopNext(int Lane, int64_t End, Phase Ph, int64_t ScheduledNs) {
    if (Cursor >= End)
      return;
    ++Outstanding;
    sendIndex(Cursor++, Ph, Lane, ScheduledNs, [this, Lane, End, Ph](const RequestRecord &R) {
      --Outstanding;
      WarmupFailures += Ph == Phase::Warmup && !R.ok();
      if (Cursor < End) {
        closedLoopNext(Lane, End, Ph, monotonicNowNs());
      } else if (Outstanding == 0) {
        if (Ph == Phase::Warmup && WarmupFailures == NumWarmup)
          abort("every warm-up request failed");
        else if (Ph == Phase::Warmup)
          startMeasured();
        else
          endWindow();
      }
    });
  }

  void startMeasured() {
    beginWindow();
    int64_t End = NumWarmup + NumMeasured;
    int64_t Now = monotonicNowNs();
    if (W.Arrival == ArrivalMode::ClosedLoop) {
      for (int L = 0; L < Spec.Concurrency && Cursor < End; ++L)
        closedLoopNext(L, End, Phase::Measured, Now);
      return;
    }
    ArrivalBaseNs = Now;
    NextArrival = NumWarmup;
    scheduleNextArrival();
  }

  // One timer per arrival, armed when the previous one fires: memory stays
  // constant however many prompts an open-loop run has, and the schedule is
  // the same seeded sequence of gaps.
  void scheduleNextArrival() {
    if (NextArrival >= NumWarmup + NumMeasured)
      return;
    int64_t I = NextArrival++;
    int64_t At = ArrivalBaseNs + int64_t(ArrivalT * 1e9);
    ArrivalT += W.Arrival == ArrivalMode::Poisson
                    ? -std::log(1.0 - ArrivalRng.uniform()) / W.RequestRate
                    : 1.0 / W.RequestRate;
    Loop.at(At, [this, I, At] {
      scheduleNextArrival();
      arrive(I, At);
    });
  }

  void arrive(int64_t Index, int64_t ScheduledNs) {
    if (Spec.Concurrency > 0 && Outstanding >= Spec.Concurrency) {
      Queue.push_back({Index, ScheduledNs});
      return;
    }
    openLoopSend(Index, ScheduledNs);
  }

  void openLoopSend(int64_t Index, int64_t ScheduledNs) {
    ++Outstanding;
    sendIndex(Index, Phase::Measured, -1, ScheduledNs, [this](const RequestRecord &) {
      --Outstanding;
      ++OpenFinished;
      if (!Queue.empty()) {
        auto [Next, At] = Queue.front();
        Queue.pop_front();
        openLoopSend(Next, At);
      } else if (OpenFinished == NumMeasured) {
        endWindow();
      }
    });
  }

  const FixedWorkload &W;
  int64_t NumMeasured = 0, NumWarmup = 0;
  std::vector<Prepared> Requests;
  int64_t Slack = 0;
  int64_t Cursor = 0;
  int Outstanding = 0;
  int64_t WarmupFailures = 0;
  int64_t OpenFinished = 0;
  std::deque<std::pair<int64_t, int64_t>> Queue;
  SplitMix64 ArrivalRng{Spec.Seed ^ 0xa11a1ULL};
  double ArrivalT = 0;
  int64_t ArrivalBaseNs = 0, NextArrival = 0;
};
} // namespace

int64_t arecipe::client::fixedWarmupRequests(const FixedWorkload &W,
                                             int Concurrency) {
  return W.WarmupRequests >= 0 ? W.WarmupRequests : 2 * int64_t(Concurrency);
}

int64_t arecipe::client::fixedMeasuredRequests(const FixedWorkload &W,
                                               int Concurrency) {
  return W.NumPrompts > 0 ? W.NumPrompts : 10 * int64_t(Concurrency);
}

std::unique_ptr<Driver> detail::makeFixedDriver(const WorkloadSpec &Spec, const Endpoint &Target,
                                                RecordSink &Sink, ProgressCallback OnProgress,
                                                EventLoop &Loop) {
  return std::make_unique<FixedDriver>(Spec, Target, Sink, std::move(OnProgress), Loop);
}
