//===- OpenAiProtocol.h - OpenAI request parsing and SSE chunks -*- C++ -*-===//
//
// The wire format of /v1/chat/completions and /v1/completions, without any
// networking: request bodies in, response bodies and SSE events out. The
// token convention is shared with the load client: one token is one
// whitespace-separated word of the prompt (chat: the words of every message
// content in order, no template), and generated token i is the word "tok<i>".
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_OPENAIPROTOCOL_H
#define ARECIPE_SIM_OPENAIPROTOCOL_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::sim {

struct CompletionRequest {
  bool Chat = false;
  std::string Model;
  long PromptTokens = 0;
  std::vector<uint64_t> BlockHashes;
  std::optional<long> MaxTokens;
  bool Stream = false;
  bool IncludeUsage = false;
  bool IgnoreEos = false;
  /// kv_transfer_params.do_remote_prefill: a PD router sent the prompt to a
  /// prefill server first; its KV is here already.
  bool RemotePrefill = false;
};

/// Parses and checks a request body: every field the OpenAI API defines
/// for the endpoint that is present and not null must have its type (and
/// range: max_tokens >= 1, n = 1, ...). Returns false with an OpenAI-style
/// message in \p Error and the offending field's path in \p Param.
/// Unknown fields are ignored, as the engines ignore them.
bool parseCompletionRequest(std::string_view Body, bool Chat,
                            CompletionRequest &Out, std::string &Error,
                            std::string &Param);
bool parseCompletionRequest(std::string_view Body, bool Chat,
                            CompletionRequest &Out, std::string &Error);

/// What the engine does with a well-formed request before it queues it.
struct CompletionAdmission {
  long MaxTokens = 0;  // the completion length it will run to
  std::string Error;   // non-empty: answer 400 with this message
  std::string Param;
};

/// Refuses an empty prompt and a prompt plus completion beyond
/// \p ContextLimit tokens (without overflow for any max_tokens); a request
/// without max_tokens gets min(\p DefaultMaxTokens, the room left, at least
/// 1).
CompletionAdmission admitCompletion(const CompletionRequest &R,
                                    long ContextLimit, long DefaultMaxTokens);

/// `{"error": {...}}` as vLLM returns it; \p Param names the field at fault
/// (null when empty). Any bytes that are not UTF-8 are replaced.
std::string errorBody(std::string_view Message, std::string_view Type,
                      int Code, std::string_view Param = {});

struct Usage {
  long PromptTokens = 0;
  long CompletionTokens = 0;
  long CachedTokens = 0;
};

/// Builds the SSE events and JSON bodies of one completion. All methods
/// append to \p Out so the server can batch a step's output into one write.
class CompletionWriter {
public:
  CompletionWriter(bool Chat, std::string Id, std::string Model,
                   int64_t Created);

  /// `data: {...}\n\n` carrying tokens [First, First + Count).
  void appendTokensEvent(std::string &Out, long First, long Count);
  /// The finish_reason chunk, the usage chunk (when \p WithUsage) and
  /// `data: [DONE]`.
  void appendFinalEvents(std::string &Out, const Usage &U, bool WithUsage);
  /// A chunk cut off in the middle of its JSON (fault injection).
  void appendMalformedEvent(std::string &Out);
  /// The non-streaming response body.
  std::string fullResponse(const Usage &U, long Tokens) const;

private:
  std::string prefix(const char *Object) const;
  bool Chat;
  bool SentRole = false;
  std::string Id;
  std::string Model; // JSON-escaped
  int64_t Created;
  std::string FirstTokensHead; // up to the text; chat: carries the role
  std::string TokensHead;
  std::string TokensTail;      // after the text, through "\n\n"
};

/// Appends the text of generated tokens [First, First + Count).
void appendTokenText(std::string &Out, long First, long Count);

} // namespace arecipe::sim

#endif
