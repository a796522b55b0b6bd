//===- CompletionStream.h - OpenAI streaming-response decoder ---*- C++ -*-===//
//
// Interprets the data of each server-sent event of an OpenAI-compatible
// streaming response (`/v1/chat/completions` or `/v1/completions` with
// `stream: true` and `stream_options.include_usage`). It decides which chunks
// carry output (content, reasoning or tool calls; role-only and usage-only
// chunks do not, so they never start the TTFT clock), captures the final usage
// block, and recognises `[DONE]` and in-stream errors. Events after `[DONE]`
// are not interpreted, only counted, and usage that cannot be right for the
// request (usageProblem) is reported rather than trusted. No networking and
// no timestamps: the transport owns the clock.
//
// Every chunk is decoded while it streams, so the common token chunk goes
// through scanChunk, a validating single-pass scanner that builds nothing;
// the usage chunk, errors and anything it does not recognise go to the full
// JSON parser, so both paths classify every input the same way.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_COMPLETIONSTREAM_H
#define ARECIPE_CLIENT_COMPLETIONSTREAM_H

#include <cstdint>
#include <string>
#include <string_view>

namespace arecipe::client {

/// Token counts reported by the server in the final `usage` chunk.
struct Usage {
  int64_t PromptTokens = -1;
  int64_t CompletionTokens = -1;
  int64_t CachedTokens = -1; ///< prompt_tokens_details.cached_tokens
};

/// What one event meant.
enum class ChunkKind {
  Output,    ///< carries generated text (content, reasoning or tool calls)
  Other,     ///< role-only, finish-only or usage-only chunk
  Done,      ///< the `[DONE]` sentinel
  Error,     ///< an `error` object, or data that is not JSON
  AfterDone, ///< anything after `[DONE]`: not interpreted, only counted
};

/// What scanChunk concluded about one event's data.
enum class ChunkScan {
  Output,     ///< a valid JSON object whose choices carry output
  NoOutput,   ///< a valid JSON object with neither output, usage nor error
  NeedsParser ///< usage, error, invalid JSON or a shape the scanner leaves alone
};

/// Scans Data without building a document. Output and NoOutput are only
/// returned when the full parser would accept Data as the same object and
/// find no `error` key and no non-null `usage`; everything else, including
/// malformed JSON, is NeedsParser. Pure, so it can be fuzzed against the
/// parser.
ChunkScan scanChunk(std::string_view Data);

class CompletionStreamDecoder {
public:
  /// Decodes one event's data and updates the stream state.
  ChunkKind onEvent(std::string_view Data);

  bool sawDone() const { return Done; }
  bool hasUsage() const { return GotUsage; }
  const Usage &usage() const { return U; }
  int64_t outputChunks() const { return OutputChunks; }
  /// For Error chunks: the server's message, or why the data was rejected.
  const std::string &errorMessage() const { return Error; }
  /// Events that arrived after `[DONE]`.
  int64_t eventsAfterDone() const { return AfterDoneEvents; }
  /// A usage member that is present but not a non-negative integer, e.g.
  /// "usage.completion_tokens is -3"; empty when there is none.
  const std::string &usageFormatProblem() const { return UsageFormat; }

private:
  Usage U;
  int64_t AfterDoneEvents = 0;
  std::string UsageFormat;
  bool GotUsage = false;
  bool Done = false;
  int64_t OutputChunks = 0;
  std::string Error;
};

/// Extra prompt tokens a chat template may add beyond one per body byte.
constexpr int64_t PromptTemplateAllowance = 65536;

/// Why a server's usage cannot be right for a request that asked for at
/// most MaxTokens output tokens (<= 0: unknown), sent a body of RequestBytes
/// bytes and streamed OutputChunks output chunks; empty when it is
/// plausible. A text token covers at least one byte and each output chunk
/// carries at least one new token, so usage must satisfy: completion_tokens
/// <= max_tokens, completion_tokens >= output chunks, prompt_tokens <= body
/// bytes + PromptTemplateAllowance, cached_tokens <= prompt_tokens.
std::string usageProblem(const Usage &U, int64_t OutputChunks, int64_t MaxTokens,
                         int64_t RequestBytes);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_COMPLETIONSTREAM_H
