//===- PrometheusTest.cpp - Metrics parsing and window deltas -------------===//

#include "arecipe/Client/Prometheus.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace arecipe::client;

namespace {
const char *Start = R"(# HELP vllm:prefix_cache_queries_total Queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{model_name="m",engine="0"} 1000
vllm:prefix_cache_queries_total{model_name="m",engine="1"} 1000
vllm:prefix_cache_hits_total{model_name="m"} 500
vllm:spec_decode_num_drafts_total 100
vllm:spec_decode_num_draft_tokens_total 300
vllm:spec_decode_num_accepted_tokens_total 150
vllm:kv_cache_usage_perc{model_name="m"} 0.25
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 9
vllm:e2e_request_latency_seconds_count 9
)";
const char *End = R"(vllm:prefix_cache_queries_total{model_name="m",engine="0"} 3000
vllm:prefix_cache_queries_total{model_name="m",engine="1"} 2000
vllm:prefix_cache_hits_total{model_name="m"} 2900
vllm:spec_decode_num_drafts_total 300
vllm:spec_decode_num_draft_tokens_total 900
vllm:spec_decode_num_accepted_tokens_total 550
vllm:kv_cache_usage_perc{model_name="m"} 0.75
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 19
vllm:e2e_request_latency_seconds_count 19
)";

TEST(Prometheus, ParsesNamesLabelsAndValues) {
  std::vector<std::string> Errors;
  auto S = parsePrometheusText("a_total{x=\"q\\\"uote\",y=\"2\"} 3.5 1700000000\nb NaN\nc +Inf\n",
                               &Errors);
  EXPECT_TRUE(Errors.empty());
  ASSERT_EQ(S.size(), 3u);
  EXPECT_EQ(S[0].Name, "a_total");
  ASSERT_EQ(S[0].Labels.size(), 2u);
  EXPECT_EQ(S[0].Labels[0].second, "q\"uote");
  EXPECT_DOUBLE_EQ(S[0].Value, 3.5);
  EXPECT_TRUE(std::isinf(S[2].Value));
}

TEST(Prometheus, MalformedLinesAreReportedAndSkipped) {
  std::vector<std::string> Errors;
  auto S = parsePrometheusText("ok 1\n{bad} 2\nnovalue\nlabel{x=\"open} 1\n", &Errors);
  EXPECT_EQ(S.size(), 1u);
  ASSERT_EQ(Errors.size(), 3u);
  EXPECT_EQ(Errors[0], "line 2: expected a metric name");
  EXPECT_EQ(Errors[1], "line 3: malformed value");
  EXPECT_EQ(Errors[2], "line 4: unterminated label value");
}

TEST(Prometheus, TotalsSumLabelSetsAndDropBuckets) {
  MetricTotals T = totalsByName(parsePrometheusText(Start));
  EXPECT_DOUBLE_EQ(T.at("vllm:prefix_cache_queries_total"), 2000);
  EXPECT_EQ(T.count("vllm:e2e_request_latency_seconds_bucket"), 0u);
  EXPECT_DOUBLE_EQ(T.at("vllm:e2e_request_latency_seconds_count"), 9);
}

TEST(Prometheus, DeltasAndDerivedFigures) {
  ServerMetricsDelta D = diffServerMetrics(totalsByName(parsePrometheusText(Start)),
                                           totalsByName(parsePrometheusText(End)));
  EXPECT_EQ(D.Prefix, "vllm:");
  EXPECT_DOUBLE_EQ(D.CounterDeltas.at("vllm:prefix_cache_queries_total"), 3000);
  // hits 2400 of 3000 queried tokens in the window.
  ASSERT_TRUE(D.PrefixCacheHitRate);
  EXPECT_DOUBLE_EQ(*D.PrefixCacheHitRate, 0.8);
  // 400 accepted over 200 drafts: AL = 1 + 2 = 3; rate = 400 / 600.
  ASSERT_TRUE(D.SpecAcceptanceLength);
  EXPECT_DOUBLE_EQ(*D.SpecAcceptanceLength, 3.0);
  EXPECT_DOUBLE_EQ(*D.SpecAcceptanceRate, 400.0 / 600.0);
  EXPECT_DOUBLE_EQ(*D.KvCacheUsageStart, 0.25);
  EXPECT_DOUBLE_EQ(*D.KvCacheUsageEnd, 0.75);
  EXPECT_DOUBLE_EQ(D.CounterDeltas.at("vllm:e2e_request_latency_seconds_count"), 10);
}

TEST(Prometheus, AcceptanceLengthFromDraftTokensWhenDraftsMissing) {
  MetricTotals S = {{"atom:spec_decode_num_draft_tokens_total", 0},
                    {"atom:spec_decode_num_accepted_tokens_total", 0}};
  MetricTotals E = {{"atom:spec_decode_num_draft_tokens_total", 300},
                    {"atom:spec_decode_num_accepted_tokens_total", 200}};
  // 3 drafts per step: 100 steps, 200 accepted: AL = 1 + 2 = 3.
  ServerMetricsDelta D = diffServerMetrics(S, E, 3);
  EXPECT_EQ(D.Prefix, "atom:");
  ASSERT_TRUE(D.SpecAcceptanceLength);
  EXPECT_DOUBLE_EQ(*D.SpecAcceptanceLength, 3.0);
  EXPECT_FALSE(diffServerMetrics(S, E, 0).SpecAcceptanceLength);
}

TEST(Prometheus, NoQueriesMeansNoHitRate) {
  MetricTotals S = {{"vllm:prefix_cache_queries_total", 5}, {"vllm:prefix_cache_hits_total", 1}};
  EXPECT_FALSE(diffServerMetrics(S, S).PrefixCacheHitRate);
}
} // namespace
