//===- TraceFormats.h - Readers for public agentic trace formats -*- C++ -*-===//
//
// Besides arecipe's own JSONL (Trace.h), an agentic replay can read the two
// public trace formats benchmark suites replay, converted into the same
// TraceSession model (docs/traces.md says how each field maps):
//
// - mooncake: one request per line, {timestamp, input_length,
//   output_length, hash_ids} with hash blocks of 512 tokens;
// - weka: one coding-agent session per line, {id, models, block_size,
//   hash_id_scope, requests: [...]} whose requests carry the whole prompt's
//   length (`in`), the output length (`out`), timing and nested sub-agents.
//
// Files are read a line at a time, never whole, and validated with the
// JSONL reader's rules: every problem (up to 20) as "file:line: field:
// reason", nothing replayed while any remains.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_TRACEFORMATS_H
#define ARECIPE_CLIENT_TRACEFORMATS_H

#include "arecipe/Client/Trace.h"

#include <optional>
#include <string>
#include <string_view>

namespace arecipe::client {

enum class TraceFormat { Arecipe, Mooncake, Weka };

std::string_view traceFormatName(TraceFormat F);
std::optional<TraceFormat> parseTraceFormat(std::string_view Name);

struct TraceReadOptions {
  TraceFormat Format = TraceFormat::Arecipe;
  /// Tokens per Mooncake hash block (the published traces use 512); a
  /// multiple of 64, arecipe's block.
  int64_t MooncakeBlockTokens = 512;
  size_t MaxErrors = 20;
};

/// Reads and converts a trace file in any format; an unreadable file is one
/// error.
TraceLoadResult loadTrace(const std::string &Path, const TraceReadOptions &Options);
inline TraceLoadResult loadTrace(const std::string &Path, TraceFormat Format) {
  TraceReadOptions O;
  O.Format = Format;
  return loadTrace(Path, O);
}

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TRACEFORMATS_H
