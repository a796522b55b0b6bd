//===- AgenticWorkload.cpp - Multi-turn agentic trace replay --------------===//
//
// C lanes, each replaying one session at a time. A lane's first session starts
// at a turn drawn uniformly from 25-75 % of its length; the turn before it is
// sent first as warm-up (with the full history, priming the prefix cache), and
// the measured window opens when every lane's warm-up has finished, so all
// lanes enter steady state together. Every turn resends the whole history;
// replies in the history are the recorded lengths, synthesised
// deterministically, so the prefix is identical from turn to turn. A session
// carries one X-Session-ID and a cache-bust marker that keeps two lanes
// replaying the same trace session from sharing cache. After the duration no
// new turn starts; requests in flight are measured to completion, or
// cancelled after the drain timeout.
//
//===----------------------------------------------------------------------===//

#include "WorkloadDriver.h"

#include "arecipe/Client/PromptText.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>

using namespace arecipe::client;
using namespace arecipe::client::detail;

namespace {
uint64_t hashString(std::string_view S) {
  uint64_t H = 1469598103934665603ULL; // FNV-1a
  for (char C : S)
    H = (H ^ uint8_t(C)) * 1099511628211ULL;
  return H;
}

/// One live conversation: a root session on a lane, or a sub-agent.
struct Conversation {
  const TraceSession *Session = nullptr;
  std::string SessionId; ///< sent in the session header
  std::string Marker;    ///< cache-bust marker, prefixed to the first message
  uint64_t ReplySeed = 0;
  std::vector<Message> History;
  size_t NextTurn = 0;
  int Lane = 0;
  int PendingSubagents = 0;
  Conversation *Parent = nullptr;
  std::vector<std::unique_ptr<Conversation>> Children;
};

class AgenticDriver : public Driver {
public:
  AgenticDriver(const WorkloadSpec &Spec, const Endpoint &Target, RecordSink &Sink,
                ProgressCallback OnProgress, EventLoop &Loop)
      : Driver(Spec, Target, Sink, std::move(OnProgress), Loop),
        W(std::get<AgenticWorkload>(Spec.Kind)), R(Spec.Seed) {
    if (Spec.Concurrency < 1)
      throw std::invalid_argument("an agentic workload needs concurrency >= 1");
    if (W.Sessions.empty())
      throw std::invalid_argument("an agentic workload needs at least one session");
    if (!(W.DurationS > 0))
      throw std::invalid_argument("an agentic workload needs a duration > 0");
    // Lanes draw sessions from a seeded shuffle of the trace, wrapping around.
    for (size_t I = 0; I < W.Sessions.size(); ++I)
      Order.push_back(I);
    for (size_t I = Order.size(); I > 1; --I)
      std::swap(Order[I - 1], Order[R.next() % I]);
    Lanes.resize(Spec.Concurrency);
  }

  void start() override {
    for (int L = 0; L < Spec.Concurrency; ++L) {
      Conversation &C = newRootConversation(L);
      size_t N = C.Session->Turns.size();
      size_t Lo = size_t(std::ceil(W.StartMinRatio * double(N)));
      size_t Hi = size_t(std::floor(W.StartMaxRatio * double(N)));
      size_t StartTurn = Lo <= Hi ? size_t(R.between(int64_t(Lo), int64_t(Hi))) : N / 2;
      StartTurn = std::min(StartTurn, N - 1);
      // History up to the warm-up turn; the warm-up turn itself goes on the
      // wire, the measured window resumes at StartTurn.
      for (size_t T = 0; T + 1 < StartTurn; ++T)
        appendTurn(C, T);
      C.NextTurn = StartTurn == 0 ? 0 : StartTurn - 1;
      if (StartTurn == 0)
        continue;
      ++WarmupsPending;
      PreparedTurn P = prepareTurn(C, Phase::Warmup, monotonicNowNs());
      sendTurn(C, std::move(P), [this](const RequestRecord &Rec) {
        WarmupFailures += !Rec.ok();
        if (--WarmupsPending == 0)
          startWindow();
      });
    }
    if (WarmupsPending == 0)
      startWindow();
  }

private:
  Conversation &newRootConversation(int Lane) {
    auto C = std::make_unique<Conversation>();
    C->Session = &W.Sessions[Order[NextSession % Order.size()]];
    uint64_t Instance = NextSession++;
    C->SessionId = (C->Session->Id.empty() ? "session" : C->Session->Id) + "#" +
                   std::to_string(Instance);
    C->Marker = cacheBustMarker(Spec.Seed * 0x9e3779b97f4a7c15ULL + Instance);
    C->ReplySeed = hashString(C->Session->Id);
    C->Lane = Lane;
    if (Lanes[Lane]) {
      // The finished conversation may still be on the call stack (its last
      // response's callback); free it from the loop instead.
      Retired.push_back(std::move(Lanes[Lane]));
      Loop.at(0, [this] { Retired.clear(); });
    }
    Lanes[Lane] = std::move(C);
    return *Lanes[Lane];
  }

  /// Appends turn T's input and its recorded reply to the history.
  void appendTurn(Conversation &C, size_t T) {
    appendInput(C, T);
    const TraceTurn &Turn = C.Session->Turns[T];
    std::string Reply;
    appendReplyWords(C.ReplySeed * 31 + T, Turn.OutputTokens, Reply);
    C.History.push_back(Message{false, std::move(Reply)});
  }

  void appendInput(Conversation &C, size_t T) {
    const TraceTurn &Turn = C.Session->Turns[T];
    std::string Text;
    if (C.History.empty())
      Text = C.Marker;
    int64_t Left = Turn.InputTokens;
    for (uint64_t Block : Turn.HashIds) {
      appendBlockWords(Block, std::min<int64_t>(Left, BlockTokens), Text);
      Left -= BlockTokens;
    }
    C.History.push_back(Message{true, std::move(Text)});
  }

  int64_t historyTokens(const Conversation &C) const {
    int64_t N = 0;
    for (const Message &M : C.History)
      N += int64_t(std::count(M.Text.begin(), M.Text.end(), ' ')) + (M.Text.empty() ? 0 : 1);
    return N;
  }

  /// A turn ready to go on the wire: built before its scheduled time, so
  /// history serialisation never delays the send.
  struct PreparedTurn {
    std::string Body;
    RequestRecord Record;
  };

  PreparedTurn prepareTurn(Conversation &C, Phase Ph, int64_t ScheduledNs) {
    size_t T = C.NextTurn;
    const TraceTurn &Turn = C.Session->Turns[T];
    appendInput(C, T);
    PreparedTurn P;
    RequestRecord &Rec = P.Record;
    Rec.RequestPhase = Ph;
    Rec.Lane = C.Lane;
    Rec.SessionId = C.SessionId;
    Rec.Turn = int(T);
    Rec.ScheduledNs = ScheduledNs;
    Rec.ExpectedInputTokens = historyTokens(C);
    Rec.MaxOutputTokens = Turn.OutputTokens;
    P.Body = requestBody(Target, C.History, Turn.OutputTokens, /*IgnoreEos=*/true);
    // The reply joins the history as recorded, whatever the server said, so
    // the next turn's prefix does not depend on this response.
    C.History.pop_back();
    appendTurn(C, T);
    ++C.NextTurn;
    return P;
  }

  void sendTurn(Conversation &C, PreparedTurn P, Then After) {
    send(std::move(P.Body), std::move(P.Record), {W.SessionHeader + ": " + C.SessionId},
         std::move(After));
  }

  void startWindow() {
    if (WarmupFailures > 0 && WarmupFailures == Spec.Concurrency) {
      abort("every warm-up request failed");
      return;
    }
    beginWindow();
    WindowDeadlineNs = monotonicNowNs() + int64_t(W.DurationS * 1e9);
    Loop.at(WindowDeadlineNs, [this] { durationReached(); });
    for (auto &C : Lanes)
      step(*C, monotonicNowNs());
  }

  void durationReached() {
    if (Active == 0) {
      endWindow();
      return;
    }
    Loop.at(monotonicNowNs() + int64_t(W.DrainTimeoutS * 1e9), [this] {
      Loop.cancelAll();
      endWindow();
    });
  }

  double thinkTime(const TraceTurn &T) const {
    return W.MaxThinkS >= 0 ? std::min(T.ThinkTimeS, W.MaxThinkS) : T.ThinkTimeS;
  }

  /// Sends C's next turn at ScheduledNs, or finishes the conversation.
  void step(Conversation &C, int64_t ScheduledNs) {
    if (C.NextTurn >= C.Session->Turns.size()) {
      conversationDone(C);
      return;
    }
    auto Prepared = std::make_shared<PreparedTurn>(prepareTurn(C, Phase::Measured, ScheduledNs));
    auto Send = [this, &C, Prepared] {
      if (monotonicNowNs() >= WindowDeadlineNs)
        return;
      ++Active;
      sendTurn(C, std::move(*Prepared), [this, &C](const RequestRecord &) {
        --Active;
        if (monotonicNowNs() >= WindowDeadlineNs) {
          if (Active == 0)
            endWindow();
          return;
        }
        afterTurn(C);
      });
    };
    if (ScheduledNs <= monotonicNowNs())
      Send();
    else
      Loop.at(ScheduledNs, Send);
  }

  void afterTurn(Conversation &C) {
    const TraceTurn &Done = C.Session->Turns[C.NextTurn - 1];
    if (!Done.Subagents.empty() && !C.Parent) {
      C.Children.clear();
      C.PendingSubagents = int(Done.Subagents.size());
      for (size_t I = 0; I < Done.Subagents.size(); ++I) {
        auto Sub = std::make_unique<Conversation>();
        Sub->Session = &Done.Subagents[I];
        Sub->SessionId = C.SessionId + "/sub" + std::to_string(C.NextTurn - 1) + "." +
                         std::to_string(I);
        Sub->Marker = cacheBustMarker(hashString(Sub->SessionId) ^ Spec.Seed);
        Sub->ReplySeed = hashString(C.Session->Id + "/" + std::to_string(C.NextTurn - 1) + "." +
                                    std::to_string(I));
        Sub->Lane = C.Lane;
        Sub->Parent = &C;
        C.Children.push_back(std::move(Sub));
      }
      for (auto &Sub : C.Children)
        step(*Sub, monotonicNowNs());
      return;
    }
    continueAfterThink(C);
  }

  void continueAfterThink(Conversation &C) {
    int64_t Now = monotonicNowNs();
    if (C.NextTurn >= C.Session->Turns.size()) {
      step(C, Now);
      return;
    }
    double Think = thinkTime(C.Session->Turns[C.NextTurn]);
    step(C, Now + int64_t(Think * 1e9));
  }

  void conversationDone(Conversation &C) {
    if (Conversation *P = C.Parent) {
      if (--P->PendingSubagents == 0)
        continueAfterThink(*P);
      return;
    }
    // The lane moves on to its next session from the first turn.
    Conversation &Next = newRootConversation(C.Lane);
    step(Next, monotonicNowNs());
  }

  const AgenticWorkload &W;
  SplitMix64 R;
  std::vector<size_t> Order;
  size_t NextSession = 0;
  std::vector<std::unique_ptr<Conversation>> Lanes;
  std::vector<std::unique_ptr<Conversation>> Retired;
  int WarmupsPending = 0, WarmupFailures = 0;
  int64_t WindowDeadlineNs = 0;
  int Active = 0;
};
} // namespace

std::unique_ptr<Driver> detail::makeAgenticDriver(const WorkloadSpec &Spec,
                                                  const Endpoint &Target, RecordSink &Sink,
                                                  ProgressCallback OnProgress, EventLoop &Loop) {
  return std::make_unique<AgenticDriver>(Spec, Target, Sink, std::move(OnProgress), Loop);
}
