//===- Repeats.h - A cell measured several times ----------------*- C++ -*-===//
//
// `arecipe-run --repeat N` measures every cell N times, each from a fresh
// start (server, warm-up, client), so the spread between runs can be told
// from a difference between configurations. Repeat 1 is the cell's ordinary
// result (`OUT/cells/<id>/`, what every other tool reads); repeat K ≥ 2 is a
// results directory of its own, `OUT/repeats/K/`, laid out like OUT (its
// plan copy, cells, tables and report), so each repeat stays inspectable and
// `--resume` finds what is finished per repeat. After a cell's repeats, its
// summary.json gets `arecipe_repeats`: the headline figures over the `ok`
// repeats with mean, sample standard deviation and the 95 % confidence
// interval of the mean (Student t, client::meanInterval95). docs/runtime.md
// describes the layout and the fields.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_REPEATS_H
#define ARECIPE_RUNTIME_REPEATS_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace arecipe::runtime {

/// The results directory of repeat K (1-based) of a sweep into OutDir.
std::string repeatOutDir(const std::string &OutDir, int Repeat);

/// `arecipe_repeats` from the summaries of one cell's repeats, in order
/// (nullopt: not finished). Planned is the number of repeats asked for.
nlohmann::ordered_json repeatFigures(const std::vector<std::optional<nlohmann::ordered_json>> &Runs,
                                     int Planned);

/// One console line for a cell's repeats: "3 of 3 repeats ok; total
/// tok/s/GPU 812.4 ± 3.1 (95 % CI 804.7 – 820.1); P90 interactivity ...".
std::string describeRepeats(const nlohmann::ordered_json &Figures);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_REPEATS_H
