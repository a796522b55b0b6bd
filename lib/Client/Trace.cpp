//===- Trace.cpp - Agentic session traces (JSONL) -------------------------===//

#include "arecipe/Client/Trace.h"

#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/PromptText.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace arecipe::client;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {
class TraceParser {
public:
  TraceParser(std::string_view FileName, size_t Line, TraceLoadResult &Result, size_t MaxErrors,
              size_t &Dropped)
      : FileName(FileName), Line(Line), Result(Result), MaxErrors(MaxErrors), Dropped(Dropped) {}

  bool session(const json &J, std::string Path, TraceSession &S, bool AllowSubagents);

private:
  bool error(const std::string &Field, const std::string &Why) {
    if (Result.Errors.size() < MaxErrors)
      Result.Errors.push_back(std::string(FileName) + ":" + std::to_string(Line) + ": " + Field +
                              ": " + Why);
    else
      ++Dropped;
    return false;
  }
  bool turn(const json &J, const std::string &Path, TraceTurn &T, bool AllowSubagents);

  std::string_view FileName;
  size_t Line;
  TraceLoadResult &Result;
  size_t MaxErrors;
  size_t &Dropped; ///< errors past MaxErrors, counted for the summary line
};
} // namespace

bool TraceParser::session(const json &J, std::string Path, TraceSession &S, bool AllowSubagents) {
  if (!J.is_object())
    return error(Path.empty() ? "session" : Path, "expected an object");
  std::string Prefix = Path.empty() ? "" : Path + ".";
  bool Ok = true;
  if (auto Id = J.find("session_id"); Id != J.end()) {
    if (!Id->is_string() || Id->get_ref<const std::string &>().empty())
      Ok = error(Prefix + "session_id", "expected a non-empty string");
    else
      S.Id = Id->get<std::string>();
  } else if (Path.empty()) {
    Ok = error("session_id", "missing");
  }
  auto Turns = J.find("turns");
  if (Turns == J.end() || !Turns->is_array() || Turns->empty())
    return error(Prefix + "turns", "expected a non-empty array");
  for (size_t I = 0; I < Turns->size(); ++I) {
    TraceTurn T;
    Ok &= turn((*Turns)[I], Prefix + "turns[" + std::to_string(I) + "]", T, AllowSubagents);
    S.Turns.push_back(std::move(T));
  }
  return Ok;
}

bool TraceParser::turn(const json &J, const std::string &Path, TraceTurn &T,
                       bool AllowSubagents) {
  if (!J.is_object())
    return error(Path, "expected an object");
  bool Ok = true;
  auto Ids = J.find("hash_ids");
  if (Ids == J.end() || !Ids->is_array() || Ids->empty()) {
    Ok = error(Path + ".hash_ids", "expected a non-empty array of block ids");
  } else {
    for (const json &Id : *Ids) {
      if (!Id.is_number_unsigned()) {
        Ok = error(Path + ".hash_ids", "block ids must be non-negative integers");
        break;
      }
      T.HashIds.push_back(Id.get<uint64_t>());
    }
  }
  int64_t MaxTokens = int64_t(T.HashIds.size()) * BlockTokens;
  T.InputTokens = MaxTokens;
  if (auto In = J.find("input_tokens"); In != J.end()) {
    if (!In->is_number_integer())
      Ok = error(Path + ".input_tokens", "expected an integer");
    else if (int64_t V = In->get<int64_t>(); V <= MaxTokens - BlockTokens || V > MaxTokens)
      Ok = error(Path + ".input_tokens",
                 std::to_string(V) + " does not fit " + std::to_string(T.HashIds.size()) +
                     " blocks of 64 tokens (expected " + std::to_string(MaxTokens - BlockTokens + 1) +
                     ".." + std::to_string(MaxTokens) + ")");
    else
      T.InputTokens = V;
  }
  auto Out = J.find("output_tokens");
  if (Out == J.end() || !Out->is_number_integer() || Out->get<int64_t>() <= 0)
    Ok = error(Path + ".output_tokens", "expected a positive integer");
  else
    T.OutputTokens = Out->get<int64_t>();
  if (auto Think = J.find("think_time_s"); Think != J.end()) {
    if (!Think->is_number() || Think->get<double>() < 0)
      Ok = error(Path + ".think_time_s", "expected a non-negative number of seconds");
    else
      T.ThinkTimeS = Think->get<double>();
  }
  if (auto Subs = J.find("subagents"); Subs != J.end()) {
    if (!AllowSubagents)
      return error(Path + ".subagents", "sub-agents may not spawn sub-agents");
    if (!Subs->is_array())
      return error(Path + ".subagents", "expected an array");
    for (size_t I = 0; I < Subs->size(); ++I) {
      TraceSession Sub;
      Ok &= session((*Subs)[I], Path + ".subagents[" + std::to_string(I) + "]", Sub, false);
      T.Subagents.push_back(std::move(Sub));
    }
  }
  for (const auto &[Key, V] : J.items())
    if (Key != "hash_ids" && Key != "input_tokens" && Key != "output_tokens" &&
        Key != "think_time_s" && Key != "subagents")
      Ok = error(Path + "." + Key, "unknown field");
  return Ok;
}

TraceLoadResult arecipe::client::parseTrace(std::string_view Text, std::string_view FileName,
                                            size_t MaxErrors) {
  TraceLoadResult Result;
  size_t LineNo = 0;
  size_t Dropped = 0;
  while (!Text.empty()) {
    size_t Nl = Text.find('\n');
    std::string_view Line = Text.substr(0, Nl);
    Text.remove_prefix(Nl == std::string_view::npos ? Text.size() : Nl + 1);
    ++LineNo;
    if (Line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    TraceParser P(FileName, LineNo, Result, MaxErrors, Dropped);
    json J = json::parse(Line.begin(), Line.end(), nullptr, false);
    if (J.is_discarded()) {
      if (Result.Errors.size() < MaxErrors)
        Result.Errors.push_back(std::string(FileName) + ":" + std::to_string(LineNo) +
                                ": session: not valid JSON");
      else
        ++Dropped;
      continue;
    }
    TraceSession S;
    if (P.session(J, "", S, true))
      Result.Sessions.push_back(std::move(S));
  }
  if (Dropped)
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
