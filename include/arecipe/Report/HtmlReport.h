//===- HtmlReport.h - The sweep report and the sweep comparison ---*- C++
//-*-===//
//
// Renders results as one self-contained HTML page — inline CSS, inline SVG
// charts drawn here, and a small inline script for metric selection and
// tooltips — that opens from disk with no network. The sweep report shows the
// Pareto chart (throughput per GPU against interactivity, one point per
// concurrency), latency distributions per cell, the knob table with
// provenance, and failed or invalid cells with their log tails. The
// comparison overlays several sweeps, one curve each, with per-concurrency
// deltas against the first. The same input always gives the same bytes: no
// clock, no environment, no absolute path that was not in the input.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_HTMLREPORT_H
#define ARECIPE_REPORT_HTMLREPORT_H

#include "arecipe/Report/SweepResults.h"

#include <string>
#include <vector>

namespace arecipe::report {

/// Where `arecipe-run report DIR DIR2...` writes the comparison by default:
/// in the first (baseline) directory, beside its report.html.
inline constexpr const char *ComparisonFileName = "compare.html";

/// The page for one sweep (`report.html`).
std::string renderSweepReport(const SweepResults &Sweep);

/// The page comparing Sweeps, the first being the baseline of every delta.
/// Links to each sweep's own report are relative to the directory of the
/// page, OutputDir.
std::string renderComparisonReport(const std::vector<SweepResults> &Sweeps,
                                   const std::string &OutputDir);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_HTMLREPORT_H
