//===- main.cpp - arecipe-load: the native load client CLI ----------------===//
//
// A thin command line over ArecipeClient: `fixed` and `agentic` run a
// workload against an OpenAI-compatible endpoint, write records.jsonl and
// summary.json and print the summary for people; `gen-trace` writes a
// synthetic coding-agent trace; `summarize` recomputes a summary from a
// records file and prints it as a table (--json: the JSON). Exit status: 0 valid
// cell, 1 usage or input error, 3 the run finished but the cell is invalid
// (aborted, or error rate above the threshold).
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/CellSummary.h"
#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/SummaryText.h"
#include "arecipe/Client/Trace.h"
#include "arecipe/Client/TraceFormats.h"
#include "arecipe/Client/TraceGenerator.h"
#include "arecipe/Client/Workload.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Utf8.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <fstream>
#include <iostream>

using namespace arecipe::client;
namespace cl = llvm::cl;
using nlohmann::ordered_json;

static cl::SubCommand FixedCmd("fixed", "fixed ISL/OSL random-prompt workload");
static cl::SubCommand AgenticCmd("agentic", "agentic multi-turn trace replay");
static cl::SubCommand GenTraceCmd("gen-trace", "write a synthetic coding-agent trace");
static cl::SubCommand SummarizeCmd("summarize", "recompute a summary from records.jsonl");

static cl::OptionCategory RunCat("Run options");
#define RUN_SUBS cl::sub(FixedCmd), cl::sub(AgenticCmd)
#define SUMMARY_SUBS cl::sub(FixedCmd), cl::sub(AgenticCmd), cl::sub(SummarizeCmd)

static cl::opt<std::string> Url("url", cl::desc("server base URL, e.g. http://127.0.0.1:8000"),
                                RUN_SUBS, cl::cat(RunCat));
static cl::opt<std::string> PortFile("port-file",
                                     cl::desc("read the port from this file; URL is "
                                              "http://127.0.0.1:PORT"),
                                     RUN_SUBS, cl::cat(RunCat));
static cl::opt<std::string> Model("model", cl::desc("served model name"), cl::init("default"),
                                  RUN_SUBS, cl::cat(RunCat));
static cl::opt<std::string> Api("api", cl::desc("chat | completions"), cl::init("chat"), RUN_SUBS,
                                cl::cat(RunCat));
static cl::opt<int> Concurrency("concurrency", cl::desc("closed-loop requests in flight, agentic "
                                                        "lanes, or the open-loop cap (0 = none)"),
                                cl::init(1), RUN_SUBS, cl::cat(RunCat));
static cl::opt<uint64_t> Seed("seed", cl::desc("random seed"), cl::init(42), RUN_SUBS,
                              cl::sub(GenTraceCmd), cl::cat(RunCat));
static cl::opt<std::string> MetricsUrl("metrics-url",
                                       cl::desc("Prometheus URL (default URL/metrics; 'none')"),
                                       RUN_SUBS, cl::cat(RunCat));
static cl::opt<double> FailedThreshold("failed-threshold",
                                       cl::desc("failed-request fraction that invalidates the "
                                                "cell (default 0.10)"),
                                       cl::init(0.10), SUMMARY_SUBS, cl::cat(RunCat));
static cl::opt<int> NumSpecTokens("num-spec-tokens",
                                  cl::desc("drafts per step, for the acceptance length"),
                                  cl::init(0), RUN_SUBS, cl::cat(RunCat));
static cl::opt<double> RequestTimeoutS("request-timeout-s",
                                       cl::desc("per-request timeout in seconds (0 = none)"),
                                       cl::init(1800), RUN_SUBS, cl::cat(RunCat));
static cl::opt<double> StallTimeoutS(
    "stall-timeout-s",
    cl::desc("end the run as stalled when no request in flight made progress (a response "
             "head, an SSE event, a finished response) for this many seconds (0 = never)"),
    cl::init(600), RUN_SUBS, cl::cat(RunCat));
static cl::opt<int> RealtimePriority(
    "realtime-priority",
    cl::desc("run the event loop under SCHED_FIFO at this priority (1-99) so a busy machine "
             "does not delay sends and timestamps; needs CAP_SYS_NICE (0 = normal)"),
    cl::init(0), RUN_SUBS, cl::cat(RunCat));
// For the client benchmark: how long before a dispatch the loop polls.
static cl::opt<long> TimerSpinUs("timer-spin-us", cl::Hidden, cl::init(-1), RUN_SUBS,
                                 cl::cat(RunCat));
static cl::list<std::string> Headers("header", cl::desc("extra request header 'Name: value'"),
                                     RUN_SUBS, cl::cat(RunCat));
static cl::opt<std::string> OutDir("out", cl::desc("output directory for records.jsonl and "
                                                   "summary.json"),
                                   RUN_SUBS, cl::cat(RunCat));
static cl::opt<bool> Quiet("quiet", cl::desc("no progress lines"), RUN_SUBS, cl::cat(RunCat));

static cl::OptionCategory GpuCat("GPU count (for per-GPU throughput)");
static cl::opt<int> Tp("tp", cl::desc("tensor parallel size (aggregated)"), cl::init(1),
                       SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> Pp("pp", cl::desc("pipeline parallel size"), cl::init(1), SUMMARY_SUBS,
                       cl::cat(GpuCat));
static cl::opt<int> Pcp("pcp", cl::desc("prefill context parallel size"), cl::init(1),
                        SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> PrefillWorkers("prefill-workers", cl::desc("disaggregated: prefill servers"),
                                   cl::init(0), SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> PrefillTp("prefill-tp", cl::init(0), SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> PrefillPp("prefill-pp", cl::init(1), SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> DecodeWorkers("decode-workers", cl::desc("disaggregated: decode servers"),
                                  cl::init(0), SUMMARY_SUBS, cl::cat(GpuCat));
static cl::opt<int> DecodeTp("decode-tp", cl::init(0), SUMMARY_SUBS, cl::cat(GpuCat));
static cl::list<std::string> Meta("meta",
                                  cl::desc("summary field KEY=VALUE (VALUE parsed as JSON when "
                                           "it is JSON), e.g. --meta hw=mi355x --meta conc=8"),
                                  SUMMARY_SUBS, cl::cat(GpuCat));

static cl::OptionCategory FixedCat("fixed workload");
static cl::opt<int64_t> Isl("isl", cl::desc("input tokens"), cl::init(1024), cl::sub(FixedCmd),
                            cl::cat(FixedCat));
static cl::opt<int64_t> Osl("osl", cl::desc("output tokens (ignore_eos)"), cl::init(1024),
                            cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<double> RangeRatio("range-ratio",
                                  cl::desc("range ratio r: [0,1) under --range-rule around, "
                                           "[0,1] under below"),
                                  cl::init(0), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<LengthRule> RangeRule(
    "range-rule", cl::desc("how --range-ratio spreads ISL and OSL"),
    cl::values(clEnumValN(LengthRule::Around, "around",
                          "[floor(L(1-r)), floor(L(1+r))], vLLM >= 0.8.4 (default)"),
               clEnumValN(LengthRule::Below, "below", "[floor(L r), L], InferenceX's client")),
    cl::init(LengthRule::Around), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<int64_t> NumPrompts("num-prompts", cl::desc("measured requests (0 = 10 x conc)"),
                                   cl::init(0), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<int64_t> Warmup("warmup", cl::desc("warm-up requests (-1 = 2 x conc)"),
                               cl::init(-1), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<double> RequestRate("request-rate",
                                   cl::desc("open-loop requests/s (0 = closed loop)"),
                                   cl::init(0), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<std::string> Arrival("arrival", cl::desc("poisson | constant"),
                                    cl::init("poisson"), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<std::string> PromptModeOpt("prompt-mode",
                                          cl::desc("words | token_ids | text (docs/metrics.md)"),
                                          cl::init("words"), cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<std::string> TokenizerPath("tokenizer",
                                          cl::desc("tokenizer.json, or the model directory "
                                                   "holding it (token_ids, text)"),
                                          cl::sub(FixedCmd), cl::cat(FixedCat));
static cl::opt<int64_t> VocabSize("vocab-size",
                                  cl::desc("token_ids without a tokenizer: ids in [0, N)"),
                                  cl::init(0), cl::sub(FixedCmd), cl::cat(FixedCat));

static cl::OptionCategory AgenticCat("agentic workload");
static cl::opt<std::string> TracePath("trace", cl::desc("trace JSONL (docs/traces.md)"),
                                      cl::sub(AgenticCmd), cl::cat(AgenticCat));
static cl::opt<std::string> TraceFormatOpt("trace-format",
                                           cl::desc("arecipe | mooncake | weka (docs/traces.md)"),
                                           cl::init("arecipe"), cl::sub(AgenticCmd),
                                           cl::cat(AgenticCat));
static cl::opt<int64_t> TraceBlockSize("trace-block-size",
                                       cl::desc("tokens per Mooncake hash block (default 512)"),
                                       cl::init(512), cl::sub(AgenticCmd), cl::cat(AgenticCat));
static cl::opt<double> DurationS("duration-s", cl::desc("measured window in seconds"),
                                 cl::init(3600), cl::sub(AgenticCmd), cl::cat(AgenticCat));
static cl::opt<double> MaxThinkS("max-think-s", cl::desc("cap on think times (< 0 = none)"),
                                 cl::init(-1), cl::sub(AgenticCmd), cl::cat(AgenticCat));
static cl::opt<double> DrainTimeoutS("drain-timeout-s",
                                     cl::desc("wait for in-flight requests after the duration"),
                                     cl::init(60), cl::sub(AgenticCmd), cl::cat(AgenticCat));
static cl::opt<std::string> SessionHeader("session-header", cl::init("X-Session-ID"),
                                          cl::sub(AgenticCmd), cl::cat(AgenticCat));

static cl::OptionCategory GenCat("gen-trace");
static cl::opt<size_t> Sessions("sessions", cl::init(64), cl::sub(GenTraceCmd), cl::cat(GenCat));
static cl::opt<double> TurnsMedian("turns-median", cl::init(20), cl::sub(GenTraceCmd),
                                   cl::cat(GenCat));
static cl::opt<int64_t> SystemPrompt("system-prompt-tokens", cl::init(2048),
                                     cl::sub(GenTraceCmd), cl::cat(GenCat));
static cl::opt<double> FirstTurn("first-turn-median-tokens", cl::init(6000),
                                 cl::sub(GenTraceCmd), cl::cat(GenCat));
static cl::opt<double> ToolResult("tool-result-median-tokens", cl::init(700),
                                  cl::sub(GenTraceCmd), cl::cat(GenCat));
static cl::opt<double> OutputMedian("output-median-tokens", cl::init(250), cl::sub(GenTraceCmd),
                                    cl::cat(GenCat));
static cl::opt<double> ThinkMedian("think-median-s", cl::init(2.0), cl::sub(GenTraceCmd),
                                   cl::cat(GenCat));
static cl::opt<double> ThinkMax("think-max-s", cl::init(30), cl::sub(GenTraceCmd),
                                cl::cat(GenCat));
static cl::opt<double> SubagentProb("subagent-probability", cl::init(0.04),
                                    cl::sub(GenTraceCmd), cl::cat(GenCat));
static cl::opt<int64_t> MaxContext("max-context-tokens", cl::init(200000), cl::sub(GenTraceCmd),
                                   cl::cat(GenCat));
static cl::opt<std::string> GenOutput("o", cl::desc("output trace file"), cl::sub(GenTraceCmd),
                                      cl::cat(GenCat));

static cl::opt<std::string> RecordsIn(cl::Positional, cl::desc("records.jsonl"),
                                      cl::sub(SummarizeCmd));
static cl::opt<std::string> SummaryOut("o",
                                       cl::desc("write the summary JSON to this file ('-': "
                                                "stdout, instead of the table)"),
                                       cl::sub(SummarizeCmd));
static cl::opt<bool> SummaryJson("json",
                                 cl::desc("print the summary JSON on stdout instead of the table"),
                                 cl::sub(SummarizeCmd));

static int fail(const std::string &Msg) {
  llvm::errs() << "arecipe-load: error: " << Msg << "\n";
  return 1;
}

static GpuTopology topology() {
  if (PrefillWorkers > 0 || DecodeWorkers > 0)
    return GpuTopology::disaggregated(PrefillWorkers, PrefillTp, PrefillPp, DecodeWorkers,
                                      DecodeTp);
  return GpuTopology::aggregated(Tp, Pp, Pcp);
}

static bool metadata(ordered_json &Out, std::string &Err) {
  Out = ordered_json::object();
  for (const std::string &M : Meta) {
    size_t Eq = M.find('=');
    if (Eq == std::string::npos || Eq == 0) {
      Err = "--meta expects KEY=VALUE, got '" + M + "'";
      return false;
    }
    std::string Value = M.substr(Eq + 1);
    ordered_json V = ordered_json::parse(Value, nullptr, false);
    Out[M.substr(0, Eq)] = V.is_discarded() ? ordered_json(Value) : V;
  }
  return true;
}

/// Writes the summary JSON to Path ("-": stdout) and, unless it went to
/// stdout or Json asks for the JSON there, prints it for people on stdout.
static int writeSummary(const CellMetrics &M, const RunResult &Run, const std::string &Path,
                        bool Json) {
  SummaryContext Ctx;
  std::string Err;
  if (!metadata(Ctx.Metadata, Err))
    return fail(Err);
  Ctx.FailedRequestThreshold = FailedThreshold;
  Ctx.ExpectedOutputTokens = expectedOutputTokens(Run.Records);
  ordered_json J = buildCellSummary(M, Run, Ctx);
  // Abort reasons and error kinds quote the server: dumped UTF-8-safe.
  std::string Text = arecipe::support::dumpJson(J, 2) + "\n";
  bool ToStdout = Path.empty() || Path == "-";
  if (!ToStdout && !arecipe::support::writeFileAtomically(Path, Text, Err))
    return fail(Err);
  if (Json || Path == "-")
    std::cout << Text;
  else
    std::cout << arecipe::support::sanitizeUtf8(formatSummaryText(J))
              << (ToStdout ? "" : "summary: " + Path + "\n");
  return J["arecipe_client"]["valid"].get<bool>() ? 0 : 3;
}

static std::optional<std::string> baseUrl(std::string &Err) {
  if (!PortFile.empty()) {
    std::ifstream In(PortFile);
    int Port = 0;
    if (!(In >> Port) || Port <= 0) {
      Err = "cannot read a port from '" + PortFile + "'";
      return std::nullopt;
    }
    return "http://127.0.0.1:" + std::to_string(Port);
  }
  if (Url.empty()) {
    Err = "--url or --port-file is required";
    return std::nullopt;
  }
  std::string U = Url;
  while (!U.empty() && U.back() == '/')
    U.pop_back();
  return U;
}

static void onSignal(int) { interruptRunningWorkloads(); }

static int runCommand(bool Agentic) {
  std::string Err;
  std::optional<std::string> Base = baseUrl(Err);
  if (!Base)
    return fail(Err);
  Endpoint Target;
  Target.BaseUrl = *Base;
  Target.Model = Model;
  if (Api != "chat" && Api != "completions")
    return fail("--api must be 'chat' or 'completions'");
  Target.Api = Api == "chat" ? ApiKind::Chat : ApiKind::Completions;
  Target.MetricsUrl = MetricsUrl.empty() ? *Base + "/metrics" : std::string(MetricsUrl);
  if (Target.MetricsUrl == "none")
    Target.MetricsUrl.clear();
  Target.ExtraHeaders.assign(Headers.begin(), Headers.end());

  WorkloadSpec Spec;
  Spec.Concurrency = Concurrency;
  Spec.Seed = Seed;
  Spec.FailedRequestThreshold = FailedThreshold;
  Spec.NumSpecTokens = NumSpecTokens;
  if (!(RequestTimeoutS >= 0 && RequestTimeoutS <= 1e7))
    return fail("--request-timeout-s must be in [0, 1e7]");
  if (!(StallTimeoutS >= 0 && StallTimeoutS <= 1e7))
    return fail("--stall-timeout-s must be in [0, 1e7]");
  for (const std::string &H : Headers)
    if (H.find(':') == std::string::npos || H.find(':') == 0 ||
        H.find_first_of("\r\n") != std::string::npos)
      return fail("--header expects 'Name: value' on one line, got '" + H + "'");
  Spec.Transport.RequestTimeoutMs = long(RequestTimeoutS * 1000);
  Spec.Transport.StallTimeoutMs = long(StallTimeoutS * 1000);
  if (RealtimePriority < 0 || RealtimePriority > 99)
    return fail("--realtime-priority must be in [0, 99]");
  Spec.Transport.RealtimePriority = RealtimePriority;
  Spec.Transport.TimerSpinUs = TimerSpinUs;
  Spec.Transport.MaxCachedConnections = std::max<long>(4096, 2L * Concurrency);
  if (Agentic) {
    if (TracePath.empty())
      return fail("--trace is required");
    std::optional<TraceFormat> Format = parseTraceFormat(TraceFormatOpt);
    if (!Format)
      return fail("--trace-format must be 'arecipe', 'mooncake' or 'weka'");
    TraceReadOptions ReadOptions;
    ReadOptions.Format = *Format;
    ReadOptions.MooncakeBlockTokens = TraceBlockSize;
    TraceLoadResult Trace = loadTrace(TracePath, ReadOptions);
    for (const std::string &E : Trace.Errors)
      llvm::errs() << E << "\n";
    if (!Trace.ok())
      return 1;
    AgenticWorkload A;
    A.Sessions = std::move(Trace.Sessions);
    A.DurationS = DurationS;
    A.MaxThinkS = MaxThinkS;
    A.DrainTimeoutS = DrainTimeoutS;
    A.SessionHeader = SessionHeader;
    Spec.Kind = std::move(A);
  } else {
    FixedWorkload F;
    F.InputTokens = Isl;
    F.OutputTokens = Osl;
    F.RangeRatio = RangeRatio;
    F.Rule = RangeRule;
    F.NumPrompts = NumPrompts;
    F.WarmupRequests = Warmup;
    if (RequestRate > 0) {
      if (Arrival != "poisson" && Arrival != "constant")
        return fail("--arrival must be 'poisson' or 'constant'");
      F.Arrival = Arrival == "poisson" ? ArrivalMode::Poisson : ArrivalMode::Constant;
      F.RequestRate = RequestRate;
    }
    std::optional<PromptMode> Mode = parsePromptMode(PromptModeOpt);
    if (!Mode)
      return fail("--prompt-mode must be 'words', 'token_ids' or 'text'");
    if (*Mode == PromptMode::TokenIds && Target.Api != ApiKind::Completions)
      return fail("--prompt-mode token_ids needs --api completions");
    F.Prompt = *Mode;
    F.TokenizerPath = TokenizerPath;
    F.VocabSize = VocabSize;
    Spec.Kind = F;
  }
  if (OutDir.empty())
    return fail("--out is required");
  // Before any output: a run whose requests cannot be sent leaves none.
  if (!checkRunTransport(Spec, Target, Err))
    return fail(Err);
  if (std::error_code EC = llvm::sys::fs::create_directories(OutDir))
    return fail(OutDir + ": " + EC.message());
  JsonlRecordSink Sink(OutDir + "/records.jsonl");
  if (!Sink.isOpen())
    return fail(OutDir + "/records.jsonl: cannot open for writing");

  ProgressCallback OnProgress;
  if (!Quiet)
    OnProgress = [](const Progress &P) {
      llvm::errs() << llvm::format("[%7.1fs] %-8s finished %zu failed %zu in flight %zu\n",
                                   P.ElapsedS, P.PhaseName, P.Finished, P.Failed, P.InFlight);
    };
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  RunResult Run;
  try {
    Run = runWorkload(Spec, Target, Sink, OnProgress);
  } catch (const std::exception &E) {
    return fail(E.what());
  }
  if (!Run.RealtimeError.empty())
    llvm::errs() << "arecipe-load: warning: --realtime-priority refused ("
                 << Run.RealtimeError << "); the loop ran with normal scheduling\n";
  if (Run.Aborted)
    llvm::errs() << "arecipe-load: run aborted: " << Run.AbortReason << "\n";
  if (ClientSaturation Sat = clientSaturation(Run); Sat.Bound)
    llvm::errs() << "arecipe-load: warning: the client was the bottleneck of this run ("
                 << Sat.Reason << "); its latencies include the client's own delay\n";
  if (!Run.ServerMetricsError.empty())
    llvm::errs() << "arecipe-load: warning: server metrics: " << Run.ServerMetricsError << "\n";
  ordered_json Counts = tokenCountSummary(Run.Records);
  size_t Mismatches = std::max(Counts["input_mismatches"].get<size_t>(),
                               Counts["output_mismatches"].get<size_t>());
  if (Mismatches)
    llvm::errs() << "arecipe-load: warning: token counts: " << Counts["input_mismatches"].get<size_t>()
                 << " prompt and " << Counts["output_mismatches"].get<size_t>() << " completion of "
                 << Counts["requests_checked"].get<size_t>()
                 << " requests disagree with the server's usage (token_mismatch in records.jsonl)\n";
  CellMetrics M = computeCellMetrics(Run.Records, topology());
  return writeSummary(M, Run, OutDir + "/summary.json", false);
}

static int genTrace() {
  if (GenOutput.empty())
    return fail("-o FILE is required");
  TraceGeneratorOptions O;
  O.Sessions = Sessions;
  O.Seed = Seed;
  O.TurnsMedian = TurnsMedian;
  O.SystemPromptTokens = SystemPrompt;
  O.FirstTurnMedianTokens = FirstTurn;
  O.ToolResultMedianTokens = ToolResult;
  O.OutputMedianTokens = OutputMedian;
  O.ThinkMedianS = ThinkMedian;
  O.ThinkMaxS = ThinkMax;
  O.SubagentProbability = SubagentProb;
  O.MaxContextTokens = MaxContext;
  std::vector<TraceSession> Trace = generateTrace(O);
  std::string Text;
  for (const TraceSession &S : Trace)
    Text += sessionToJsonLine(S) + "\n";
  std::string Err;
  if (!arecipe::support::writeFileAtomically(GenOutput, Text, Err))
    return fail(Err);
  TraceStats St = computeTraceStats(Trace);
  ordered_json J;
  J["sessions"] = St.Sessions;
  J["subagent_sessions"] = St.SubagentSessions;
  J["requests"] = St.Requests;
  J["turns_per_session"] = {{"mean", St.TurnsMean}, {"p50", St.TurnsP50}, {"p90", St.TurnsP90}};
  J["new_input_tokens_per_turn"] = {
      {"mean", St.NewInputMean}, {"p50", St.NewInputP50}, {"p90", St.NewInputP90}};
  J["output_tokens_per_turn"] = {
      {"mean", St.OutputMean}, {"p50", St.OutputP50}, {"p90", St.OutputP90}};
  J["think_time_s"] = {{"mean", St.ThinkMeanS}, {"p50", St.ThinkP50S}, {"p90", St.ThinkP90S}};
  J["final_context_tokens"] = {
      {"mean", St.FinalContextMean}, {"p50", St.FinalContextP50}, {"p90", St.FinalContextP90}};
  J["theoretical_prefix_hit_rate"] = St.TheoreticalPrefixHitRate;
  std::cout << J.dump(2) << "\n";
  return 0;
}

static int summarize() {
  if (RecordsIn.empty())
    return fail("a records.jsonl argument is required");
  std::ifstream In(RecordsIn);
  if (!In)
    return fail(RecordsIn + ": cannot open");
  RunResult Run;
  std::string Line;
  for (size_t N = 1; std::getline(In, Line); ++N) {
    if (Line.empty())
      continue;
    std::string Err;
    std::optional<RequestRecord> R = recordFromJsonLine(Line, Err);
    if (!R)
      return fail(RecordsIn + ":" + std::to_string(N) + ": " + Err);
    Run.Records.push_back(std::move(*R));
  }
  CellMetrics M = computeCellMetrics(Run.Records, topology());
  return writeSummary(M, Run, SummaryOut, SummaryJson);
}

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions({&RunCat, &GpuCat, &FixedCat, &AgenticCat, &GenCat});
  cl::ParseCommandLineOptions(Argc, Argv, "arecipe-load: native LLM-serving load client\n");
  if (FixedCmd)
    return runCommand(false);
  if (AgenticCmd)
    return runCommand(true);
  if (GenTraceCmd)
    return genTrace();
  if (SummarizeCmd)
    return summarize();
  return fail("expected a subcommand: fixed, agentic, gen-trace or summarize (see --help)");
}
