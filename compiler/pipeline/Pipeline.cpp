//===- Pipeline.cpp - kiln.graph module to model library ------------------===//

#include "compiler/pipeline/Pipeline.h"

#include "dialects/graph/GraphDialect.h"
#include "lowering/bufferization/Passes.h"
#include "lowering/cpu/Passes.h"
#include "lowering/emit/FlattenConstantGlobals.h"
#include "lowering/emit/ModelLibrary.h"
#include "lowering/graph/Passes.h"
#include "lowering/to-linalg/Passes.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <optional>

using namespace mlir;

namespace kiln {

void buildGraphPipeline(OpPassManager &pm, llvm::StringRef convLayout,
                        bool integerContractions, llvm::StringRef precision) {
  // Reduced-precision convolutions are products of channels-last rows.
  bool reduced = precision == "bf16" || precision == "fp16";
  if (reduced)
    convLayout = "nhwc";
  pm.addPass(createCanonicalizerPass());
  // Weight preprocessing first, so BatchNormalization sees constant weights.
  pm.addNestedPass<func::FuncOp>(createFoldConstants());
  pm.addNestedPass<func::FuncOp>(createFoldBatchNorm());
  pm.addNestedPass<func::FuncOp>(createRefineShapes());
  // Activations and biases join the contraction before them.
  pm.addNestedPass<func::FuncOp>(createFuseEpilogue());
  pm.addNestedPass<func::FuncOp>(createShareConcatPrefixes());
  if (integerContractions)
    pm.addNestedPass<func::FuncOp>(createFuseQuantizedContractions());
  pm.addNestedPass<func::FuncOp>(createConvertLayout({convLayout.str()}));
  // Last, so that no graph rewrite drops the marks.
  if (reduced)
    pm.addNestedPass<func::FuncOp>(createReducePrecision({precision.str()}));
  pm.addPass(createCSEPass());
}

/// `features` without the AMX ones unless `m` uses tiles: kiln_rt asks the
/// OS for the tile state of a library that lists amx-tile, which a library
/// without tiles should neither need nor be refused for.
static std::string dropUnusedTileFeatures(llvm::StringRef features,
                                          const llvm::Module &m) {
  bool tiles = llvm::any_of(m.functions(), [](const llvm::Function &f) {
    return f.getName().starts_with("llvm.x86.tile") ||
           f.getName().starts_with("llvm.x86.tdp");
  });
  if (tiles)
    return features.str();
  llvm::SmallVector<llvm::StringRef> kept, all;
  features.split(all, ',', -1, false);
  for (llvm::StringRef f : all)
    if (!f.starts_with("amx-"))
      kept.push_back(f);
  return llvm::join(kept, ",");
}

/// "node 'NAME': " for a diagnostic located at an ONNX node.
static std::string nodePrefix(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<NameLoc>(inner))
        return nodePrefix(inner);
  if (auto name = dyn_cast<NameLoc>(loc))
    return "node '" + name.getName().getValue().str() + "': ";
  return "";
}

/// Collects the first error diagnostic as a single line "loc: message";
/// prints remarks when asked to, drops them otherwise.
class FirstErrorHandler {
public:
  FirstErrorHandler(MLIRContext *ctx, bool remarks)
      : handler(ctx, [this, remarks](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error &&
              message.empty())
            message = nodePrefix(diag.getLocation()) + diag.str();
          if (diag.getSeverity() == DiagnosticSeverity::Remark && remarks)
            llvm::errs() << "kiln: remark: " << nodePrefix(diag.getLocation())
                         << diag.str() << "\n";
          return success();
        }) {}
  std::string message;

private:
  ScopedDiagnosticHandler handler;
};

PhaseTimer::~PhaseTimer() {
  if (!enabled)
    return;
  std::chrono::duration<double> s = std::chrono::steady_clock::now() - start;
  llvm::errs() << llvm::formatv("kiln: {0,-36} {1,8:f3} s\n", phase, s.count());
}

/// When graph inputs have dynamic dims past the batch (the usual reason a
/// form has no lowering), names them and the flag that fixes them.
static std::string dynamicInputHint(ModuleOp module) {
  std::string inputs, flag;
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      auto t = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
      if (!t || llvm::none_of(t.getShape().drop_front(), ShapedType::isDynamic))
        continue;
      auto name = func.getArgAttrOfType<StringAttr>(i, "kiln.name");
      std::string n = name ? name.str() : "#" + std::to_string(i);
      std::string dims;
      for (auto [k, d] : llvm::enumerate(t.getShape()))
        dims += (k ? "x" : "") + (ShapedType::isDynamic(d)
                                      ? "<d" + std::to_string(k) + ">"
                                      : std::to_string(d));
      inputs += (inputs.empty() ? "" : ", ") + n + " " + dims;
      if (flag.empty())
        flag = "--input-shape " + n + "=" + dims;
    }
  });
  if (inputs.empty())
    return "";
  return " (graph inputs with dynamic dims: " + inputs +
         "; make them static with " + flag + ")";
}

static llvm::Error runPasses(ModuleOp module, OpPassManager &pipeline,
                             llvm::StringRef stage, bool dump,
                             bool remarks = false, bool verbose = false,
                             bool verifyEach = false) {
  PhaseTimer timer(verbose, stage);
  PassManager pm(module.getContext());
  static_cast<OpPassManager &>(pm) = pipeline;
  // The IR is verified once after the stage, not after each of its passes:
  // verifying a large model's function after every pass took a sixth of
  // DenseNet-121's compile time. --verify-each turns it back on.
  pm.enableVerifier(verifyEach);
  if (dump)
    module->print(llvm::errs() << "// ---- before " << stage << "\n");
  FirstErrorHandler errors(module.getContext(), remarks);
  if (failed(pm.run(module))) {
    std::string msg = errors.message;
    // Name the ONNX op when a graph op has no lowering.
    llvm::StringRef ref(msg);
    size_t at = ref.find("operation 'kiln_graph.");
    if (at != llvm::StringRef::npos) {
      llvm::StringRef op =
          ref.drop_front(at + 22).take_until([](char c) { return c == '\''; });
      // A fused op is the ONNX op it started as (FusedConv: Conv).
      op.consume_front("Fused");
      return llvm::createStringError(
          ref.take_front(ref.find("failed")).str() + "unsupported op '" +
          op.str() + "': no lowering for this form" + dynamicInputHint(module));
    }
    return llvm::createStringError(
        stage + " failed: " + (msg.empty() ? "unknown error" : msg));
  }
  if (failed(mlir::verify(module)))
    return llvm::createStringError(
        stage + " produced invalid IR: " +
        (errors.message.empty() ? "unknown error" : errors.message));
  return llvm::Error::success();
}

void buildToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGraphToLinalg());
  pm.addNestedPass<func::FuncOp>(createOutputsToDestinations());
}

llvm::Error runPipeline(ModuleOp module, OpPassManager &pipeline,
                        llvm::StringRef stage) {
  return runPasses(module, pipeline, stage, /*dump=*/false);
}

/// The kernel table of a profiled library: the kernels
/// kiln-cpu-instrument-profile numbered, with what kiln-annotate-profile
/// recorded about their nodes.
static std::vector<KernelInfo> collectKernelInfos(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  auto list = module->getAttrOfType<ArrayAttr>(kProfileKernelsAttr);
  auto nodes = module->getAttrOfType<DictionaryAttr>(kProfileNodesAttr);
  if (!list)
    return kernels;
  for (auto entry : list.getAsRange<DictionaryAttr>()) {
    KernelInfo k;
    k.symbol = entry.getAs<StringAttr>("symbol").str();
    k.node = entry.getAs<StringAttr>("node").str();
    if (auto node = nodes ? nodes.getAs<DictionaryAttr>(k.node) : nullptr) {
      k.opType = node.getAs<StringAttr>("op").str();
      k.fused = node.getAs<StringAttr>("fused").str();
      k.nodeFlops = node.getAs<FloatAttr>("flops").getValueAsDouble();
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

/// Writes the device code of every gpu.binary (one per library after
/// kiln-gpu-merge-kernel-modules) to `path`; empty for a model without
/// kernels.
static llvm::Error writeDeviceCode(ModuleOp module, llvm::StringRef path) {
  std::string code;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      code += cast<gpu::ObjectAttr>(object).getObject().getValue();
  });
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec)
    os << code;
  if (ec || os.has_error())
    return llvm::createStringError("cannot write " + path.str() + ": " +
                                   (ec ? ec : os.error()).message());
  return llvm::Error::success();
}

/// Graph passes, the signature, lowering to linalg on tensors and the check
/// of the signature's output ties: the first steps of every compile.
static llvm::Expected<ModelSignature>
lowerToLinalg(ModuleOp module, const CompileOptions &options,
              const TargetBackend &target,
              llvm::SmallVectorImpl<int64_t> &runTimeOutputs) {
  auto entry = module.lookupSymbol<func::FuncOp>("main");
  if (!entry)
    return llvm::createStringError("module has no 'main' function");
  // Graph passes first: folding shape computations can make the graph's
  // output shapes static, and the library's signature must say so.
  OpPassManager graphPm("builtin.module");
  buildGraphPipeline(graphPm,
                     options.convLayout.empty()
                         ? target.getPreferredConvLayout()
                         : llvm::StringRef(options.convLayout),
                     target.getInt8DotBits(options.targetOptions) > 0,
                     options.targetOptions.precision);
  if (options.targetOptions.profile)
    graphPm.addPass(createAnnotateProfile());
  if (auto err =
          runPasses(module, graphPm, "graph optimization", options.dumpIR,
                    options.remarks, options.verbose, options.verifyEach))
    return std::move(err);
  auto sig = extractModelSignature(entry);
  if (!sig)
    return sig.takeError();
  if (failed(SymbolTable::replaceAllSymbolUses(
          entry, StringAttr::get(module.getContext(), kEntryFunctionName),
          module)))
    return llvm::createStringError("cannot rename the entry function");
  SymbolTable::setSymbolName(entry, kEntryFunctionName);

  OpPassManager linalgPm("builtin.module");
  linalgPm.addPass(createConvertGraphToLinalg());
  if (auto err =
          runPasses(module, linalgPm, "lowering to linalg", options.dumpIR,
                    false, options.verbose, options.verifyEach))
    return std::move(err);
  // Outputs whose extents the inputs do not give are allocated by the run.
  runTimeOutputs = checkOutputTies(entry, *sig);
  return sig;
}

llvm::Expected<ModelSignature>
describeModelSignature(ModuleOp module, const CompileOptions &options) {
  std::unique_ptr<TargetBackend> target = createTarget(options.target);
  if (!target)
    return llvm::createStringError("unknown target '" + options.target + "'");
  llvm::SmallVector<int64_t> runTimeOutputs;
  return lowerToLinalg(module, options, *target, runTimeOutputs);
}

/// From linalg on tensors to the LLVM dialect: outputs into caller buffers
/// (but for `runTimeOutputs`, which the run allocates), then the target's
/// pipeline.
static llvm::Error lowerToLLVMDialect(ModuleOp module,
                                      const CompileOptions &options,
                                      const TargetBackend &target,
                                      ArrayRef<int64_t> runTimeOutputs) {
  if (!runTimeOutputs.empty())
    module.lookupSymbol<func::FuncOp>(kEntryFunctionName)
        ->setAttr(kRunTimeOutputsAttr,
                  DenseI64ArrayAttr::get(module.getContext(), runTimeOutputs));
  OpPassManager destinationPm("builtin.module");
  destinationPm.addNestedPass<func::FuncOp>(createOutputsToDestinations());
  if (auto err =
          runPasses(module, destinationPm, "lowering to linalg", options.dumpIR,
                    false, options.verbose, options.verifyEach))
    return err;
  DialectRegistry targetDialects;
  target.appendDialectRegistry(targetDialects);
  module.getContext()->appendDialectRegistry(targetDialects);
  OpPassManager targetPm("builtin.module");
  target.buildLoweringPipeline(targetPm, options.targetOptions);
  return runPasses(module, targetPm, "code generation", options.dumpIR,
                   options.remarks, options.verbose, options.verifyEach);
}

/// A specialization: `module` lowered like the generic one, its outputs
/// sized at run time where the generic library's are (one ABI for both),
/// translated into `llvmCtx` with its entry renamed to `entryName` and
/// every other definition internal, ready to link beside the generic code.
static llvm::Expected<std::unique_ptr<llvm::Module>>
lowerSpecialization(ModuleOp module, const CompileOptions &options,
                    const TargetBackend &target, const ModelSignature &generic,
                    ArrayRef<int64_t> runTimeOutputs,
                    llvm::LLVMContext &llvmCtx, llvm::StringRef entryName,
                    ModelVariant &variant, uint64_t &arenaBytes) {
  llvm::SmallVector<int64_t> own;
  auto sig = lowerToLinalg(module, options, target, own);
  if (!sig)
    return sig.takeError();
  if (sig->inputs.size() != generic.inputs.size() ||
      sig->outputs.size() != generic.outputs.size())
    return llvm::createStringError("--specialize: not the same model");
  for (int64_t i : own)
    if (!llvm::is_contained(runTimeOutputs, i))
      return llvm::createStringError(
          "--specialize: output '" + sig->outputs[i].name +
          "' would be sized at run time only in the specialization");
  for (int64_t i : runTimeOutputs)
    sig->outputs[i].sizedAtRunTime = true;
  if (auto err = lowerToLLVMDialect(module, options, target, runTimeOutputs))
    return std::move(err);
  flattenConstantGlobals(module);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmCtx, entryName);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : llvmModule->globals())
    if (!g.isDeclaration())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  // The entry stays external until linked (the linker drops unreferenced
  // internal definitions); addModelEntryPoints internalizes it.
  llvm::Function *variantEntry = llvmModule->getFunction(kEntryFunctionName);
  variantEntry->setName(entryName);
  variantEntry->setLinkage(llvm::GlobalValue::ExternalLinkage);
  if (llvm::Function *arenaFn = llvmModule->getFunction(kArenaBytesFunction)) {
    arenaFn->setName(entryName + "_arena_bytes");
    arenaFn->setLinkage(llvm::GlobalValue::ExternalLinkage);
    variant.arenaBytesFunction = arenaFn->getName().str();
  }
  variant.entry = entryName.str();
  variant.sig = std::move(*sig);
  // --specialize ranges: [input name, dim, lo, hi] each.
  if (auto ranges = module->getAttrOfType<ArrayAttr>(kSpecializeRangesAttr))
    for (Attribute a : ranges) {
      auto r = cast<ArrayAttr>(a);
      StringRef name = cast<StringAttr>(r[0]).getValue();
      auto input = llvm::find_if(variant.sig.inputs,
                                 [&](const auto &t) { return t.name == name; });
      if (input == variant.sig.inputs.end())
        return llvm::createStringError("--specialize: no input '" + name + "'");
      variant.ranges.push_back(
          {input - variant.sig.inputs.begin(), cast<IntegerAttr>(r[1]).getInt(),
           cast<IntegerAttr>(r[2]).getInt(), cast<IntegerAttr>(r[3]).getInt()});
    }
  if (auto bytes = module->getAttrOfType<IntegerAttr>(kArenaBytesAttr)) {
    variant.entryTakesArena = true;
    arenaBytes = std::max<uint64_t>(arenaBytes, bytes.getInt());
  }
  return llvmModule;
}

llvm::Error compileModelLibrary(ModuleOp module, const CompileOptions &options,
                                ModelLibraryInfo *infoOut) {
  std::unique_ptr<TargetBackend> target = createTarget(options.target);
  if (!target)
    return llvm::createStringError("unknown target '" + options.target + "'");
  llvm::SmallVector<int64_t> runTimeOutputs;
  auto sig = lowerToLinalg(module, options, *target, runTimeOutputs);
  if (!sig)
    return sig.takeError();
  if (!runTimeOutputs.empty() &&
      !target->getDevice(options.targetOptions).empty())
    return llvm::createStringError(
        "output '" + sig->outputs[runTimeOutputs[0]].name +
        "' is sized at run time (its extent depends on the data, or on "
        "arithmetic of input dims); target '" +
        target->getName().str() +
        "' does not support such outputs yet: compile for a CPU target, or "
        "fix the input dims with --input-shape");
  if (auto err = lowerToLLVMDialect(module, options, *target, runTimeOutputs))
    return err;
  if (options.dumpIR)
    module->print(llvm::errs() << "// ---- LLVM dialect\n");
  if (!options.deviceAsmPath.empty()) {
    if (target->getDevice(options.targetOptions).empty())
      return llvm::createStringError("--emit-ptx: target '" +
                                     target->getName() +
                                     "' compiles no device code");
    if (auto err = writeDeviceCode(module, options.deviceAsmPath))
      return err;
  }

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::optional<PhaseTimer> timer;
  timer.emplace(options.verbose, "translation to LLVM IR");
  flattenConstantGlobals(module);
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmCtx, sig->name);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");

  ModelLibraryInfo info;
  info.target = target->getName().str();
  info.device = target->getDevice(options.targetOptions);
  if (auto err =
          routeDeviceCalls(*llvmModule, kEntryFunctionName, info.deviceCalls))
    return err;
  if (options.targetOptions.profile)
    info.kernels = collectKernelInfos(module);
  std::string weightsBlob, weightsPath;
  if (options.externalWeights) {
    auto blob = externalizeWeights(*llvmModule);
    if (!blob)
      return blob.takeError();
    weightsBlob = std::move(*blob);
  }
  if (!weightsBlob.empty()) {
    llvm::SmallString<128> path(options.outputPath);
    llvm::sys::path::replace_extension(path, "weights");
    weightsPath = std::string(path);
    info.externalWeightsFile = llvm::sys::path::filename(path).str();
    info.externalWeightsBytes = weightsBlob.size();
    info.externalWeightsChecksum = fnv1a64(weightsBlob);
  }
  if (auto bytes = module->getAttrOfType<IntegerAttr>(kArenaBytesAttr)) {
    info.entryTakesArena = true;
    info.arenaBytes = bytes.getInt();
  }
  if (llvmModule->getFunction(kArenaBytesFunction))
    info.arenaBytesFunction = kArenaBytesFunction;
  if (auto bound = module->getAttrOfType<IntegerAttr>(kArenaLowerBoundAttr))
    info.arenaLowerBound = bound.getInt();
  if (!options.specializations.empty()) {
    if (!info.device.empty() || options.targetOptions.profile ||
        options.externalWeights)
      return llvm::createStringError(
          "--specialize works with CPU targets, without --profile and "
          "--weights external");
    timer.reset();
    for (auto [k, variantModule] : llvm::enumerate(options.specializations)) {
      ModelVariant variant;
      auto lowered = lowerSpecialization(
          variantModule, options, *target, *sig, runTimeOutputs, llvmCtx,
          (llvm::Twine(kEntryFunctionName) + "_specialized" + llvm::Twine(k))
              .str(),
          variant, info.arenaBytes);
      if (!lowered)
        return lowered.takeError();
      (*lowered)->setDataLayout(llvmModule->getDataLayout());
      (*lowered)->setTargetTriple(llvmModule->getTargetTriple());
      if (llvm::Linker::linkModules(*llvmModule, std::move(*lowered)))
        return llvm::createStringError("cannot link a specialization");
      info.variants.push_back(std::move(variant));
    }
  }
  auto createTargetMachine = [&] {
    return target->createTargetMachine(options.targetOptions);
  };
  auto tm = createTargetMachine();
  if (!tm)
    return tm.takeError();
  info.cpu = (*tm)->getTargetCPU().str();
  info.cpuFeatures =
      dropUnusedTileFeatures(target->getRequiredCpuFeatures(**tm), *llvmModule);
  if (auto err = addModelEntryPoints(*llvmModule, *sig, info))
    return err;

  CodegenOptions codegen;
  codegen.optLevel = options.targetOptions.optLevel;
  codegen.threads = options.codegenThreads;
  codegen.asmPath = options.asmPath;
  llvm::SmallVector<std::string> objects;
  timer.emplace(options.verbose, "LLVM optimization and object code");
  llvm::Error err = optimizeAndEmitObjects(
      *llvmModule, **tm, createTargetMachine, codegen, objects);
  timer.emplace(options.verbose, "link");
  if (!err)
    err = target->linkSharedLibrary(objects, options.outputPath);
  timer.reset();
  for (const std::string &object : objects)
    llvm::sys::fs::remove(object);
  if (err)
    return err;
  if (!weightsPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(weightsPath, ec, llvm::sys::fs::OF_None);
    if (!ec)
      os << weightsBlob;
    if (ec || os.has_error())
      return llvm::createStringError("cannot write " + weightsPath + ": " +
                                     (ec ? ec : os.error()).message());
  }
  if (infoOut)
    *infoOut = info;
  std::string header = options.headerPath;
  if (header.empty()) {
    llvm::SmallString<128> h(options.outputPath);
    llvm::sys::path::replace_extension(h, "h");
    header = std::string(h);
  }
  return writeModelHeader(*sig, info, header);
}

std::vector<std::string> getSupportedOpTypes(MLIRContext &ctx) {
  ctx.loadDialect<graph::GraphDialect>();
  GraphTypeConverter converter;
  RewritePatternSet patterns(&ctx);
  populateGraphToLinalgPatterns(converter, patterns);
  llvm::StringSet<> names;
  for (const auto &pattern : patterns.getNativePatterns()) {
    if (auto root = pattern->getRootKind()) {
      llvm::StringRef name = root->getStringRef();
      if (name.consume_front("kiln_graph."))
        names.insert(name);
    }
  }
  std::vector<std::string> out;
  for (const auto &n : names)
    // NoValue, Yield and the fused ops are kiln's own, not ONNX operators.
    if (n.getKey() != "NoValue" && n.getKey() != "Yield" &&
        !n.getKey().starts_with("Fused"))
      out.push_back(n.getKey().str());
  llvm::sort(out);
  return out;
}

} // namespace kiln
