//===- HttpFrontEnd.cpp - The engine's HTTP API ---------------------------===//
#include "HttpFrontEnd.h"
#include "HttpUtil.h"

#include <charconv>
#include <ctime>

#include <event2/http.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

void HttpFrontEnd::reply(evhttp_request *Req, int Code, const std::string &Body,
                         const char *ContentType) {
  sendReply(Req, P.Loop.scratch(), Code, Body, ContentType);
}

long HttpFrontEnd::contextLimit() const {
  return Config.MaxModelLen ? Config.MaxModelLen
                            : P.Model.model().MaxContextTokens;
}

void HttpFrontEnd::route(evhttp_request *Req) {
  std::string_view Path = requestPath(Req);
  bool Post = isPost(Req);
  if (Path == "/health") {
    if (P.Startup.ready())
      reply(Req, 200, R"({"status":"ok"})");
    else
      reply(
          Req, 503,
          json({{"status", "starting"}, {"phase", P.Startup.phase()}}).dump());
  } else if (Path == "/v1/models") {
    reply(Req, 200, modelsJson());
  } else if (Path == "/v1/chat/completions" && Post) {
    handleCompletion(Req, true);
  } else if (Path == "/v1/completions" && Post) {
    handleCompletion(Req, false);
  } else if (Path == "/metrics") {
    reply(Req, 200, metricsText(), "text/plain; version=0.0.4; charset=utf-8");
  } else if ((Path == "/start_profile" || Path == "/stop_profile") && Post) {
    handleProfile(Req, Path == "/start_profile");
  } else if (Path == "/sim/info") {
    reply(Req, 200, infoJson());
  } else {
    reply(Req, 404,
          errorBody(fmt::format("no route {}", Path), "NotFoundError", 404));
  }
}

std::string HttpFrontEnd::modelsJson() const {
  json Card = {{"id", Config.servedName()},
               {"object", "model"},
               {"created", 0},
               {"owned_by", "arecipe-sim"},
               {"root", Config.Model},
               {"max_model_len", contextLimit()}};
  return json({{"object", "list"}, {"data", {Card}}})
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

void HttpFrontEnd::handleCompletion(evhttp_request *Req, bool Chat) {
  if (!P.Startup.ready()) {
    reply(Req, 503,
          errorBody("the engine is still starting", "ServiceUnavailableError",
                    503));
    return;
  }
  // Under --sim-clock virtual every request carries the client's sequence
  // number: requests of one virtual instant join the engine in that order.
  uint64_t Seq = 0;
  const bool Lockstep = P.Engine.lockstep();
  if (Lockstep) {
    std::string Value = requestHeader(Req, "X-Arecipe-Seq");
    auto [End, Ec] =
        std::from_chars(Value.data(), Value.data() + Value.size(), Seq);
    if (Value.empty() || Ec != std::errc() ||
        End != Value.data() + Value.size()) {
      reply(Req, 400,
            errorBody("--sim-clock virtual needs the client's sequence number "
                      "in the X-Arecipe-Seq header (a decimal integer); got '" +
                          Value + "'",
                      "BadRequestError", 400));
      return;
    }
  }
  auto Refused = [&] {
    if (Lockstep)
      rejectedInLockstep(Seq);
  };
  FaultInjector::Verdict Fault = P.Faults.arrive();
  if (Fault.HttpError) {
    Refused();
    ++Rejected;
    P.Log.warning(fmt::format("request {}: answering HTTP {} (fault http-5xx)",
                              Fault.Arrival, Fault.HttpError));
    reply(Req, Fault.HttpError,
          errorBody("simulated server error", "InternalServerError",
                    Fault.HttpError));
    return;
  }
  CompletionRequest Parsed;
  std::string Error, Param;
  if (!parseCompletionRequest(requestBody(Req), Chat, Parsed, Error, Param)) {
    Refused();
    reply(Req, 400, errorBody(Error, "BadRequestError", 400, Param));
    return;
  }
  if (!Parsed.Model.empty() && Parsed.Model != Config.servedName() &&
      Parsed.Model != Config.Model) {
    Refused();
    reply(Req, 404,
          errorBody(fmt::format("The model `{}` does not exist.", Parsed.Model),
                    "NotFoundError", 404, "model"));
    return;
  }
  CompletionAdmission Admit =
      admitCompletion(Parsed, contextLimit(), P.Options.DefaultMaxTokens);
  if (!Admit.Error.empty()) {
    Refused();
    reply(Req, 400,
          errorBody(Admit.Error, "BadRequestError", 400, Admit.Param));
    return;
  }
  long MaxTokens = Admit.MaxTokens;
  if (std::string Session = requestHeader(Req, "X-Session-ID");
      !Session.empty())
    Sessions.insert(Session);

  uint64_t Id = ++NextId;
  auto C = std::make_unique<Completion>(
      Chat, Id, Config.servedName(), static_cast<int64_t>(std::time(nullptr)));
  C->Req = Req;
  C->Stream = Parsed.Stream;
  C->IncludeUsage = Parsed.IncludeUsage;
  C->PromptTokens = Parsed.PromptTokens;
  C->MaxTokens = MaxTokens;
  if (C->Stream)
    C->Malformed = P.Faults.malformedStream();
  C->Reset = Fault.Reset;
  C->ArrivedAt = Lockstep ? P.Engine.virtualNow() : P.Clock.now();
  C->HasSeq = Lockstep;
  C->Seq = Seq;
  double ArrivedAt = C->ArrivedAt;
  P.Active.accept(std::move(C));
  P.Engine.submit(ArrivedAt,
                  {Id, Parsed.PromptTokens, std::move(Parsed.BlockHashes),
                   MaxTokens, Parsed.RemotePrefill},
                  Seq);
}

void HttpFrontEnd::rejectedInLockstep(uint64_t Seq) {
  double Now = P.Engine.virtualNow();
  P.Times.request(Seq, "rejected", Now, {}, Now);
  P.Times.flush();
  P.Engine.rejected();
}

void HttpFrontEnd::handleProfile(evhttp_request *Req, bool StartProfile) {
  std::string Dir = P.Options.ProfileDir;
  for (const char *Var : {"VLLM_TORCH_PROFILER_DIR", "ATOM_TORCH_PROFILER_DIR",
                          "SGLANG_TORCH_PROFILER_DIR"})
    if (Dir.empty() && std::getenv(Var))
      Dir = std::getenv(Var);
  if (Dir.empty())
    Dir = Config.ProfilerDir;
  if (Dir.empty()) {
    reply(Req, 400,
          errorBody("profiling is not enabled: pass --sim-profile-dir or set "
                    "VLLM_TORCH_PROFILER_DIR",
                    "BadRequestError", 400));
    return;
  }
  if (StartProfile) {
    P.Profiler.start(P.Clock.now());
    P.Log.info("Profiler started");
    reply(Req, 200, R"({"status":"profiling"})");
    return;
  }
  if (!P.Profiler.active()) {
    reply(Req, 400,
          errorBody("the profiler is not running", "BadRequestError", 400));
    return;
  }
  std::string Path = P.Profiler.stop(
      P.Clock.now(), Dir, engineName(Config.Engine), P.Clock.scale());
  if (Path.empty()) {
    reply(Req, 500,
          errorBody("cannot write the trace", "InternalServerError", 500));
    return;
  }
  P.Log.info(fmt::format("Profiler stopped: trace written to {}", Path));
  reply(Req, 200,
        json({{"traces", {Path}}})
            .dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string HttpFrontEnd::metricsText() const {
  const std::string Prefix = metricPrefix(Config.Engine);
  const Scheduler &Sched = P.Engine.scheduler();
  const SchedulerStats &S = Sched.stats();
  std::string Label = json(Config.servedName())
                          .dump(-1, ' ', false, json::error_handler_t::replace);
  std::string Out;
  auto Metric = [&](const char *Name, const char *Type, const char *Help,
                    double Value) {
    Out += fmt::format("# HELP {0}{1} {2}\n# TYPE {0}{1} {3}\n"
                       "{0}{1}{{model_name={4}}} {5}\n",
                       Prefix, Name, Help, Type, Label, Value);
  };
  Metric("num_requests_running", "gauge", "Requests in the running batch.",
         double(Sched.runningCount()));
  Metric("num_requests_waiting", "gauge", "Requests waiting to be scheduled.",
         double(Sched.waitingCount()));
  Metric("kv_cache_usage_perc", "gauge", "GPU KV-cache usage (1 = full).",
         Sched.kvUsage());
  Metric("prefix_cache_queries_total", "counter",
         "Prompt tokens looked up in the prefix cache.",
         double(S.PrefixQueriedTokens));
  Metric("prefix_cache_hits_total", "counter",
         "Prompt tokens served from the prefix cache.",
         double(S.PrefixHitTokens));
  Metric("external_prefix_cache_hits_total", "counter",
         "Prompt tokens served from the CPU KV tier.", double(S.CpuHitTokens));
  Metric("prompt_tokens_total", "counter", "Prefill tokens computed.",
         double(S.PromptTokens));
  Metric("generation_tokens_total", "counter", "Tokens generated.",
         double(S.GenerationTokens));
  Metric("spec_decode_num_drafts_total", "counter", "Speculative verify steps.",
         double(Config.NumSpeculativeTokens
                    ? S.DraftTokens / Config.NumSpeculativeTokens
                    : 0));
  Metric("spec_decode_num_draft_tokens_total", "counter",
         "Draft tokens proposed.", double(S.DraftTokens));
  Metric("spec_decode_num_accepted_tokens_total", "counter",
         "Draft tokens accepted.", double(S.AcceptedTokens));
  Metric("num_preemptions_total", "counter", "Sequences preempted.",
         double(S.Preemptions));
  Metric("request_success_total", "counter", "Requests finished.",
         double(P.Active.served()));
  Metric("engine_steps_total", "counter", "Engine steps run.", double(S.Steps));
  Out += fmt::format(
      "# HELP arecipe_sim_time_scale Simulated seconds per wall-clock second.\n"
      "# TYPE arecipe_sim_time_scale gauge\narecipe_sim_time_scale {}\n"
      "# HELP arecipe_sim_simulated_seconds Simulated time since start.\n"
      "# TYPE arecipe_sim_simulated_seconds gauge\n"
      "arecipe_sim_simulated_seconds {:.3f}\n",
      // Under --sim-clock virtual the engine's time is its own clock's.
      P.Clock.scale(),
      P.Engine.lockstep() ? P.Engine.virtualNow() : P.Clock.now());
  return Out;
}

json HttpFrontEnd::clockJson() const {
  if (!P.Engine.lockstep())
    return {{"mode", "wall"}};
  const LockstepPlan &L = P.Options.Lockstep;
  return {{"mode", "virtual"},
          {"virtual_seconds", P.Engine.virtualNow()},
          {"lockstep",
           {{"concurrency", L.Concurrency},
            {"warmup", L.Warmup},
            {"requests", L.Requests},
            {"grace_wall_s", P.Options.LockstepGraceSeconds},
            {"arrived", P.Engine.arrived()},
            {"left", P.Engine.left()},
            {"expected", P.Engine.expectedArrivals()},
            {"forced_steps", P.Engine.forcedSteps()}}}};
}

std::string HttpFrontEnd::infoJson() const {
  const Scheduler &Sched = P.Engine.scheduler();
  const SchedulerStats &S = Sched.stats();
  const FaultPlan &F = P.Faults.plan();
  json Knobs = json::object();
  for (const auto &[K, V] : Config.Knobs)
    Knobs[K] = V;
  json Faults = {{"slow_start_s", F.SlowStartSeconds},
                 {"crash_after", F.CrashAfterRequests},
                 {"malformed_sse_every", F.MalformedSseEvery},
                 {"reset_every", F.ResetEvery},
                 {"http_5xx_start", F.Http5xxStart},
                 {"http_5xx_count", F.Http5xxCount},
                 {"http_5xx_code", F.Http5xxCode},
                 {"gpu_mem_leak", F.GpuMemoryLeak}};
  json J = {
      {"engine", engineName(Config.Engine)},
      {"hardware", P.Model.hardware().Name},
      {"model_profile", P.Model.model().Name},
      {"model", Config.Model},
      {"served_model_name", Config.servedName()},
      {"time_scale", P.Clock.scale()},
      {"clock", clockJson()},
      {"simulated_seconds", P.Clock.now()},
      {"engine_busy_simulated_seconds", P.Engine.busySeconds()},
      {"ready", P.Startup.ready()},
      {"phase", P.Startup.phase()},
      {"port", P.Loop.boundPort()},
      {"sessions", Sessions.size()},
      {"requests_served", P.Active.served()},
      {"requests_active", P.Active.active()},
      {"requests_rejected", Rejected},
      {"client_disconnects", P.Active.disconnects()},
      {"gpus", Config.gpus()},
      {"model_source", P.Model.model().Source},
      {"sharding",
       {{"attention", attentionName(P.Model.model().Attention)},
        {"attention_tp", P.Model.sharding().AttentionTp},
        {"replicas", P.Model.sharding().Replicas},
        {"dense_shards", P.Model.sharding().DenseShards},
        {"expert_shards", P.Model.sharding().ExpertShards}}},
      {"kv_capacity_tokens", Sched.kvCapacityTokens()},
      {"kv_capacity_tokens_per_replica", P.Model.kvCapacityTokensPerReplica()},
      {"kv_pool_bytes_per_gpu", P.Model.kvPoolBytesPerGpu()},
      {"kv_bytes_per_token_per_gpu", P.Model.kvBytesPerTokenPerGpu()},
      {"interconnect_bandwidth", P.Model.hardware().InterconnectBandwidth},
      {"remote_prefill_tokens", S.RemotePrefillTokens},
      {"kv_used_tokens", Sched.kvUsedTokens()},
      {"cpu_tier_tokens", P.Plan.CpuTierTokens},
      {"weight_bytes_per_gpu", P.Model.weightBytesPerGpu()},
      {"acceptance_probability", Sched.acceptanceProbability()},
      {"generation_tokens", S.GenerationTokens},
      {"resolved",
       {{"tp", Config.TensorParallel},
        {"pp", Config.PipelineParallel},
        {"dp", Config.DataParallel},
        {"dcp", Config.DecodeContextParallel},
        {"max_num_seqs", Config.MaxNumSeqs},
        {"max_num_batched_tokens", Config.MaxNumBatchedTokens},
        {"gpu_memory_utilization", Config.GpuMemoryUtilization},
        {"block_size", Config.BlockSize},
        {"kv_cache_dtype", Config.KvCacheDtype},
        {"prefix_caching", Config.PrefixCaching},
        {"cudagraph_mode", Config.CudagraphMode},
        {"enforce_eager", Config.EnforceEager},
        {"capture_sizes", Config.CaptureSizes.size()},
        {"spec_method", Config.SpecMethod},
        {"draft_model", Config.DraftModel},
        {"num_speculative_tokens", Config.NumSpeculativeTokens},
        {"acceptance_length",
         Config.AcceptanceLength
             ? *Config.AcceptanceLength
             : P.Model.model().goldenAcceptance(Config.NumSpeculativeTokens)},
        {"kv_connector", Config.KvConnector}}},
      {"knobs", Knobs},
      {"warnings", P.Warnings},
      {"faults", Faults}};
  // Knobs and names come from the engine argv, which may hold any bytes.
  return J.dump(2, ' ', false, json::error_handler_t::replace);
}

} // namespace arecipe::sim
