//===- SimRequestFuzzer.cpp - libFuzzer target over arecipe-sim's input ---===//
//
// What a client sends the simulator (a completion request body) and what a
// plan puts on its command line are untrusted. The first input byte picks
// the surface; the rest is the input:
//
//   0: a /v1/completions body, 1: a /v1/chat/completions body. A refused
//      body must have a message and an error body that is valid JSON; an
//      accepted one must pass admission consistently (a prompt and a
//      completion that fit the context, whatever max_tokens is) and render
//      SSE events and a response that are valid JSON, with the request's
//      own model name (any UTF-8) escaped into them.
//   2: NUL-separated simulator argv (--sim-… options, `--`, engine flags):
//      parsed as arecipe-sim parses it; an error must have a message.
//
// A crash, an abort (an uncaught JSON exception), a sanitizer report or a
// broken invariant is a bug.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/OpenAiProtocol.h"
#include "arecipe/Sim/SimOptions.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {
using namespace arecipe::sim;
using nlohmann::json;

[[noreturn]] void broken(const char *What, std::string_view Input) {
  std::fprintf(stderr, "invariant broken: %s\ninput: %.*s\n", What,
               int(Input.size()), Input.data());
  std::abort();
}

bool isJson(const std::string &Text) {
  return json::accept(Text);
}

/// Every `data: ` event of an SSE stream is JSON or [DONE].
void checkEvents(const std::string &Out, std::string_view Input) {
  for (size_t Pos = 0; Pos < Out.size();) {
    size_t End = Out.find("\n\n", Pos);
    if (End == std::string::npos || Out.compare(Pos, 6, "data: ") != 0)
      broken("an SSE event is not 'data: ...\\n\\n'", Input);
    std::string Payload = Out.substr(Pos + 6, End - Pos - 6);
    if (Payload != "[DONE]" && !isJson(Payload))
      broken("an SSE event is not JSON", Input);
    Pos = End + 2;
  }
}

void fuzzBody(std::string_view Body, bool Chat) {
  CompletionRequest R;
  std::string Error, Param;
  bool Ok = parseCompletionRequest(Body, Chat, R, Error, Param);
  if (!Ok) {
    if (Error.empty())
      broken("a refused body has no message", Body);
    if (!isJson(errorBody(Error, "BadRequestError", 400, Param)))
      broken("an error body is not JSON", Body);
    return;
  }
  if (!Error.empty() || R.PromptTokens < 0 || (R.MaxTokens && *R.MaxTokens < 1))
    broken("an accepted body has an error or impossible counts", Body);
  // Context limits from tiny to beyond any prompt, derived from the body so
  // runs are reproducible.
  long Limit = 1 + long(Body.size() % 5000);
  for (long ContextLimit : {Limit, 1L << 40}) {
    CompletionAdmission A = admitCompletion(R, ContextLimit, 256);
    if (!A.Error.empty()) {
      if (!isJson(errorBody(A.Error, "BadRequestError", 400, A.Param)))
        broken("an admission error body is not JSON", Body);
      continue;
    }
    if (R.PromptTokens < 1 || A.MaxTokens < 1 ||
        A.MaxTokens > ContextLimit - R.PromptTokens)
      broken("admission let through a request that does not fit", Body);
  }
  // The writer escapes the model name the request asked for (the server
  // uses its own served name; any UTF-8 must render the same way).
  CompletionWriter W(Chat, "cmpl-1", R.Model, 0);
  long Tokens = std::min(R.MaxTokens.value_or(3), 3L);
  std::string Out;
  W.appendTokensEvent(Out, 0, Tokens);
  W.appendFinalEvents(Out, {R.PromptTokens, Tokens, 0}, true);
  checkEvents(Out, Body);
  if (!isJson(W.fullResponse({R.PromptTokens, Tokens, 0}, Tokens)))
    broken("a response body is not JSON", Body);
}

void fuzzArgv(std::string_view Text) {
  std::vector<std::string> Args;
  size_t Pos = 0;
  while (Pos <= Text.size()) {
    size_t End = Text.find('\0', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    Args.emplace_back(Text.substr(Pos, End - Pos));
    Pos = End + 1;
  }
  SimOptions O;
  std::string Error;
  bool Help = false;
  if (!parseSimOptions(Args, O, Error, Help)) {
    if (Error.empty())
      broken("a refused command line has no message", Text);
    return;
  }
  EngineParseResult R = parseEngineArgv(O.EngineArgv, O.Engine);
  if (!R.Error.empty())
    return;
  const EngineConfig &C = R.Config;
  if (C.TensorParallel < 1 || C.PipelineParallel < 1 || C.MaxNumSeqs < 1 ||
      C.NumSpeculativeTokens < 0 ||
      C.NumSpeculativeTokens > MaxSpeculativeTokens ||
      C.TensorParallel % C.DecodeContextParallel != 0)
    broken("an accepted engine argv has out-of-range knobs", Text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  std::string_view Input(reinterpret_cast<const char *>(Data + 1), Size - 1);
  switch (Data[0] % 3) {
  case 0:
    fuzzBody(Input, false);
    break;
  case 1:
    fuzzBody(Input, true);
    break;
  default:
    fuzzArgv(Input);
    break;
  }
  return 0;
}
