//===- Prometheus.cpp - Server metrics scrape, parse and delta ------------===//

#include "arecipe/Client/Prometheus.h"

#include "CurlLibrary.h"

#include <cmath>
#include <cstdlib>

using namespace arecipe::client;

static bool isNameChar(char C, bool First) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == ':' ||
         (!First && C >= '0' && C <= '9');
}

static void skipSpaces(std::string_view &S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t'))
    S.remove_prefix(1);
}

// Parses `{a="x",b="y"}`; S starts after '{'.
static bool parseLabels(std::string_view &S, PrometheusSample &Out, std::string &Why) {
  for (;;) {
    skipSpaces(S);
    if (!S.empty() && S.front() == '}') {
      S.remove_prefix(1);
      return true;
    }
    size_t N = 0;
    while (N < S.size() && isNameChar(S[N], N == 0))
      ++N;
    if (N == 0 || N + 1 >= S.size() || S[N] != '=' || S[N + 1] != '"') {
      Why = "malformed label";
      return false;
    }
    std::string Key(S.substr(0, N)), Value;
    S.remove_prefix(N + 2);
    for (;;) {
      if (S.empty()) {
        Why = "unterminated label value";
        return false;
      }
      char C = S.front();
      S.remove_prefix(1);
      if (C == '"')
        break;
      if (C == '\\' && !S.empty()) {
        char E = S.front();
        S.remove_prefix(1);
        Value.push_back(E == 'n' ? '\n' : E);
        continue;
      }
      Value.push_back(C);
    }
    Out.Labels.emplace_back(std::move(Key), std::move(Value));
    skipSpaces(S);
    if (!S.empty() && S.front() == ',')
      S.remove_prefix(1);
  }
}

static bool parseValue(std::string_view S, double &V) {
  size_t End = S.find_first_of(" \t");
  std::string Tok(S.substr(0, End));
  if (Tok == "+Inf" || Tok == "Inf") {
    V = INFINITY;
    return true;
  }
  if (Tok == "-Inf") {
    V = -INFINITY;
    return true;
  }
  if (Tok == "NaN") {
    V = NAN;
    return true;
  }
  char *Stop = nullptr;
  V = std::strtod(Tok.c_str(), &Stop);
  return !Tok.empty() && Stop == Tok.c_str() + Tok.size();
}

std::vector<PrometheusSample>
arecipe::client::parsePrometheusText(std::string_view Text, std::vector<std::string> *Errors) {
  std::vector<PrometheusSample> Samples;
  size_t LineNo = 0;
  while (!Text.empty()) {
    size_t Nl = Text.find('\n');
    std::string_view Line = Text.substr(0, Nl);
    Text.remove_prefix(Nl == std::string_view::npos ? Text.size() : Nl + 1);
    ++LineNo;
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    skipSpaces(Line);
    if (Line.empty() || Line.front() == '#')
      continue;
    PrometheusSample S;
    size_t N = 0;
    while (N < Line.size() && isNameChar(Line[N], N == 0))
      ++N;
    std::string Why;
    if (N == 0) {
      Why = "expected a metric name";
    } else {
      S.Name = std::string(Line.substr(0, N));
      Line.remove_prefix(N);
      if (!Line.empty() && Line.front() == '{') {
        Line.remove_prefix(1);
        parseLabels(Line, S, Why);
      }
      if (Why.empty()) {
        skipSpaces(Line);
        if (!parseValue(Line, S.Value))
          Why = "malformed value";
      }
    }
    if (!Why.empty()) {
      if (Errors)
        Errors->push_back("line " + std::to_string(LineNo) + ": " + Why);
      continue;
    }
    Samples.push_back(std::move(S));
  }
  return Samples;
}

static bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

MetricTotals arecipe::client::totalsByName(const std::vector<PrometheusSample> &Samples) {
  MetricTotals Totals;
  for (const PrometheusSample &S : Samples)
    if (!endsWith(S.Name, "_bucket") && !std::isnan(S.Value))
      Totals[S.Name] += S.Value;
  return Totals;
}

static bool isCounter(std::string_view Name) {
  return endsWith(Name, "_total") || endsWith(Name, "_sum") || endsWith(Name, "_count");
}

static std::string detectPrefix(const MetricTotals &T) {
  for (std::string_view P : {"vllm:", "sglang:", "atom:", "atom_"})
    for (const auto &[Name, V] : T)
      if (Name.rfind(P, 0) == 0)
        return std::string(P);
  return "";
}

ServerMetricsDelta arecipe::client::diffServerMetrics(const MetricTotals &Start,
                                                      const MetricTotals &End,
                                                      int NumSpecTokens) {
  ServerMetricsDelta D;
  D.Prefix = detectPrefix(End);
  for (const auto &[Name, V] : End) {
    auto It = Start.find(Name);
    double Before = It == Start.end() ? 0 : It->second;
    if (isCounter(Name)) {
      D.CounterDeltas[Name] = V - Before;
    } else {
      D.GaugesEnd[Name] = V;
      if (It != Start.end())
        D.GaugesStart[Name] = Before;
    }
  }
  auto Delta = [&](std::string_view Base) -> std::optional<double> {
    auto It = D.CounterDeltas.find(D.Prefix + std::string(Base));
    if (It == D.CounterDeltas.end())
      return std::nullopt;
    return It->second;
  };
  auto Ratio = [](std::optional<double> Num, std::optional<double> Den) -> std::optional<double> {
    if (!Num || !Den || *Den <= 0)
      return std::nullopt;
    return *Num / *Den;
  };
  // Engines name the prefix-cache counters differently; the first pair found
  // wins (token counters in every case).
  D.PrefixCacheHitRate = Ratio(Delta("prefix_cache_hits_total"), Delta("prefix_cache_queries_total"));
  if (!D.PrefixCacheHitRate)
    D.PrefixCacheHitRate =
        Ratio(Delta("prefix_cache_cached_tokens_total"), Delta("prefix_cache_full_tokens_total"));
  if (!D.PrefixCacheHitRate && D.Prefix == "sglang:")
    D.PrefixCacheHitRate = Ratio(Delta("cached_tokens_total"), Delta("prompt_tokens_total"));

  std::optional<double> Accepted = Delta("spec_decode_num_accepted_tokens_total");
  std::optional<double> DraftTokens = Delta("spec_decode_num_draft_tokens_total");
  std::optional<double> Drafts = Delta("spec_decode_num_drafts_total");
  D.SpecAcceptanceRate = Ratio(Accepted, DraftTokens);
  if (auto PerDraft = Ratio(Accepted, Drafts))
    D.SpecAcceptanceLength = 1 + *PerDraft;
  else if (NumSpecTokens > 0 && D.SpecAcceptanceRate)
    D.SpecAcceptanceLength = 1 + *D.SpecAcceptanceRate * NumSpecTokens;

  for (std::string_view G : {"kv_cache_usage_perc", "gpu_cache_usage_perc", "token_usage",
                             "kv_cache_usage_ratio"}) {
    std::string Name = D.Prefix + std::string(G);
    if (auto It = D.GaugesEnd.find(Name); It != D.GaugesEnd.end()) {
      D.KvCacheUsageEnd = It->second;
      if (auto S = D.GaugesStart.find(Name); S != D.GaugesStart.end())
        D.KvCacheUsageStart = S->second;
      break;
    }
  }
  return D;
}

// A scrape is small (tens of KiB); a server that sends without end must not
// grow the client's memory with it.
static constexpr size_t MaxMetricsBytes = size_t(64) << 20;

namespace {
struct ScrapeBody {
  std::string Text;
  bool TooLarge = false;
};
} // namespace

static size_t appendBody(char *Ptr, size_t Size, size_t N, void *User) {
  auto *Body = static_cast<ScrapeBody *>(User);
  if (Body->Text.size() + Size * N > MaxMetricsBytes) {
    Body->TooLarge = true;
    return 0; // aborts the transfer
  }
  Body->Text.append(Ptr, Size * N);
  return Size * N;
}

std::optional<std::string> arecipe::client::httpGetText(const std::string &Url,
                                                        const std::vector<std::string> &Headers,
                                                        long TimeoutMs, long &Status,
                                                        std::string &Err) {
  Status = 0;
  const detail::CurlLibrary *Lib = detail::curlLibrary(Err);
  if (!Lib) {
    Err = "cannot load libcurl: " + Err;
    return std::nullopt;
  }
  CURL *H = Lib->easy_init();
  if (!H) {
    Err = "curl_easy_init failed";
    return std::nullopt;
  }
  ScrapeBody Body;
  struct curl_slist *List = nullptr;
  for (const std::string &Header : Headers)
    List = Lib->slist_append(List, Header.c_str());
  Lib->easy_setopt(H, CURLOPT_URL, Url.c_str());
  Lib->easy_setopt(H, CURLOPT_HTTPHEADER, List);
  Lib->easy_setopt(H, CURLOPT_WRITEFUNCTION, appendBody);
  Lib->easy_setopt(H, CURLOPT_WRITEDATA, &Body);
  Lib->easy_setopt(H, CURLOPT_TIMEOUT_MS, TimeoutMs);
  Lib->easy_setopt(H, CURLOPT_NOSIGNAL, 1L);
  Lib->easy_setopt(H, CURLOPT_NOPROXY, "*");
  CURLcode Rc = Lib->easy_perform(H);
  Lib->easy_getinfo(H, CURLINFO_RESPONSE_CODE, &Status);
  Lib->easy_cleanup(H);
  Lib->slist_free_all(List);
  if (Body.TooLarge) {
    Err = "the response is larger than 64 MiB";
    return std::nullopt;
  }
  if (Rc != CURLE_OK) {
    Err = Lib->easy_strerror(Rc);
    return std::nullopt;
  }
  return std::move(Body.Text);
}

std::optional<std::string> arecipe::client::scrapeMetrics(const std::string &Url, std::string &Err,
                                                          long TimeoutMs,
                                                          const std::vector<std::string> &Headers) {
  long Status = 0;
  std::optional<std::string> Text = httpGetText(Url, Headers, TimeoutMs, Status, Err);
  if (Text && Status != 200) {
    Err = "HTTP status " + std::to_string(Status);
    return std::nullopt;
  }
  if (!Text && Err == "the response is larger than 64 MiB")
    Err = "the metrics response is larger than 64 MiB";
  return Text;
}
