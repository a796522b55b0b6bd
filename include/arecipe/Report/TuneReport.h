//===- TuneReport.h - The tuning report of arecipe-tune -----------*- C++
//-*-===//
//
// Renders what arecipe-tune found (its tune.json) as tune.html, one
// self-contained page in the style of the sweep report and through the same
// frame, charts and script: the candidates tried, the ones pruned with their
// reasons, the SLA frontier of every concurrency, and the recipe's own
// configuration against the tuned one on the Pareto chart. When the figures
// come from the simulator, every section says so, with the simulator's
// calibration error for the engine and hardware and the command that
// confirms the winners on real GPUs. The page is a function of tune.json
// alone: the same file always gives the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_TUNEREPORT_H
#define ARECIPE_REPORT_TUNEREPORT_H

#include <string>
#include <vector>

namespace arecipe::report {

/// Where arecipe-tune writes the page, beside tune.json.
inline constexpr const char *TuneReportFileName = "tune.html";

/// The page for TuneJson, the text of a tune.json. Returns an empty string
/// with Err set when the text is not a tune summary.
std::string renderTuneReport(const std::string &TuneJson, std::string &Err);

/// How far the simulator's figures were from measured seeds for Engine on
/// Hardware (plan names: "atom", "mi355x"), one line per comparison, as
/// docs/simulator.md#calibration records them; empty when the pair was never
/// compared with a measurement (not calibrated).
std::vector<std::string> simulatorCalibration(const std::string &Engine,
                                              const std::string &Hardware);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_TUNEREPORT_H
