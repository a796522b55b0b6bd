//===- Redaction.h - Keep secrets out of reports ------------------*- C++
//-*-===//
//
// A report is meant to be shared, while the plan, the commands and the logs
// it quotes may hold credentials. A variable or option whose name ends in
// _TOKEN, _KEY or _SECRET (HF_TOKEN among them; case and '-' versus '_' do not
// matter) is a secret: its value is replaced by RedactedValue wherever the
// report shows it. This recognises names, not values: a credential pasted
// under an innocent name is not found.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_REDACTION_H
#define ARECIPE_REPORT_REDACTION_H

#include <string>
#include <string_view>
#include <vector>

namespace arecipe::report {

inline constexpr const char *RedactedValue = "[redacted]";

/// True for HF_TOKEN, OPENAI_API_KEY, aws-secret, --hf-token, env.MY_KEY...:
/// the last dotted component, without leading dashes, upper-cased with '-'
/// read as '_', ends in _TOKEN, _KEY or _SECRET.
bool isSecretName(std::string_view Name);

/// Text with the value of every `NAME=value`, `NAME: value`,
/// `"NAME": "value"` and `--name value` whose NAME is a secret replaced.
std::string redactSecrets(std::string_view Text);

/// An argv with the value of each secret option (`--hf-token X`,
/// `--api-key=X`) and each secret `NAME=value` word replaced.
std::vector<std::string> redactArgv(const std::vector<std::string> &Argv);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_REDACTION_H
