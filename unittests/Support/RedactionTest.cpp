//===- RedactionTest.cpp - Secrets never reach an output ------------------===//

#include "arecipe/Support/Redaction.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace arecipe::support;

TEST(Redaction, SecretNames) {
  for (const char *Name : {"HF_TOKEN", "OPENAI_API_KEY", "aws_secret", "--hf-token", "env.MY_KEY",
                           "--api-key", "TOKEN", "--token", "DB_PASSWORD", "password", "MY_APIKEY",
                           "apiKey", "X-Api-Key", "Authorization", "db.passwd"})
    EXPECT_TRUE(isSecretName(Name)) << Name;
  for (const char *Name : {"max_num_batched_tokens", "TOKENIZER", "kv_cache_dtype", "KEYS", "tp",
                           "key", "HF_TOKEN_PATH", "--max-tokens", "monkey", "experts_per_token",
                           "kv_bytes_per_token"})
    EXPECT_FALSE(isSecretName(Name)) << Name;
}

TEST(Redaction, AssignmentsJsonAndOptionsInText) {
  EXPECT_EQ(redact("start HF_TOKEN=abcd --port 8000"), "start HF_TOKEN=[redacted] --port 8000");
  EXPECT_EQ(redact(R"({"HF_TOKEN": "abcd", "TP": "8"})"),
            R"({"HF_TOKEN": "[redacted]", "TP": "8"})");
  EXPECT_EQ(redact(R"({"api_key":"X1234"})"), R"({"api_key":"[redacted]"})");
  EXPECT_EQ(redact("{'api_key': 'X1234', 'tp': 8}"), "{'api_key': '[redacted]', 'tp': 8}");
  EXPECT_EQ(redact("OPENAI_API_KEY: sk-1\nnext"), "OPENAI_API_KEY: [redacted]\nnext");
  EXPECT_EQ(redact("serve --api-key sk-1 --tp 8"), "serve --api-key [redacted] --tp 8");
  EXPECT_EQ(redact("serve --token abc --hf-token=def"),
            "serve --token [redacted] --hf-token=[redacted]");
  EXPECT_EQ(redact("TOKEN=a1 DB_PASSWORD=b2 MY_APIKEY=c3"),
            "TOKEN=[redacted] DB_PASSWORD=[redacted] MY_APIKEY=[redacted]");
  // A name that is not a secret's keeps its value, and a secret name with no
  // value is left alone.
  EXPECT_EQ(redact("max_num_batched_tokens=8192 HF_TOKEN is unset"),
            "max_num_batched_tokens=8192 HF_TOKEN is unset");
}

TEST(Redaction, HeadersUrlsAndTokenShapes) {
  EXPECT_EQ(redact("-H 'Authorization: Bearer eyJhbGciOi.x'"),
            "-H 'Authorization: Bearer [redacted]'");
  EXPECT_EQ(redact("sent bearer abcdefgh1234 to it"), "sent bearer [redacted] to it");
  EXPECT_EQ(redact("fetch https://alice:s3cret@hub.example.com/x and http://host/y"),
            "fetch https://alice:[redacted]@hub.example.com/x and http://host/y");
  EXPECT_EQ(redact("login hf_abcdefghijklmnopqrstu ok"), "login [redacted] ok");
  EXPECT_EQ(redact("use sk-proj-abcdefghijklmnop1234"), "use [redacted]");
  EXPECT_EQ(redact("hf_short stays"), "hf_short stays");
}

TEST(Redaction, RegisteredValuesAnywhere) {
  addSecretValue("Zq9-registered-value");
  EXPECT_EQ(redact("the value Zq9-registered-value alone"), "the value [redacted] alone");
  addSecretValue("ab"); // too short to register
  EXPECT_EQ(redact("ab"), "ab");
}

TEST(Redaction, EndsWhenASecretIsPartOfTheMarker) {
  // Finding 5: a secret equal to, or inside, the marker text made the old
  // redaction loop forever.
  for (const char *S : {"redacted", "[redacted]", "dacted]", "edac"})
    addSecretValue(S);
  auto Start = std::chrono::steady_clock::now();
  EXPECT_EQ(redact("HF_TOKEN=redacted"), "HF_TOKEN=[redacted]");
  EXPECT_EQ(redact("a redacted b"), "a [redacted] b");
  EXPECT_EQ(redact("[redacted]"), "[redacted]");
  std::string Once = redact("x redacted y [redacted] zedac");
  EXPECT_EQ(redact(Once), Once); // redacting twice changes nothing
  EXPECT_LT(std::chrono::steady_clock::now() - Start, std::chrono::seconds(5));
}

TEST(Redaction, ArgvOptionsAndAssignments) {
  std::vector<std::string> Argv = {"serve",         "--hf-token", "abcd", "--api-key=sk-1",
                                   "HF_TOKEN=abcd", "--tp",       "8",    R"({"api_key":"X9"})"};
  std::vector<std::string> Expected = {"serve",
                                       "--hf-token",
                                       "[redacted]",
                                       "--api-key=[redacted]",
                                       "HF_TOKEN=[redacted]",
                                       "--tp",
                                       "8",
                                       R"({"api_key":"[redacted]"})"};
  EXPECT_EQ(redactArgv(Argv), Expected);
}

TEST(Redaction, JsonTrees) {
  nlohmann::ordered_json J = {{"env", {{"HF_TOKEN", "abcd"}, {"TP", "8"}, {"MY_KEY", 12345}}},
                              {"argv", {"serve", "--api-key", "k1234"}},
                              {"log_tail", "DB_PASSWORD=pw1234 ok"},
                              {"HF_TOKEN=abcd", 1}};
  EXPECT_TRUE(redactJson(J));
  EXPECT_EQ(J["env"]["HF_TOKEN"], "[redacted]");
  EXPECT_EQ(J["env"]["TP"], "8");
  EXPECT_EQ(J["env"]["MY_KEY"], "[redacted]");
  EXPECT_EQ(J["argv"][2], "[redacted]");
  EXPECT_EQ(J["log_tail"], "DB_PASSWORD=[redacted] ok");
  EXPECT_TRUE(J.contains("HF_TOKEN=[redacted]"));
  EXPECT_FALSE(redactJson(J)); // nothing left to change
}

TEST(Redaction, PlanValuesAreRegistered) {
  nlohmann::json Plan = {{"env", {{"WANDB_API_KEY", "w4nDb-value"}}},
                         {"argv", {"serve", "--token", "t0ken-value", "--x=1"}},
                         {"url", "https://u:pAss-value@h/x"}};
  addSecretValuesIn(Plan);
  EXPECT_EQ(redact("w4nDb-value t0ken-value pAss-value"), "[redacted] [redacted] [redacted]");
}
