//===- CostModel.h - A learned ranking of candidate schedules ---*- C++ -*-===//
//
// The model-guided search's model, after AutoTVM's XGBTuner: gradient
// boosted trees (XGBoost, pairwise ranking objective) over the features of
// the task (kind, loop ranges) and of the schedule (its fields), trained on
// every measured record of the target and device, grouped by task. Ranking
// within a task is what the search needs; training across tasks is what
// lets a model from one sweep rank the candidates of shapes it never saw.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_COSTMODEL_H
#define KILN_AUTOTUNE_COSTMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln::autotune {

using Features = std::vector<std::pair<std::string, double>>;

/// Task features followed by the schedule's numeric fields (a named
/// strategy becomes a stable number).
Features getCandidateFeatures(const Features &task,
                              const llvm::json::Object &schedule);

class CostModel {
public:
  CostModel() = default;
  ~CostModel();
  CostModel(const CostModel &) = delete;
  CostModel &operator=(const CostModel &) = delete;

  /// Trains on rows grouped by task: groups[i] consecutive rows share a
  /// task; `score` is higher for faster (default time / time).
  llvm::Error train(llvm::ArrayRef<Features> rows, llvm::ArrayRef<float> score,
                    llvm::ArrayRef<unsigned> groups);
  bool isTrained() const { return booster != nullptr; }
  /// Higher is predicted faster; comparable within one task.
  llvm::Expected<std::vector<float>> predict(llvm::ArrayRef<Features> rows);

private:
  std::vector<float> toMatrix(llvm::ArrayRef<Features> rows);

  void *booster = nullptr;
  /// Column of each feature name, fixed at training.
  llvm::StringMap<unsigned> columns;
};

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_COSTMODEL_H
