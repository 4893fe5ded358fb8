//===- Pipeline.h - kiln.graph module to model library ----------*- C++ -*-===//
#ifndef KILN_COMPILER_PIPELINE_PIPELINE_H
#define KILN_COMPILER_PIPELINE_PIPELINE_H

#include "lowering/emit/ModelLibrary.h"
#include "lowering/targets/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <string>

namespace kiln {

struct CompileOptions {
  std::string target = "x86_64";
  TargetOptions targetOptions;
  /// Output library path; the header goes beside it with a `.h` suffix
  /// unless `headerPath` is set.
  std::string outputPath;
  std::string headerPath;
  /// When set, also write the target assembly of the model here.
  std::string asmPath;
  /// When set, also write the kernels' device code (PTX) here; an error for
  /// a target without device code.
  std::string deviceAsmPath;
  /// Convolution layout, "nchw" or "nhwc"; empty: the target's preference.
  std::string convLayout;
  /// Threads (and partitions of the module) for LLVM code generation; 0
  /// picks from the hardware and the model's size.
  unsigned codegenThreads = 0;
  /// Print the IR after each stage to stderr.
  bool dumpIR = false;
  /// Print each phase with its wall time to stderr (`kiln compile -v`).
  bool verbose = false;
  /// Print a remark for each op that takes a slow path (scalar loops, a
  /// fallback), with its node and the reason.
  bool remarks = false;
  /// Verify the IR after every pass instead of once per stage: slower, but
  /// an invalid op is named with the pass that made it.
  bool verifyEach = false;
  /// Write the weights to a file beside the library (`<output>.weights`,
  /// mapped by kiln_rt at load time) instead of into it.
  bool externalWeights = false;
  /// The same model imported with static input dims (`--specialize`):
  /// compiled beside the generic code into the same library, which runs the
  /// first one whose dims a run's inputs have, the generic code otherwise.
  /// A dim given as a range stays symbolic in its module, which lists the
  /// ranges in kSpecializeRangesAttr.
  std::vector<mlir::ModuleOp> specializations;
};

/// Module attribute of a `--specialize` module: [input name, dim, lo, hi]
/// for each dim the specialization takes within a range.
inline constexpr const char *kSpecializeRangesAttr = "kiln.specialize_ranges";

/// With `kiln compile -v`, prints "kiln: <phase> <seconds> s" to stderr
/// when it goes out of scope.
class PhaseTimer {
public:
  PhaseTimer(bool enabled, llvm::StringRef phase)
      : enabled(enabled), phase(phase.str()),
        start(std::chrono::steady_clock::now()) {}
  ~PhaseTimer();

private:
  bool enabled;
  std::string phase;
  std::chrono::steady_clock::time_point start;
};

/// Graph-level passes (folding, canonicalization, layout) on kiln.graph.
/// `integerContractions`: the target has an 8-bit dot product, so QDQ
/// convolutions and matmuls become integer ops. `precision` bf16 or fp16
/// runs convolutions channels-last and marks the contractions that compute
/// in that precision (kiln-reduce-precision).
void buildGraphPipeline(mlir::OpPassManager &pm,
                        llvm::StringRef convLayout = "nchw",
                        bool integerContractions = false,
                        llvm::StringRef precision = "fp32");

/// kiln.graph to linalg on tensors, with outputs written to destinations:
/// what a target's lowering pipeline starts from.
void buildToLinalgPipeline(mlir::OpPassManager &pm);

/// Runs `pipeline` on `module`; an error carries the first diagnostic, with
/// the ONNX node it is at.
llvm::Error runPipeline(mlir::ModuleOp module, mlir::OpPassManager &pipeline,
                        llvm::StringRef stage);

/// Compiles an imported module (one `func.func @main` in kiln.graph) into
/// a shared library and a C header. Errors carry one line for the user.
/// `infoOut`, when given, receives what the library's descriptor says
/// (target, CPU, features, arena).
llvm::Error compileModelLibrary(mlir::ModuleOp module,
                                const CompileOptions &options,
                                ModelLibraryInfo *infoOut = nullptr);

/// The signature the library compiled from `module` with `options` would
/// have (symbolic dims, outputs tied to input dims or sized at run time):
/// the graph passes, lowering to linalg and the tie check run on `module`,
/// which is left lowered.
llvm::Expected<ModelSignature>
describeModelSignature(mlir::ModuleOp module, const CompileOptions &options);

/// The ONNX op types that have a lowering, sorted.
std::vector<std::string> getSupportedOpTypes(mlir::MLIRContext &ctx);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINE_PIPELINE_H
