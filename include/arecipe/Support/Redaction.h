//===- Redaction.h - Keep secrets out of everything the tools write -*- C++ -*-===//
//
// Plans, engine command lines, environments and logs may hold credentials,
// while results, summaries, reports and the console are meant to be shared.
// Every sink that writes text the tools did not make up themselves passes it
// through redact() (or redactJson() for a JSON tree, redactArgv() for a
// command line) first: one function, so a new sink cannot get a weaker rule.
//
// What is a secret:
//  - the value after a secret name: `NAME=v`, `NAME: v`, `"NAME": "v"`,
//    `'NAME': 'v'`, `--name v`, `--name=v`, where the name, without leading
//    dashes, upper-cased, with '-' and camel case read as '_', is TOKEN,
//    SECRET, PASSWORD, PASSWD, PASSPHRASE, APIKEY, API_KEY or AUTHORIZATION,
//    or ends in _TOKEN, _KEY, _SECRET, _PASSWORD, _PASSWD, _PASSPHRASE or
//    _APIKEY (HF_TOKEN, OPENAI_API_KEY, --hf-token, apiKey, db.password);
//  - the credential after `Bearer`, `Basic` or `Token` (an Authorization
//    header), and the password of `scheme://user:password@host`;
//  - words shaped like well-known tokens: `hf_…`, `sk-…`, `ghp_…` and the
//    other GitHub token prefixes, with at least 16 characters after the
//    prefix;
//  - any value registered with addSecretValue(): the values of secret-named
//    variables of the runtime's environment and of the plan, and of secret
//    options in the plan's command lines, wherever they appear, even alone.
// Each is replaced by RedactedMarker. Redaction is one forward pass over the
// input that never rescans its own output, so it ends on every input, even
// when a secret equals or is part of the marker; text already redacted is
// left as it is, so applying it twice changes nothing.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_REDACTION_H
#define ARECIPE_SUPPORT_REDACTION_H

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::support {

inline constexpr std::string_view RedactedMarker = "[redacted]";

/// Registered values shorter than this are ignored: replacing every "1" or
/// "on" would destroy the text and protect nothing.
inline constexpr size_t MinSecretValueLength = 4;

/// True for the names described above.
bool isSecretName(std::string_view Name);

/// Remembers Value (process-wide, thread-safe): every later redaction
/// replaces it wherever it occurs.
void addSecretValue(std::string_view Value);
/// Registers the value of every secret-named variable of this process's
/// environment.
void addSecretValuesFromEnvironment();
/// Registers the values of the secret-named variables of Env and of the
/// secret options of Argv (`--api-key X`, `--hf-token=X`, `TOKEN=X`).
void addSecretValuesOf(const std::map<std::string, std::string> &Env,
                       const std::vector<std::string> &Argv = {});

/// Registers every value redactJson would replace in V (a plan: its
/// secret-named variables, secret options, URLs with passwords).
void addSecretValuesIn(const nlohmann::json &V);

/// Text with every secret replaced by RedactedMarker.
std::string redact(std::string_view Text);

/// A command line with the word after each secret option (`--api-key X`)
/// replaced, and every word redacted as text.
std::vector<std::string> redactArgv(const std::vector<std::string> &Argv);

/// Redacts a JSON tree in place: a string or number under a secret key is
/// replaced, a list of strings is read as a command line, every other
/// string and every key as text. True if anything changed.
bool redactJson(nlohmann::json &V);
bool redactJson(nlohmann::ordered_json &V);

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_REDACTION_H
