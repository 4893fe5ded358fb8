//===- Tasks.h - The tunable ops of a model ---------------------*- C++ -*-===//
//
// A task is one op signature a model's schedule selection covers, found by
// running the model's graph passes and lowering to linalg, then asking the
// target which ops it schedules. Ops of the same signature (ResNet's
// repeated blocks) are one task. Each task carries a one-op kiln.graph
// module cut out of the optimized graph (its constant operands, weights
// included, cloned; the others made inputs), which compiles to the
// one-op library candidates are measured on.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_TASKS_H
#define KILN_AUTOTUNE_TASKS_H

#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln::autotune {

struct Task {
  TunableOp op;
  /// How many ops of the model have this signature, and their nodes.
  int occurrences = 1;
  std::vector<std::string> nodes;
  /// The one-op module, printed (kiln.graph, generic form).
  std::string module;
  /// Named numeric features of the op for the cost model.
  std::vector<std::pair<std::string, double>> features;
};

/// The tasks of `module` (as imported; not modified) in model order.
llvm::Expected<std::vector<Task>> extractTasks(mlir::ModuleOp module,
                                               const CompileOptions &options);

/// The features of a tunable op: its kind, loop ranges and their products.
std::vector<std::pair<std::string, double>>
getTaskFeatures(const TunableOp &op);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_TASKS_H
