//===- SimSpec.h - The model and hardware a recipe declares, for the sim -*- C++ -*-===//
//
// A simulation spec is the one description of what to simulate that comes
// from the recipe itself: the model and the hardware, as the launch plan's
// top-level `model` and `hardware` objects carry them, in one JSON object
// `{"model": {...}, "hardware": {...}}` (arecipe-sim --sim-spec FILE; the
// fields are listed in docs/simulator.md, "Simulation spec"). This turns it
// into the profiles the roofline reads, deriving what a hand-written profile
// states directly (the dense/expert split of the checkpoint, KV elements per
// token, attention FLOPs), and refuses a spec that lacks a figure the
// simulator needs with a message naming the field. It never substitutes
// another model's figures.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_SIMSPEC_H
#define ARECIPE_SIM_SIMSPEC_H

#include "arecipe/Sim/Profiles.h"

#include <string>
#include <string_view>

namespace arecipe::sim {

/// Defaults of the optional fields (docs/simulator.md lists the same).
struct SimSpecDefaults {
  static constexpr double MemEfficiency = 0.7;
  static constexpr double FlopsEfficiency = 0.4;
  static constexpr double StepOverheadSeconds = 0.008;
  static constexpr double StageOverheadSeconds = 0.002;
  static constexpr double WeightLoadBandwidth = 10e9;
  static constexpr double GraphCaptureSecondsPerSize = 0.25;
  static constexpr double ActivationReserveBytes = 2e9;
};

/// Parses a spec; \p Origin names it in errors ("FILE: model.layers: ...").
bool parseSimSpec(std::string_view Text, const std::string &Origin,
                  HardwareProfile &Hw, ModelProfile &Model, std::string &Error);

/// Parses one half of a spec on its own: a hardware object or a model
/// object (a profile file of the catalogue, docs/simulator.md "Profiles").
bool parseHardwareSpec(std::string_view Text, const std::string &Origin,
                       HardwareProfile &Hw, std::string &Error);
bool parseModelSpec(std::string_view Text, const std::string &Origin,
                    ModelProfile &Model, std::string &Error);

/// Whether \p Hw states the peak FLOP/s of \p Model's weight precision
/// (no other precision stands in); else an error naming the field.
bool checkPrecisionPeak(const HardwareProfile &Hw, const ModelProfile &Model,
                        const std::string &Origin, std::string &Error);

/// Reads and parses the spec file \p Path.
bool loadSimSpec(const std::string &Path, HardwareProfile &Hw,
                 ModelProfile &Model, std::string &Error);

/// The peak-FLOP/s key ("bf16", "fp8", "fp4") a weight precision computes
/// at, or "" for a precision the simulator does not know.
std::string flopsKeyForPrecision(const std::string &Precision);

} // namespace arecipe::sim

#endif
