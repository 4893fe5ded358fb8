//===- Tuner.h - `kiln tune`: sweep the schedules of a model ----*- C++ -*-===//
#ifndef KILN_AUTOTUNE_TUNER_H
#define KILN_AUTOTUNE_TUNER_H

#include "autotune/Measure.h"
#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln::autotune {

struct TuneOptions {
  std::string modelPath;
  std::string dbPath;
  /// Target, CPU, features and layout the candidates compile for.
  CompileOptions compile;
  MeasureOptions measure;
  /// "random", "grid" or "model".
  std::string search = "model";
  /// Candidates measured per task (beyond the default), over all runs of
  /// the sweep: a resumed sweep measures only the rest.
  int trials = 32;
  /// This machine's share of the tasks: those whose index % count == index.
  int shardIndex = 0, shardCount = 1;
  /// Candidates compiled at once.
  unsigned jobs = 2;
  uint64_t seed = 1;
  /// Where task modules and candidate libraries go.
  std::string workDir;
  /// Progress: a redrawn line on a terminal, plain lines otherwise.
  bool terminal = false;
  /// Check the chosen schedules inside the whole model afterwards (local
  /// runs only; see ModelCheck.h).
  bool checkInModel = true;
  /// Choose measure.cold from the whole model's run times flushed and back
  /// to back (local runs only; chooseCacheState in ModelCheck.h).
  bool chooseCacheState = false;
};

/// Sweeps the tasks of `module` (imported from options.modelPath) and
/// records every measurement in the database.
llvm::Error tuneModel(mlir::ModuleOp module, const TuneOptions &options);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_TUNER_H
