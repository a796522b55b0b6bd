//===- RedactionTest.cpp - Secrets never reach a report -------------------===//

#include "arecipe/Report/Redaction.h"

#include <gtest/gtest.h>

using namespace arecipe::report;

TEST(RedactionTest, SecretNamesByTheirSuffix) {
  for (const char *Name :
       {"HF_TOKEN", "OPENAI_API_KEY", "aws_secret", "--hf-token", "env.MY_KEY", "--api-key"})
    EXPECT_TRUE(isSecretName(Name)) << Name;
  for (const char *Name : {"max_num_batched_tokens", "TOKENIZER", "kv_cache_dtype", "KEYS", "tp"})
    EXPECT_FALSE(isSecretName(Name)) << Name;
}

TEST(RedactionTest, AssignmentsJsonAndOptionsInText) {
  EXPECT_EQ(redactSecrets("start HF_TOKEN=hf_abc --port 8000"),
            "start HF_TOKEN=[redacted] --port 8000");
  EXPECT_EQ(redactSecrets(R"({"HF_TOKEN": "hf_abc", "TP": "8"})"),
            R"({"HF_TOKEN": "[redacted]", "TP": "8"})");
  EXPECT_EQ(redactSecrets("OPENAI_API_KEY: sk-1\nnext"), "OPENAI_API_KEY: [redacted]\nnext");
  EXPECT_EQ(redactSecrets("serve --api-key sk-1 --tp 8"), "serve --api-key [redacted] --tp 8");
  // A name that is not a secret's keeps its value, and a secret name with no
  // value is left alone.
  EXPECT_EQ(redactSecrets("max_num_batched_tokens=8192 HF_TOKEN is unset"),
            "max_num_batched_tokens=8192 HF_TOKEN is unset");
}

TEST(RedactionTest, ArgvOptionsAndAssignments) {
  std::vector<std::string> Argv = {"serve",           "--hf-token", "hf_abc", "--api-key=sk-1",
                                   "HF_TOKEN=hf_abc", "--tp",       "8"};
  std::vector<std::string> Expected = {
      "serve", "--hf-token", "[redacted]", "--api-key=[redacted]", "HF_TOKEN=[redacted]",
      "--tp",  "8"};
  EXPECT_EQ(redactArgv(Argv), Expected);
}
