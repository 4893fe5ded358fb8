//===- PruneCommand.cpp - kiln prune --------------------------------------===//

#include "compiler/driver/Commands.h"
#include "compiler/driver/OnnxFiles.h"
#include "compiler/pruning/WeightPruning.h"

#include "onnx/onnx_pb.h"

#include <cstdio>

namespace cl = llvm::cl;

namespace kiln::driver {

static cl::SubCommand
    pruneSub("prune",
             "Zero the smallest Conv/MatMul/Gemm weights of an ONNX model");
static cl::opt<std::string> pruneInput(cl::Positional, cl::Required,
                                       cl::desc("<model.onnx>"),
                                       cl::sub(pruneSub));
static cl::opt<std::string>
    pruneOutput("o", cl::value_desc("file"), cl::sub(pruneSub),
                cl::desc("Output model (default: <model>.pruned.onnx)"));
static cl::opt<double>
    sparsity("sparsity", cl::init(0.5), cl::value_desc("0..1"),
             cl::sub(pruneSub),
             cl::desc("Fraction of weights (of blocks) set to zero "
                      "(default 0.5; 2:4 is always 0.5)"));
static cl::opt<std::string>
    pattern("pattern", cl::init("unstructured"),
            cl::value_desc("unstructured|2:4|block:RxC"), cl::sub(pruneSub),
            cl::desc("Which weights may be zeroed together (default "
                     "unstructured)"));
static cl::opt<int64_t>
    minElements("min-elements", cl::init(0), cl::value_desc("N"),
                cl::sub(pruneSub),
                cl::desc("Leave weights with fewer elements dense"));

static int runPrune() {
  PruneOptions options;
  std::string error;
  if (!parsePrunePattern(pattern, options, error))
    return fail("--pattern: " + error);
  if (options.pattern == PruneOptions::Pattern::TwoFour &&
      sparsity.getNumOccurrences() && sparsity != 0.5)
    return fail("--sparsity: the 2:4 pattern is 0.5 sparse");
  options.sparsity = sparsity;
  if (!(options.sparsity >= 0 && options.sparsity < 1))
    return fail("--sparsity: must be in [0, 1)");
  options.minElements = minElements;

  onnx::ModelProto model;
  if (int rc = readOnnxModel(pruneInput, model))
    return rc;
  std::vector<PrunedTensor> report;
  if (!pruneModel(model, options, report, error))
    return fail(pruneInput + ": " + error);

  std::string out = pruneOutput.empty()
                        ? derivedModelPath(pruneInput, ".pruned.onnx")
                        : std::string(pruneOutput);
  std::string err = writeOnnxModel(model, out);
  if (!err.empty())
    return fail(err);

  int64_t zeros = 0, total = 0;
  std::printf("%-28s %-20s %-7s %12s %9s\n", "weight", "node", "op", "elements",
              "zeros");
  for (const PrunedTensor &t : report) {
    std::printf("%-28s %-20s %-7s %12lld ", t.name.c_str(),
                t.node.empty() ? "-" : t.node.c_str(), t.opType.c_str(),
                (long long)t.elements);
    if (!t.skipped.empty()) {
      std::printf("skipped: %s\n", t.skipped.c_str());
      continue;
    }
    std::printf("%8.1f%%\n", t.elements ? 100.0 * t.zeros / t.elements : 0.0);
    zeros += t.zeros;
    total += t.elements;
  }
  std::printf("pruned %lld of %lld weights (%.1f%%) -> %s\n", (long long)zeros,
              (long long)total, total ? 100.0 * zeros / total : 0.0,
              out.c_str());
  return 0;
}

Command PruneCommand{pruneSub, runPrune};

} // namespace kiln::driver
