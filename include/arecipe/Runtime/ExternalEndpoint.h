//===- ExternalEndpoint.h - Measuring a server already running --*- C++ -*-===//
//
// `arecipe-run --endpoint URL` measures an OpenAI-compatible server that
// something else runs (a shared cluster's deployment, a managed service)
// with the recipe's own client, workload, metrics, validity rules, results
// and report: the plan's processes, pre-flight actions and profile windows
// are not run here, and each cell's client is pointed at URL. An API key
// comes from an environment variable named on the command line, never from
// the command line itself, and is registered for redaction so no log, plan
// copy, summary or report can show it. docs/runtime.md describes the mode.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_EXTERNALENDPOINT_H
#define ARECIPE_RUNTIME_EXTERNALENDPOINT_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/ProgressReport.h"
#include "arecipe/Runtime/RunSettings.h"

#include <string>

namespace arecipe::runtime {

struct EndpointOptions {
  std::string Url;       ///< http(s)://host[:port][/prefix]; a trailing /v1 is dropped
  std::string ApiKeyEnv; ///< the variable holding the key, sent as a Bearer token
  std::string Model;     ///< the served model name, when not the plan's
  std::string MetricsPath = "/metrics"; ///< "none": no server-metric scrape
};

/// Checks Options and fills S.Endpoint; false with Err (naming the option
/// or the variable, never a value).
bool configureEndpoint(const EndpointOptions &Options, RunSettings &S, std::string &Err);

/// Drops from every cell what is not done here against an external
/// endpoint: its processes, pre-flight actions and profile windows. The
/// cells' digests stay those of the plan.
void detachFromProcesses(LaunchPlan &Plan);

/// Waits up to TimeoutS for the endpoint to list the model of every cell
/// in Cells; false with Err (what it last answered).
bool waitForEndpoint(const std::vector<const Cell *> &Cells, const RunSettings &S, double TimeoutS,
                     ProgressReport &Progress, std::string &Err);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_EXTERNALENDPOINT_H
