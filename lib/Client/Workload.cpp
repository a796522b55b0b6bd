//===- Workload.cpp - Workload entry point and shared driver machinery ----===//

#include "WorkloadDriver.h"

#include "CurlLibrary.h"
#include "TransportImpl.h"

#include "arecipe/Support/JsonWriter.h"
#include "arecipe/Support/Utf8.h"

#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>

using namespace arecipe::client;
using namespace arecipe::client::detail;
using nlohmann::json;
namespace support = arecipe::support;

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

// Request bodies are written with the streaming writer rather than built as
// a DOM and dumped: every body of a fixed run is prepared before it starts,
// and a DOM per body (a copy of the prompt, a tree of nodes, nlohmann's
// escaping) cost more than synthesising the prompt. The bytes are those of
// nlohmann's dump() of a `json` object, whose std::map keeps keys sorted,
// so the members are written in sorted order.

// Members sorted after "max_tokens" and "messages"/"model"/"prompt".
static std::string finishBody(support::JsonWriter &W) {
  W.key("stream");
  W.boolean(true);
  W.key("stream_options");
  W.beginObject();
  W.key("include_usage");
  W.boolean(true);
  W.endObject();
  W.key("temperature");
  W.number(int64_t(0));
  W.endObject();
  return std::string(W.text());
}

// Members sorted before "messages"/"model"/"prompt".
static void beginBody(support::JsonWriter &W, int64_t MaxTokens, bool IgnoreEos) {
  W.beginObject();
  if (IgnoreEos) {
    W.key("ignore_eos");
    W.boolean(true);
  }
  W.key("max_tokens");
  W.number(MaxTokens);
}

// nlohmann's dump() throws on invalid UTF-8 where the writer replaces it; a
// body holding any keeps that behaviour (the run fails with its message)
// rather than sending text the workload did not ask for.
static void checkUtf8(std::string_view Text) {
  if (!support::isValidUtf8(Text))
    (void)json(std::string(Text)).dump();
}

std::string detail::requestBody(const Endpoint &Target, const std::vector<Message> &Messages,
                                int64_t MaxTokens, bool IgnoreEos) {
  checkUtf8(Target.Model);
  for (const Message &M : Messages)
    checkUtf8(M.Text);
  support::JsonWriter W(/*Indent=*/-1);
  beginBody(W, MaxTokens, IgnoreEos);
  if (Target.Api == ApiKind::Chat) {
    W.key("messages");
    W.beginArray();
    for (const Message &M : Messages) {
      W.beginObject();
      W.member("content", M.Text);
      W.member("role", M.FromUser ? "user" : "assistant");
      W.endObject();
    }
    W.endArray();
    W.member("model", Target.Model);
  } else {
    W.member("model", Target.Model);
    std::string Prompt;
    if (Messages.size() == 1) {
      W.member("prompt", Messages.front().Text);
    } else {
      for (const Message &M : Messages) {
        if (!Prompt.empty())
          Prompt.push_back(' ');
        Prompt += M.Text;
      }
      W.member("prompt", Prompt);
    }
  }
  return finishBody(W);
}

std::string detail::tokenIdsRequestBody(const Endpoint &Target,
                                        const std::vector<uint32_t> &PromptIds, int64_t MaxTokens,
                                        bool IgnoreEos) {
  checkUtf8(Target.Model);
  support::JsonWriter W(/*Indent=*/-1);
  beginBody(W, MaxTokens, IgnoreEos);
  W.member("model", Target.Model);
  W.key("prompt");
  W.beginArray();
  for (uint32_t Id : PromptIds)
    W.number(uint64_t(Id));
  W.endArray();
  return finishBody(W);
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

bool arecipe::client::checkRunTransport(const WorkloadSpec &Spec,
                                        const Endpoint &Target,
                                        std::string &Err) {
  // The request paths all go to BaseUrl's scheme and authority, which alone
  // decide between the native path and libcurl.
  ParsedUrl Url;
  if (!Spec.Transport.ForceLibcurl && parseHttpUrl(Target.BaseUrl + "/", Url))
    return true;
  std::string Why;
  if (detail::curlLibrary(Why))
    return true;
  // Why is the loader's message, which names the file; the URL is left
  // out, as it may hold credentials.
  Err = std::string("cannot load libcurl, which ") +
        (Spec.Transport.ForceLibcurl ? "the transport options ask for"
                                     : "requests to a server URL that is "
                                       "https:// or has credentials need") +
        ": " + Why;
  return false;
}

RunResult arecipe::client::runWorkload(const WorkloadSpec &Spec, const Endpoint &Target,
                                       RecordSink &Sink, ProgressCallback OnProgress) {
  if (Spec.Concurrency < 0)
    throw std::invalid_argument("concurrency must not be negative");
  if (std::string Err; !checkRunTransport(Spec, Target, Err))
    throw std::runtime_error(Err);
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
