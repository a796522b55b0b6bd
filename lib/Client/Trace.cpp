//===- Trace.cpp - Agentic session traces (JSONL) -------------------------===//

#include "arecipe/Client/Trace.h"

#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/PromptText.h"

#include "arecipe/Support/Json.h"

#include <fstream>
#include <sstream>

using namespace arecipe::client;
using arecipe::support::json;
using arecipe::support::JsonErrors;
using arecipe::support::JsonObject;
using arecipe::support::ordered_json;

namespace {

/// A trace line is one session: a few kilobytes, a handful of levels deep.
const arecipe::support::JsonLimits TraceLineLimits{/*MaxDepth=*/64, /*MaxBytes=*/size_t(16) << 20};

/// Reads one session (one line) through the shared validating reader; every
/// error is "file:line: path: reason".
class TraceParser {
public:
  explicit TraceParser(JsonErrors &Errs) : Errs(Errs) {}

  bool session(const JsonObject &S, TraceSession &Out, bool AllowSubagents);

private:
  bool error(const JsonObject &Obj, std::string_view Key, const std::string &Why) {
    Obj.error(Key, Why);
    return false;
  }
  bool turn(const JsonObject &T, TraceTurn &Out, bool AllowSubagents);

  JsonErrors &Errs;
};

} // namespace

bool TraceParser::session(const JsonObject &S, TraceSession &Out, bool AllowSubagents) {
  bool Top = S.path().empty();
  bool Ok = true;
  if (const json *Id = S.get("session_id", false)) {
    if (!Id->is_string() || Id->get_ref<const std::string &>().empty())
      Ok = error(S, "session_id", "expected a non-empty string");
    else
      Out.Id = Id->get<std::string>();
  } else if (Top) {
    Ok = error(S, "session_id", "missing");
  }
  const json *Turns = S.get("turns", false);
  if (!Turns || !Turns->is_array() || Turns->empty())
    return error(S, "turns", "expected a non-empty array");
  for (const JsonObject::Element &E : S.list("turns", true)) {
    TraceTurn T;
    if (!E.second->is_object()) {
      Errs.add(E.first, "expected an object");
      Ok = false;
    } else {
      Ok &= turn(S.element(E), T, AllowSubagents);
    }
    Out.Turns.push_back(std::move(T));
  }
  return Ok;
}

bool TraceParser::turn(const JsonObject &J, TraceTurn &T, bool AllowSubagents) {
  bool Ok = true;
  const json *Ids = J.get("hash_ids", false);
  if (!Ids || !Ids->is_array() || Ids->empty()) {
    Ok = error(J, "hash_ids", "expected a non-empty array of block ids");
  } else {
    for (const json &Id : *Ids) {
      if (!Id.is_number_unsigned()) {
        Ok = error(J, "hash_ids", "block ids must be non-negative integers");
        break;
      }
      T.HashIds.push_back(Id.get<uint64_t>());
    }
  }
  int64_t MaxTokens = int64_t(T.HashIds.size()) * BlockTokens;
  T.InputTokens = MaxTokens;
  if (const json *In = J.get("input_tokens", false)) {
    if (!In->is_number_integer())
      Ok = error(J, "input_tokens", "expected an integer");
    else if (int64_t V = In->get<int64_t>(); V <= MaxTokens - BlockTokens || V > MaxTokens)
      Ok = error(J, "input_tokens",
                 std::to_string(V) + " does not fit " + std::to_string(T.HashIds.size()) +
                     " blocks of 64 tokens (expected " +
                     std::to_string(MaxTokens - BlockTokens + 1) + ".." +
                     std::to_string(MaxTokens) + ")");
    else
      T.InputTokens = V;
  }
  const json *Out = J.get("output_tokens", false);
  if (!Out || !Out->is_number_integer() || Out->get<int64_t>() <= 0)
    Ok = error(J, "output_tokens", "expected a positive integer");
  else
    T.OutputTokens = Out->get<int64_t>();
  if (const json *Think = J.get("think_time_s", false)) {
    if (!Think->is_number() || Think->get<double>() < 0)
      Ok = error(J, "think_time_s", "expected a non-negative number of seconds");
    else
      T.ThinkTimeS = Think->get<double>();
  }
  if (const json *Subs = J.get("subagents", false)) {
    if (!AllowSubagents)
      return error(J, "subagents", "sub-agents may not spawn sub-agents");
    if (!Subs->is_array())
      return error(J, "subagents", "expected an array");
    for (const JsonObject::Element &E : J.list("subagents", true)) {
      TraceSession Sub;
      if (!E.second->is_object()) {
        Errs.add(E.first, "expected an object");
        Ok = false;
      } else {
        Ok &= session(J.element(E), Sub, false);
      }
      T.Subagents.push_back(std::move(Sub));
    }
  }
  for (const auto &[Key, V] : J.value()->items())
    if (Key != "hash_ids" && Key != "input_tokens" && Key != "output_tokens" &&
        Key != "think_time_s" && Key != "subagents")
      Ok = error(J, Key, "unknown field");
  return Ok;
}

TraceLoadResult arecipe::client::parseTrace(std::string_view Text, std::string_view FileName,
                                            size_t MaxErrors) {
  TraceLoadResult Result;
  JsonErrors Errs(MaxErrors);
  size_t LineNo = 0;
  while (!Text.empty()) {
    size_t Nl = Text.find('\n');
    std::string_view Line = Text.substr(0, Nl);
    Text.remove_prefix(Nl == std::string_view::npos ? Text.size() : Nl + 1);
    ++LineNo;
    if (Line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    Errs.setContext(std::string(FileName) + ":" + std::to_string(LineNo) + ": ");
    json J;
    arecipe::support::JsonSyntaxError Syntax;
    if (!arecipe::support::parseJson(Line, J, Syntax, TraceLineLimits)) {
      Errs.add("session", "not valid JSON");
      continue;
    }
    if (!J.is_object()) {
      Errs.add("session", "expected an object");
      continue;
    }
    TraceSession S;
    if (TraceParser(Errs).session(JsonObject(&J, "", Errs), S, true))
      Result.Sessions.push_back(std::move(S));
  }
  for (const JsonErrors::Entry &E : Errs.entries())
    Result.Errors.push_back(E.Path + ": " + E.Message);
  if (size_t Dropped = Errs.dropped())
    Result.Errors.push_back(std::string(FileName) + ": and " + std::to_string(Dropped) +
                            " more error" + (Dropped == 1 ? "" : "s"));
  if (Result.Sessions.empty() && Result.Errors.empty())
    Result.Errors.push_back(std::string(FileName) + ": no sessions");
  return Result;
}

TraceLoadResult arecipe::client::loadTraceFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    TraceLoadResult R;
    R.Errors.push_back(Path + ": cannot open the trace file");
    return R;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  return parseTrace(SS.str(), Path);
}

static ordered_json sessionJson(const TraceSession &S) {
  ordered_json J;
  if (!S.Id.empty())
    J["session_id"] = S.Id;
  ordered_json Turns = ordered_json::array();
  for (const TraceTurn &T : S.Turns) {
    ordered_json TJ;
    TJ["hash_ids"] = T.HashIds;
    TJ["input_tokens"] = T.InputTokens;
    TJ["output_tokens"] = T.OutputTokens;
    TJ["think_time_s"] = T.ThinkTimeS;
    if (!T.Subagents.empty()) {
      ordered_json Subs = ordered_json::array();
      for (const TraceSession &Sub : T.Subagents)
        Subs.push_back(sessionJson(Sub));
      TJ["subagents"] = std::move(Subs);
    }
    Turns.push_back(std::move(TJ));
  }
  J["turns"] = std::move(Turns);
  return J;
}

std::string arecipe::client::sessionToJsonLine(const TraceSession &S) {
  return sessionJson(S).dump();
}

namespace {
struct StatsAccumulator {
  std::vector<double> Turns, NewInput, Output, Think, FinalContext;
  double HistoryTokens = 0, PromptTokens = 0;
  size_t Requests = 0, Subagents = 0;

  void session(const TraceSession &S) {
    Turns.push_back(double(S.Turns.size()));
    double Context = 0;
    for (size_t I = 0; I < S.Turns.size(); ++I) {
      const TraceTurn &T = S.Turns[I];
      ++Requests;
      HistoryTokens += Context;
      Context += double(T.InputTokens);
      PromptTokens += Context;
      Context += double(T.OutputTokens);
      NewInput.push_back(double(T.InputTokens));
      Output.push_back(double(T.OutputTokens));
      if (I > 0)
        Think.push_back(T.ThinkTimeS);
      for (const TraceSession &Sub : T.Subagents) {
        ++Subagents;
        session(Sub);
      }
    }
    FinalContext.push_back(Context);
  }
};
} // namespace

TraceStats arecipe::client::computeTraceStats(const std::vector<TraceSession> &Sessions) {
  StatsAccumulator A;
  for (const TraceSession &S : Sessions)
    A.session(S);
  TraceStats St;
  St.Sessions = Sessions.size();
  St.SubagentSessions = A.Subagents;
  St.Requests = A.Requests;
  auto Fill = [](std::vector<double> V, double &Mean, double &P50, double &P90) {
    Distribution D = summarize(std::move(V));
    Mean = D.Mean;
    P50 = D.P50;
    P90 = D.P90;
  };
  Fill(A.Turns, St.TurnsMean, St.TurnsP50, St.TurnsP90);
  Fill(A.NewInput, St.NewInputMean, St.NewInputP50, St.NewInputP90);
  Fill(A.Output, St.OutputMean, St.OutputP50, St.OutputP90);
  Fill(A.Think, St.ThinkMeanS, St.ThinkP50S, St.ThinkP90S);
  Fill(A.FinalContext, St.FinalContextMean, St.FinalContextP50, St.FinalContextP90);
  if (A.PromptTokens > 0)
    St.TheoreticalPrefixHitRate = A.HistoryTokens / A.PromptTokens;
  return St;
}
