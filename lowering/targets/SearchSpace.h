//===- SearchSpace.h - What a target lets the tuner choose ------*- C++ -*-===//
//
// The autotuner is target-neutral: a target reports the ops of a module it
// can schedule (TunableOp) and, per op, the knobs with their values and the
// constraints between them (SearchSpace). A candidate is one value per
// knob; the target turns it into the schedule entry its schedule-selection
// pass reads (`--schedule-file` format), so a measured candidate and a
// compile from the tuning database build the same code.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TARGETS_SEARCHSPACE_H
#define KILN_LOWERING_TARGETS_SEARCHSPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// An op the target's schedules cover, as found in a module.
struct TunableOp {
  /// Fingerprint of the op's kind, types and attributes: the tuning
  /// database's key (and a schedule file's key for every such op).
  std::string signature;
  /// The ONNX node it comes from (may be empty).
  std::string node;
  /// Schedule kind, e.g. "conv" or "contraction" (target-defined).
  std::string kind;
  /// Static loop ranges, and which loops are reductions.
  std::vector<int64_t> loopRanges;
  std::vector<bool> reductionLoops;
  /// The heuristic's schedule, as a schedule-file entry.
  llvm::json::Object defaultSchedule;
};

/// One tunable parameter. Integer values; a knob with labels stands for
/// named choices (value i is labels[i]), such as the algorithm.
struct Knob {
  std::string name;
  std::vector<int64_t> values;
  std::vector<std::string> labels;
};

struct SearchSpace {
  std::vector<Knob> knobs;
  /// Whether a candidate (one value per knob, in knob order) is valid:
  /// register and cache limits, divisibility, and "a knob the chosen
  /// algorithm ignores keeps its first value" so that no two candidates
  /// build the same code.
  std::function<bool(llvm::ArrayRef<int64_t>)> isValid;
  /// The schedule-file entry of a valid candidate.
  std::function<llvm::json::Object(llvm::ArrayRef<int64_t>)> toSchedule;

  /// Every valid candidate, in mixed-radix order of the knobs (the first
  /// knob varies slowest).
  std::vector<std::vector<int64_t>> enumerate() const;
};

} // namespace kiln

#endif // KILN_LOWERING_TARGETS_SEARCHSPACE_H
