//===- Workload.cpp - Workload entry point and shared driver machinery ----===//

#include "WorkloadDriver.h"

#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>

using namespace arecipe::client;
using namespace arecipe::client::detail;
using nlohmann::json;

std::pair<int64_t, int64_t> arecipe::client::lengthRange(int64_t Length, double RangeRatio,
                                                        LengthRule Rule) {
  // InferenceX's client: numpy randint(int(L * r), L + 1).
  if (Rule == LengthRule::Below)
    return {std::max<int64_t>(1, int64_t(std::floor(double(Length) * RangeRatio))),
            std::max<int64_t>(1, Length)};
  int64_t Lo = int64_t(std::floor(double(Length) * (1 - RangeRatio)));
  int64_t Hi = int64_t(std::floor(double(Length) * (1 + RangeRatio)));
  return {std::max<int64_t>(1, Lo), std::max<int64_t>(1, Hi)};
}

// The sampling and streaming fields every request carries.
static std::string finishBody(json &Body, int64_t MaxTokens, bool IgnoreEos) {
  Body["max_tokens"] = MaxTokens;
  Body["temperature"] = 0;
  if (IgnoreEos)
    Body["ignore_eos"] = true;
  Body["stream"] = true;
  Body["stream_options"] = {{"include_usage", true}};
  return Body.dump();
}

std::string detail::requestBody(const Endpoint &Target, const std::vector<Message> &Messages,
                                int64_t MaxTokens, bool IgnoreEos) {
  json Body;
  Body["model"] = Target.Model;
  if (Target.Api == ApiKind::Chat) {
    json List = json::array();
    for (const Message &M : Messages)
      List.push_back({{"role", M.FromUser ? "user" : "assistant"}, {"content", M.Text}});
    Body["messages"] = std::move(List);
  } else {
    std::string Prompt;
    for (const Message &M : Messages) {
      if (!Prompt.empty())
        Prompt.push_back(' ');
      Prompt += M.Text;
    }
    Body["prompt"] = std::move(Prompt);
  }
  return finishBody(Body, MaxTokens, IgnoreEos);
}

std::string detail::tokenIdsRequestBody(const Endpoint &Target,
                                        const std::vector<uint32_t> &PromptIds, int64_t MaxTokens,
                                        bool IgnoreEos) {
  json Body;
  Body["model"] = Target.Model;
  Body["prompt"] = PromptIds;
  return finishBody(Body, MaxTokens, IgnoreEos);
}

Driver::Driver(const WorkloadSpec &Spec, const Endpoint &Target, RecordSink &Sink,
               ProgressCallback OnProgress, EventLoop &Loop)
    : Spec(Spec), Target(Target), Loop(Loop), Sink(Sink), OnProgress(std::move(OnProgress)) {
  StartNs = monotonicNowNs();
  if (this->OnProgress)
    Loop.at(
        StartNs + 1000000000, [this] { reportProgress(); }, /*Precise=*/false);
  Loop.onStall([this](double IdleS, size_t InFlight) { stalled(IdleS, InFlight); });
}

void Driver::reportProgress() {
  if (Aborted || (!InWindow && Result.WindowEndNs))
    return;
  size_t Finished = 0, Failed = 0;
  for (const RequestRecord &R : Result.Records) {
    ++Finished;
    Failed += !R.ok();
  }
  OnProgress(Progress{InWindow ? "measured" : "warmup", Finished, Failed, Loop.inFlight(),
                      double(monotonicNowNs() - StartNs) / 1e9});
  Loop.at(
      monotonicNowNs() + 1000000000, [this] { reportProgress(); }, /*Precise=*/false);
}

void Driver::send(std::string Body, RequestRecord Record, std::vector<std::string> Headers,
                  Then After) {
  StreamRequest Req;
  Req.Url = Target.BaseUrl + (Target.Api == ApiKind::Chat ? "/v1/chat/completions"
                                                          : "/v1/completions");
  Req.Body = std::move(Body);
  Req.Headers = std::move(Headers);
  Req.Headers.push_back("Content-Type: application/json");
  Req.Headers.push_back("Accept: text/event-stream");
  for (const std::string &H : Target.ExtraHeaders)
    Req.Headers.push_back(H);
  Record.Id = NextId++;
  if (Target.SequenceHeader)
    Req.Headers.push_back("X-Arecipe-Seq: " + std::to_string(Record.Id));
  Loop.stream(std::move(Req), std::move(Record), [this, After](RequestRecord &&R) {
    Sink.write(R);
    bool Measured = R.RequestPhase == Phase::Measured && R.Error != ErrorKind::Cancelled;
    Result.Records.push_back(std::move(R));
    const RequestRecord &Stored = Result.Records.back();
    if (Measured) {
      ++MeasuredFinished;
      MeasuredFailed += !Stored.ok();
      if (MeasuredFinished >= 10 &&
          double(MeasuredFailed) / double(MeasuredFinished) > Spec.FailedRequestThreshold)
        abort("failed-request threshold exceeded: " + std::to_string(MeasuredFailed) + " of " +
              std::to_string(MeasuredFinished) + " measured requests failed");
    }
    if (!Aborted && After)
      After(Stored);
  });
  Result.PeakInFlight = std::max(Result.PeakInFlight, Loop.inFlight());
}

static std::optional<MetricTotals> scrape(const Endpoint &Target, std::string &Err) {
  std::optional<std::string> Text =
      scrapeMetrics(Target.MetricsUrl, Err, 10000, Target.ExtraHeaders);
  if (!Text)
    return std::nullopt;
  return totalsByName(parsePrometheusText(*Text));
}

void Driver::beginWindow() {
  if (!Target.MetricsUrl.empty()) {
    StartMetrics = scrape(Target, Result.ServerMetricsError);
    if (!StartMetrics)
      Result.ServerMetricsError = "start scrape: " + Result.ServerMetricsError;
  }
  InWindow = true;
  Result.WindowStartNs = monotonicNowNs();
  Loop.startStats();
}

void Driver::endWindow() {
  if (!InWindow)
    return;
  InWindow = false;
  Result.WindowEndNs = monotonicNowNs();
  Result.ClientLoop = Loop.stopStats();
  if (StartMetrics && Result.Stalled) {
    // A server that stopped answering streams will not answer a scrape.
    Result.ServerMetricsError = "end scrape skipped: the server stalled";
  } else if (StartMetrics) {
    std::string Err;
    if (std::optional<MetricTotals> End = scrape(Target, Err))
      Result.Server = diffServerMetrics(*StartMetrics, *End, Spec.NumSpecTokens);
    else
      Result.ServerMetricsError = "end scrape: " + Err;
  }
  Loop.stop();
}

void Driver::abort(std::string Reason, ErrorKind Kind, const std::string &Message) {
  if (Aborted)
    return;
  Aborted = true;
  Result.Aborted = true;
  Result.AbortReason = std::move(Reason);
  Loop.failAll(Kind, Message);
  if (InWindow)
    endWindow();
  Loop.stop();
}

void Driver::stalled(double IdleS, size_t InFlight) {
  char Idle[32];
  std::snprintf(Idle, sizeof(Idle), "%.1f", IdleS);
  Result.Stalled = true;
  abort("stalled: no request made progress for " + std::string(Idle) + " s (" +
            std::to_string(InFlight) + " in flight)",
        ErrorKind::Stalled, "no request made progress for " + std::string(Idle) + " s");
}

namespace {
std::atomic<EventLoop *> ActiveLoop{nullptr};

double threadCpuSeconds() {
  rusage U;
  getrusage(RUSAGE_THREAD, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
}

// Each stream holds a socket; a default soft limit of 1024 descriptors would
// cap concurrency below what a benchmark asks for.
void raiseFileLimit() {
  rlimit L;
  if (getrlimit(RLIMIT_NOFILE, &L) == 0 && L.rlim_cur < L.rlim_max) {
    L.rlim_cur = L.rlim_max;
    setrlimit(RLIMIT_NOFILE, &L);
  }
}
} // namespace

void arecipe::client::interruptRunningWorkloads() {
  if (EventLoop *L = ActiveLoop.load())
    L->interrupt();
}

RunResult arecipe::client::runWorkload(const WorkloadSpec &Spec, const Endpoint &Target,
                                       RecordSink &Sink, ProgressCallback OnProgress) {
  if (Spec.Concurrency < 0)
    throw std::invalid_argument("concurrency must not be negative");
  raiseFileLimit();
  EventLoop Loop(Spec.Transport);
  std::unique_ptr<Driver> D =
      std::holds_alternative<FixedWorkload>(Spec.Kind)
          ? makeFixedDriver(Spec, Target, Sink, std::move(OnProgress), Loop)
          : makeAgenticDriver(Spec, Target, Sink, std::move(OnProgress), Loop);
  Loop.onInterrupt([&D] { D->interrupt(); });
  Loop.onIdle([&Sink] { Sink.flush(); });
  ActiveLoop.store(&Loop);
  double CpuBefore = threadCpuSeconds();
  D->start();
  Loop.run();
  Loop.cancelAll();
  Sink.flush();
  ActiveLoop.store(nullptr);
  RunResult R = std::move(D->result());
  R.ClientCpuSeconds = threadCpuSeconds() - CpuBefore;
  R.RealtimeError = Loop.realtimeError();
  return R;
}
