//===- HtmlPage.cpp - The frame shared by the report pages ----------------===//

#include "Page.h"
#include "Svg.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace arecipe::report {

#include "ReportAssets.inc"

std::string pageHead(const std::string &Title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, "
                     "initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"arecipe-run\">\n"
                     "<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n<main>\n",
                     escapeHtml(Title), ReportCss);
}

std::string pageTail(const std::string &Footer) {
  return fmt::format("</main>\n<footer>{}</footer>\n<div id=\"tooltip\" role=\"tooltip\" "
                     "hidden></div>\n<script>\n{}</script>\n</body>\n</html>\n",
                     Footer, ReportJs);
}

std::string timeBasisBadge(const SweepResults &Sweep) {
  if (!Sweep.Simulated)
    return fmt::format("<span class=\"badge measured\" data-tip=\"{}\">Measured</span>",
                       escapeAttr("Measured\nFigures\ton the hardware, in wall-clock time"));
  std::string Tip = fmt::format("Simulated by arecipe-sim\nTime scale\t{0} simulated s per wall "
                                "s\nFigures\tin simulated time\nCaveat\twall-clock overheads "
                                "are stretched {0}× too (docs/runtime.md)",
                                Sweep.TimeScale);
  return fmt::format("<span class=\"badge simulated\" data-tip=\"{}\">Simulated · time scale "
                     "{}×</span>",
                     escapeAttr(Tip), Sweep.TimeScale);
}

std::string shortKnobValue(const std::string &Json) {
  nlohmann::json V = nlohmann::json::parse(Json, nullptr, false);
  if (V.is_string())
    return V.get<std::string>();
  if (V.is_array() && V.size() > 6)
    return fmt::format("[{}, {}, …, {}] ({} items)", V[0].dump(), V[1].dump(),
                       V[V.size() - 1].dump(), V.size());
  if (V.is_discarded() || Json.size() <= 48)
    return Json;
  return Json.substr(0, 45) + "…";
}

std::string statusBadge(const std::string &Status) {
  return fmt::format("<span class=\"status status-{0}\">{0}</span>", escapeHtml(Status));
}

std::string card(const std::string &Label, const std::string &Value, const std::string &Note) {
  return fmt::format("<div class=\"card\"><div class=\"card-label\">{}</div><div "
                     "class=\"card-value\">{}</div><div class=\"card-note\">{}</div></div>",
                     Label, Value, Note);
}

std::string section(const std::string &Id, const std::string &Title, const std::string &Body) {
  return fmt::format("<section id=\"{}\"><h2>{}</h2>\n{}</section>\n", Id, Title, Body);
}

} // namespace arecipe::report
