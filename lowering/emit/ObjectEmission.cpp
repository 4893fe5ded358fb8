//===- ObjectEmission.cpp - LLVM optimization, object files, C header -----===//
//
// Large models spend most of their compile time in LLVM's optimizer and code
// generator, one function at a time. The module is therefore split into
// partitions of whole functions that are optimized and compiled on their own
// threads, each in its own LLVMContext, and linked together afterwards.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/ModelLibrary.h"

#include "kiln_model_abi.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <thread>

using namespace llvm;

namespace kiln {

/// Most partitions used when the count is chosen automatically.
static constexpr unsigned kMaxAutoPartitions = 8;
/// Modules of a smaller estimated cost (see estimateCost) compile in one
/// piece: the split, the bitcode round trip and the threads would cost more
/// than they save.
static constexpr size_t kMinCostToSplit = 20000;

/// Estimated cost of optimizing and compiling `f`, in instructions. Large
/// functions cost more per instruction (register allocation, scheduling and
/// strength reduction grow faster than linearly): a 20000-instruction entry
/// function takes about 1.8 times as long per instruction as small loop
/// bodies.
static size_t estimateCost(const Function &f) {
  size_t n = 0;
  for (const BasicBlock &bb : f)
    n += bb.size();
  return n + n * n / 25000;
}

static void runOptimizationPipeline(Module &m, TargetMachine &tm,
                                    unsigned optLevel) {
  if (optLevel == 0)
    return;
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel >= 3   ? OptimizationLevel::O3
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O1;
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

static Error emitToStream(Module &m, TargetMachine &tm, raw_pwrite_stream &os,
                          CodeGenFileType type) {
  legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, os, nullptr, type))
    return createStringError("the target cannot emit this file type");
  codegen.run(m);
  return Error::success();
}

/// Optimizes `m`, then writes its object to `objPath` and, when `asmText` is
/// given, its assembly there.
static Error compilePartition(Module &m, TargetMachine &tm, unsigned optLevel,
                              StringRef objPath, std::string *asmText) {
  runOptimizationPipeline(m, tm, optLevel);
  // Code generation rewrites the IR, so assembly is emitted from a copy.
  if (asmText) {
    raw_string_ostream os(*asmText);
    buffer_ostream buffered(os);
    if (Error err = emitToStream(*CloneModule(m), tm, buffered,
                                 CodeGenFileType::AssemblyFile))
      return err;
  }
  std::error_code ec;
  raw_fd_ostream os(objPath, ec, sys::fs::OF_None);
  if (ec)
    return createStringError("cannot write " + objPath + ": " + ec.message());
  return emitToStream(m, tm, os, CodeGenFileType::ObjectFile);
}

/// Splitting gives each partition its own copy of the declarations it uses
/// and turns local symbols into hidden ones; constructs whose meaning depends
/// on staying in one object are left alone.
static bool canSplit(const Module &m) {
  if (!m.getModuleInlineAsm().empty() || !m.alias_empty() || !m.ifunc_empty() ||
      !m.getComdatSymbolTable().empty())
    return false;
  for (const Function &f : m)
    for (const BasicBlock &bb : f)
      if (bb.hasAddressTaken())
        return false;
  return true;
}

/// Assigns each defined function to a partition, largest first onto the
/// least loaded one. Returns the partition count actually used.
static unsigned assignPartitions(const Module &m, unsigned requested,
                                 DenseMap<const Function *, unsigned> &part) {
  SmallVector<std::pair<size_t, const Function *>> sizes;
  DenseMap<const Function *, unsigned> order;
  size_t total = 0, largest = 0;
  for (const Function &f : m) {
    if (f.isDeclaration())
      continue;
    size_t cost = estimateCost(f);
    order[&f] = sizes.size();
    sizes.push_back({cost, &f});
    total += cost;
    largest = std::max(largest, cost);
  }
  unsigned count = requested;
  if (count == 0) {
    count = std::min(hardware_concurrency().compute_thread_count(),
                     kMaxAutoPartitions);
    if (total < kMinCostToSplit)
      count = 1;
    // No partition finishes before the largest function does; partitions
    // beyond what that allows only add overhead.
    if (largest > 0)
      count = std::min<size_t>(count, (total + largest / 2) / largest);
  }
  count = std::min<size_t>(count, sizes.size());
  if (count <= 1 || !canSplit(m))
    return 1;

  // Partition 0 keeps the global variables (the weights). Writing them out
  // is cheap next to compiling code: about one instruction's cost per 4 KiB.
  SmallVector<size_t> load(count, 0);
  for (const GlobalVariable &g : m.globals())
    if (g.hasInitializer())
      load[0] += m.getDataLayout().getTypeAllocSize(g.getValueType()) / 4096;
  // Largest first; equal sizes keep module order, so the split is
  // deterministic.
  llvm::sort(sizes, [&](auto &a, auto &b) {
    return a.first != b.first ? a.first > b.first
                              : order.lookup(a.second) < order.lookup(b.second);
  });
  for (auto [n, f] : sizes) {
    unsigned least = std::min_element(load.begin(), load.end()) - load.begin();
    part[f] = least;
    load[least] += n;
  }
  return count;
}

Error optimizeAndEmitObjects(Module &m, TargetMachine &tm,
                             TargetMachineFactory createTargetMachine,
                             const CodegenOptions &options,
                             SmallVectorImpl<std::string> &objects) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple());
  // Lowered MLIR carries no CPU attributes; give every function the target's
  // so the vectorizers may use the full ISA.
  for (Function &f : m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", tm.getTargetCPU());
    if (!tm.getTargetFeatureString().empty())
      f.addFnAttr("target-features", tm.getTargetFeatureString());
    // Parallel loop bodies are handed to the runtime by address and called
    // directly only when the runtime is absent. Inlining that fallback call
    // would duplicate every body into the entry function: about a quarter
    // more code to optimize and compile, for no gain on the threaded path.
    if (f.hasAddressTaken() && !f.hasFnAttribute(Attribute::AlwaysInline))
      f.addFnAttr(Attribute::NoInline);
  }
  if (verifyModule(m, &errs()))
    return createStringError("generated LLVM IR is invalid");

  auto newObjectPath = [&]() -> Expected<std::string> {
    SmallString<128> path;
    if (auto ec = sys::fs::createTemporaryFile("kiln", "o", path))
      return errorCodeToError(ec);
    objects.push_back(std::string(path));
    return objects.back();
  };
  auto writeAsm = [&](ArrayRef<std::string> parts) -> Error {
    std::error_code ec;
    raw_fd_ostream os(options.asmPath, ec, sys::fs::OF_Text);
    if (ec)
      return createStringError("cannot write " + options.asmPath + ": " +
                               ec.message());
    StringRef comment = tm.getMCAsmInfo()->getCommentString();
    for (auto [i, text] : llvm::enumerate(parts)) {
      if (parts.size() > 1)
        os << comment << " ---- partition " << i << " of " << parts.size()
           << "\n";
      os << text;
    }
    return Error::success();
  };
  bool wantAsm = !options.asmPath.empty();

  DenseMap<const Function *, unsigned> part;
  unsigned count = assignPartitions(m, options.threads, part);
  if (count == 1) {
    auto path = newObjectPath();
    if (!path)
      return path.takeError();
    std::string asmText;
    if (Error err = compilePartition(m, tm, options.optLevel, *path,
                                     wantAsm ? &asmText : nullptr))
      return err;
    return wantAsm ? writeAsm({asmText}) : Error::success();
  }

  // Locals become hidden globals so that partitions can reference each
  // other's functions and weights; the library still exports only what it
  // exported before.
  for (GlobalValue &gv : m.global_values()) {
    if (gv.isDeclaration() || !gv.hasLocalLinkage())
      continue;
    gv.setLinkage(GlobalValue::ExternalLinkage);
    gv.setVisibility(GlobalValue::HiddenVisibility);
    if (!gv.hasName())
      gv.setName("kiln.anon");
  }

  // Partitions 1..count-1 hold only their functions, with every global
  // variable declared, and move to their own contexts through bitcode (an
  // LLVMContext is not thread-safe). Partition 0 is `m` itself, stripped of
  // the other partitions' functions, so the weights are never copied.
  std::vector<SmallVector<char, 0>> bitcode(count);
  for (unsigned i = 1; i < count; ++i) {
    ValueToValueMapTy map;
    std::unique_ptr<Module> clone =
        CloneModule(m, map, [&](const GlobalValue *gv) {
          auto *f = dyn_cast<Function>(gv);
          return f && part.lookup(f) == i;
        });
    raw_svector_ostream os(bitcode[i]);
    WriteBitcodeToFile(*clone, os);
  }
  // Declarations keep their definitions' visibility: a hidden reference to
  // an exported symbol would hide it at link time.
  for (Function &f : m)
    if (!f.isDeclaration() && part.lookup(&f) != 0)
      f.deleteBody();

  // Target machines are created here: target registration is not
  // thread-safe.
  std::vector<std::unique_ptr<TargetMachine>> machines(count);
  std::vector<std::string> paths(count), asmTexts(count), errors(count);
  for (unsigned i = 0; i < count; ++i) {
    auto path = newObjectPath();
    if (!path)
      return path.takeError();
    paths[i] = *path;
    if (i == 0)
      continue;
    auto machine = createTargetMachine();
    if (!machine)
      return machine.takeError();
    machines[i] = std::move(*machine);
  }

  auto compileClone = [&](unsigned i) {
    LLVMContext ctx;
    MemoryBufferRef buffer(StringRef(bitcode[i].data(), bitcode[i].size()),
                           "partition");
    Expected<std::unique_ptr<Module>> clone = parseBitcodeFile(buffer, ctx);
    Error err =
        clone ? compilePartition(**clone, *machines[i], options.optLevel,
                                 paths[i], wantAsm ? &asmTexts[i] : nullptr)
              : clone.takeError();
    if (err)
      errors[i] = toString(std::move(err));
  };
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < count; ++i)
    threads.emplace_back(compileClone, i);
  if (Error err = compilePartition(m, tm, options.optLevel, paths[0],
                                   wantAsm ? &asmTexts[0] : nullptr))
    errors[0] = toString(std::move(err));
  for (std::thread &t : threads)
    t.join();
  for (const std::string &e : errors)
    if (!e.empty())
      return createStringError(e);
  return wantAsm ? writeAsm(asmTexts) : Error::success();
}

static const char *dtypeMacro(int32_t code) {
  switch (code) {
  case KILN_DTYPE_FLOAT32:
    return "KILN_DTYPE_FLOAT32";
  case KILN_DTYPE_UINT8:
    return "KILN_DTYPE_UINT8";
  case KILN_DTYPE_INT8:
    return "KILN_DTYPE_INT8";
  case KILN_DTYPE_UINT16:
    return "KILN_DTYPE_UINT16";
  case KILN_DTYPE_INT16:
    return "KILN_DTYPE_INT16";
  case KILN_DTYPE_INT32:
    return "KILN_DTYPE_INT32";
  case KILN_DTYPE_INT64:
    return "KILN_DTYPE_INT64";
  case KILN_DTYPE_BOOL:
    return "KILN_DTYPE_BOOL";
  case KILN_DTYPE_FLOAT16:
    return "KILN_DTYPE_FLOAT16";
  case KILN_DTYPE_FLOAT64:
    return "KILN_DTYPE_FLOAT64";
  case KILN_DTYPE_UINT32:
    return "KILN_DTYPE_UINT32";
  case KILN_DTYPE_UINT64:
    return "KILN_DTYPE_UINT64";
  case KILN_DTYPE_BFLOAT16:
    return "KILN_DTYPE_BFLOAT16";
  default:
    return "KILN_DTYPE_UNDEFINED";
  }
}

Error writeModelHeader(const ModelSignature &sig, const ModelLibraryInfo &info,
                       StringRef path) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    return createStringError("cannot write " + path + ": " + ec.message());
  std::string upper = StringRef(sig.name).upper();
  std::string guard = "KILN_MODEL_" + upper + "_H";
  os << "/* Generated by kiln " << KILN_VERSION << " for model '" << sig.name
     << "', target " << info.target << ". Do not edit.\n"
     << " * Load the library with kiln_rt (kiln_model_load) or call\n"
     << " * kiln_model_get() directly; buffers are dense row-major. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"kiln_model_abi.h\"\n\n";
  std::string prefix = "KILN_MODEL_" + upper;
  os << "#define " << prefix << "_NUM_INPUTS " << sig.inputs.size() << "\n"
     << "#define " << prefix << "_NUM_OUTPUTS " << sig.outputs.size() << "\n"
     << "#define " << prefix << "_ARENA_BYTES " << info.arenaBytes << "u\n"
     << "#define " << prefix << "_ARENA_LOWER_BOUND " << info.arenaLowerBound
     << "u\n";
  if (!info.arenaBytesFunction.empty())
    os << "/* The arena grows with the symbolic dims: a run needs\n"
       << " * kiln_model_get()->arena_bytes_for(dims) bytes (at least "
       << prefix << "_ARENA_BYTES). */\n"
       << "#define " << prefix << "_ARENA_GROWS 1\n";
  os << "\n";
  auto emit = [&](ArrayRef<TensorSignature> tensors, StringRef role) {
    for (auto [i, t] : llvm::enumerate(tensors)) {
      std::string p =
          prefix + "_" + StringRef(role).upper() + "_" + std::to_string(i);
      os << "/* " << role << " " << i << ": \"" << t.name << "\" "
         << formatDims(t, sig) << " */\n"
         << "#define " << p << "_NAME \"" << t.name << "\"\n"
         << "#define " << p << "_DTYPE " << dtypeMacro(t.dtype) << "\n"
         << "#define " << p << "_RANK " << t.dims.size() << "\n";
    }
  };
  emit(sig.inputs, "input");
  emit(sig.outputs, "output");
  os << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
     << "const kiln_model_desc *kiln_model_get(void);\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return Error::success();
}

} // namespace kiln
