//===- Tasks.cpp - The tunable ops of a model -----------------------------===//

#include "autotune/Tasks.h"

#include "compiler/pipeline/Registration.h"
#include "lowering/cpu/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;

namespace kiln::autotune {

std::vector<std::pair<std::string, double>>
getTaskFeatures(const TunableOp &op) {
  std::vector<std::pair<std::string, double>> f;
  for (const char *kind :
       {"conv", "conv_nhwc", "conv_grouped", "depthwise", "contraction"})
    f.emplace_back(std::string("kind_") + kind, op.kind == kind ? 1 : 0);
  double parallel = 1, reduction = 1;
  for (size_t i = 0; i < 8; ++i) {
    double range = i < op.loopRanges.size() ? op.loopRanges[i] : 1;
    f.emplace_back("log2_loop" + std::to_string(i), std::log2(range));
    if (i < op.loopRanges.size())
      (op.reductionLoops[i] ? reduction : parallel) *= range;
  }
  f.emplace_back("log2_parallel", std::log2(parallel));
  f.emplace_back("log2_reduction", std::log2(reduction));
  f.emplace_back("log2_work", std::log2(parallel * reduction));
  return f;
}

/// The op of `func` at ONNX node `node` that computes something (not a
/// constant).
static Operation *findNodeOp(func::FuncOp func, llvm::StringRef node) {
  Operation *found = nullptr;
  func.walk([&](Operation *op) {
    if (found || op->getNumResults() == 0 ||
        op->hasTrait<OpTrait::IsTerminator>() ||
        matchPattern(op, m_Constant()) || op->getNumRegions() != 0)
      return;
    if (cpu::getNodeName(op) == node)
      found = op;
  });
  return found;
}

/// A module whose main computes `op` alone: constant operands are cloned,
/// the others become inputs.
static OwningOpRef<ModuleOp> cutOut(Operation *op) {
  MLIRContext *ctx = op->getContext();
  OpBuilder b(ctx);
  Location loc = op->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  SmallVector<Type> inputs;
  for (Value v : op->getOperands())
    if (!matchPattern(v, m_Constant()))
      inputs.push_back(v.getType());
  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(
      loc, "main", b.getFunctionType(inputs, op->getResultTypes()));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping map;
  unsigned arg = 0;
  for (Value v : op->getOperands()) {
    if (map.contains(v))
      continue;
    if (matchPattern(v, m_Constant()))
      map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    else
      map.map(v, body->getArgument(arg++));
  }
  Operation *copy = b.clone(*op, map);
  b.create<func::ReturnOp>(loc, copy->getResults());
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttr(i, "kiln.name",
                    b.getStringAttr("input" + std::to_string(i)));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.setResultAttr(i, "kiln.name",
                       b.getStringAttr("output" + std::to_string(i)));
  return module;
}

llvm::Expected<std::vector<Task>> extractTasks(ModuleOp module,
                                               const CompileOptions &options) {
  std::unique_ptr<TargetBackend> target = createTarget(options.target);
  if (!target)
    return llvm::createStringError("unknown target '" + options.target + "'");
  OwningOpRef<ModuleOp> graph(cast<ModuleOp>(module->clone()));
  OpPassManager graphPm("builtin.module");
  buildGraphPipeline(graphPm,
                     options.convLayout.empty()
                         ? target->getPreferredConvLayout()
                         : llvm::StringRef(options.convLayout),
                     target->getInt8DotBits(options.targetOptions) > 0,
                     options.targetOptions.precision);
  if (auto err = runPipeline(*graph, graphPm, "graph optimization"))
    return std::move(err);
  OwningOpRef<ModuleOp> linalg(cast<ModuleOp>(graph->clone()));
  OpPassManager linalgPm("builtin.module");
  buildToLinalgPipeline(linalgPm);
  if (auto err = runPipeline(*linalg, linalgPm, "lowering to linalg"))
    return std::move(err);
  auto ops = target->getTunableOps(*linalg, options.targetOptions);
  if (!ops)
    return ops.takeError();
  auto entry = graph->lookupSymbol<func::FuncOp>("main");
  std::vector<Task> tasks;
  llvm::StringMap<size_t> bySignature;
  for (TunableOp &op : *ops) {
    auto [it, inserted] = bySignature.try_emplace(op.signature, tasks.size());
    if (!inserted) {
      ++tasks[it->second].occurrences;
      tasks[it->second].nodes.push_back(op.node);
      continue;
    }
    Operation *source = entry ? findNodeOp(entry, op.node) : nullptr;
    if (!source) {
      bySignature.erase(op.signature);
      continue; // no node to cut out (an op kiln made itself)
    }
    Task task;
    OwningOpRef<ModuleOp> cut = cutOut(source);
    llvm::raw_string_ostream os(task.module);
    cut->print(os);
    task.features = getTaskFeatures(op);
    task.nodes.push_back(op.node);
    task.op = std::move(op);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

} // namespace kiln::autotune
