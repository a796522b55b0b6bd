//===- Page.h - The frame shared by the report pages --------------*- C++
//-*-===//
//
// The parts the sweep report, the comparison and the tuning report share: the document frame
// with the inlined stylesheet and script, the badge that says whether figures
// are simulated, and the short form of a knob value. Nothing here knows the
// layout of either page.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_PAGE_H
#define ARECIPE_REPORT_PAGE_H

#include "arecipe/Report/SweepResults.h"

#include <string>

namespace arecipe::report {

/// From the doctype to the opening of <main>.
std::string pageHead(const std::string &Title);
/// From the closing of <main> to the end, with the page script.
std::string pageTail(const std::string &Footer);

/// "Simulated · time scale 50×" or "Measured", as a badge with a tooltip
/// saying what that means for the figures.
std::string timeBasisBadge(const SweepResults &Sweep);

/// A knob's JSON value as a table cell shows it: strings unquoted, long
/// lists shortened to their ends and length.
std::string shortKnobValue(const std::string &Json);

/// A status word as a coloured badge.
std::string statusBadge(const std::string &Status);

/// A summary card: a label, a large value (markup) and a note (markup).
std::string card(const std::string &Label, const std::string &Value, const std::string &Note);

/// A titled section of the page; Title and Body are markup.
std::string section(const std::string &Id, const std::string &Title, const std::string &Body);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_PAGE_H
