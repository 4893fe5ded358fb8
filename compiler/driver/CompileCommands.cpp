//===- CompileCommands.cpp - import, compile, ops, targets ----------------===//

#include "autotune/TuningDatabase.h"
#include "compiler/driver/Commands.h"
#include "compiler/importer/OnnxImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/pipeline/Registration.h"
#include "kiln_rt.h"
#include "lowering/targets/TargetBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <map>

using namespace mlir;
namespace cl = llvm::cl;

namespace kiln::driver {

namespace {
/// `--target` values: registered targets, each with an optional CPU
/// (`x86_64:znver4`), comma-separated for a bundle; checked while parsing.
struct TargetNameParser : public cl::parser<std::string> {
  using cl::parser<std::string>::parser;
  bool parse(cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             std::string &value) {
    std::vector<std::string> names = getRegisteredTargetNames();
    llvm::SmallVector<llvm::StringRef> items;
    arg.split(items, ',');
    for (llvm::StringRef item : items) {
      llvm::StringRef name = item.split(':').first;
      if (!llvm::is_contained(names, name))
        return option.error("unknown target '" + name +
                            "' (known: " + llvm::join(names, ", ") + ")");
      if (item.contains(':') && item.split(':').second.empty())
        return option.error("'" + item + "': give a CPU after ':'");
    }
    value = arg.str();
    return false;
  }
};

enum class ConvLayout { Target, Nchw, Nhwc };
} // namespace

static cl::SubCommand
    compileSub("compile",
               "Compile an ONNX model to a shared library and a C header");
static cl::SubCommand importSub("import",
                                "Print the kiln.graph IR of an ONNX model");
static cl::SubCommand opsSub("ops", "List the ONNX op types kiln compiles");
static cl::SubCommand targetsSub("targets", "List the code-generation targets");

// compile
static cl::opt<std::string> compileInput(cl::Positional, cl::Required,
                                         cl::desc("<model.onnx|graph.mlir>"),
                                         cl::sub(compileSub));
static cl::opt<std::string>
    outputPath("o", cl::value_desc("file"), cl::sub(compileSub),
               cl::desc("Output library (default: the model's path with "
                        ".so); the header goes beside it as .h"));
static cl::opt<std::string, false, TargetNameParser>
    targetName("target", cl::value_desc("name"), cl::init("x86_64"),
               cl::sub(compileSub), cl::sub(getTuneSubCommand()),
               cl::desc("Code-generation target (see `kiln targets`); "
                        "NAME:CPU picks its CPU, a comma-separated list "
                        "writes a bundle of one library per entry"));
static cl::opt<std::string>
    cpuName("cpu", cl::value_desc("cpu"), cl::sub(compileSub),
            cl::sub(getTuneSubCommand()),
            cl::desc("CPU to compile for (default: the target's)"));
static cl::opt<std::string>
    features("features", cl::value_desc("+f,-g"), cl::sub(compileSub),
             cl::sub(getTuneSubCommand()),
             cl::desc("LLVM target features added to the CPU's"));
static cl::opt<unsigned> optLevel("O", cl::Prefix, cl::init(3),
                                  cl::value_desc("0-3"), cl::sub(compileSub),
                                  cl::sub(getTuneSubCommand()),
                                  cl::desc("Optimization level (default 3)"));
static cl::opt<std::string>
    headerPath("header", cl::value_desc("file"), cl::sub(compileSub),
               cl::desc("Write the C header here instead of beside the "
                        "library"));
static cl::opt<std::string>
    asmPath("emit-asm", cl::value_desc("file"), cl::sub(compileSub),
            cl::desc("Also write the model's target assembly"));
static cl::opt<std::string> precision(
    "precision", cl::init("fp32"), cl::value_desc("fp32|bf16|fp16|tf32"),
    cl::sub(compileSub),
    cl::desc("Arithmetic of convolutions and matrix products: fp32 "
             "(default); bf16 or fp16 on CPUs with AVX-512 (inputs and "
             "weights rounded, sums in fp32; bf16 needs avx512bf16); tf32 on "
             "GPU targets (tensor cores, 10-bit mantissa inputs)"));
static cl::opt<bool> emulateDevice(
    "emulate-device", cl::Hidden, cl::sub(compileSub),
    cl::desc("GPU targets: run the kernels as host loops in a CPU library, "
             "to check a mapping without a GPU"));
static cl::opt<std::string>
    ptxPath("emit-ptx", cl::value_desc("file"), cl::sub(compileSub),
            cl::desc("Also write the kernels' PTX (GPU targets)"));
static cl::opt<ConvLayout>
    layout("layout", cl::init(ConvLayout::Target), cl::sub(compileSub),
           cl::sub(getTuneSubCommand()),
           cl::desc("Convolution activation layout (default: the target's)"),
           cl::values(clEnumValN(ConvLayout::Nchw, "nchw", "channels first"),
                      clEnumValN(ConvLayout::Nhwc, "nhwc", "channels last")));
static cl::opt<unsigned>
    codegenThreads("codegen-threads", cl::init(0), cl::value_desc("N"),
                   cl::sub(compileSub),
                   cl::desc("Threads for LLVM code generation (0: automatic)"));
static cl::opt<std::string>
    schedule("schedule", cl::value_desc("KEY=N,..."), cl::sub(compileSub),
             cl::sub(getTuneSubCommand()),
             cl::desc("CPU schedule for every op (keys: `kiln targets`)"));
static cl::opt<std::string> scheduleFile(
    "schedule-file", cl::value_desc("file.json"), cl::sub(compileSub),
    cl::sub(getTuneSubCommand()),
    cl::desc("Per-op schedules, keyed by node name or node#fingerprint "
             "(applied after --schedule)"));
static cl::opt<std::string>
    tuningDb("tuning-db", cl::value_desc("file.sqlite"), cl::sub(compileSub),
             cl::desc("Apply the best schedule per op from `kiln tune`'s "
                      "database (ops without one keep the defaults)"));
static cl::opt<std::string>
    tuningDevice("tuning-device", cl::value_desc("device"), cl::sub(compileSub),
                 cl::desc("Use the database's records of this device "
                          "(default: the device with the most records)"));
static cl::list<std::string> inputShapes(
    "input-shape", cl::value_desc("NAME=1x3x?x?"), cl::sub(compileSub),
    cl::sub(importSub), cl::sub(getTuneSubCommand()),
    cl::desc("Set a graph input's dims (repeatable; ? keeps a dim dynamic)"));
static cl::list<std::string> specializations(
    "specialize", cl::value_desc("NAME=1x3x48x320[,NAME2=...]"),
    cl::sub(compileSub),
    cl::desc("Also compile code for these static input dims (repeatable: one "
             "specialization each; LO..HI for a dim keeps it symbolic within "
             "that range); a run with exactly those dims takes it, any other "
             "the generic code"));
static cl::opt<bool> dumpIR("dump-ir", cl::sub(compileSub),
                            cl::desc("Print the IR after each stage"));
static cl::opt<bool> verbose("v", cl::sub(compileSub),
                             cl::desc("Print each phase with its time"));
static cl::alias verboseLong("verbose", cl::aliasopt(verbose),
                             cl::desc("Alias for -v"));
static cl::opt<bool>
    remarks("remarks", cl::sub(compileSub),
            cl::desc("Name every op that takes a slow path, and why"));
static cl::opt<bool> verifyEach(
    "verify-each", cl::sub(compileSub),
    cl::desc("Verify the IR after every pass (slower; names the pass that "
             "made an invalid op)"));
static cl::opt<bool>
    profile("profile", cl::sub(compileSub),
            cl::desc("Time every kernel at run time (see `kiln profile`)"));
enum class WeightsPlace { Internal, External };
static cl::opt<WeightsPlace> weightsPlace(
    "weights", cl::init(WeightsPlace::Internal), cl::sub(compileSub),
    cl::desc("Where the weights go (default: internal)"),
    cl::values(clEnumValN(WeightsPlace::Internal, "internal",
                          "inside the library"),
               clEnumValN(WeightsPlace::External, "external",
                          "in <output>.weights beside it, mapped at load")));

// import
static cl::opt<std::string> importInput(cl::Positional, cl::Required,
                                        cl::desc("<model.onnx>"),
                                        cl::sub(importSub));

std::unique_ptr<MLIRContext> makeContext() {
  static bool passesRegistered = [] {
    registerAllPasses();
    return true;
  }();
  (void)passesRegistered;
  DialectRegistry registry;
  registerAllDialects(registry);
  // Threads: passes nested on functions run on the functions outlined for
  // the thread pool side by side (DenseNet-121's lowering to LLVM: 7.5 ->
  // 5.5 s on two cores).
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

static FailureOr<OwningOpRef<ModuleOp>>
importOrFail(MLIRContext &ctx, const std::string &path,
             ArrayRef<std::string> extraShapes = {});

FailureOr<OwningOpRef<ModuleOp>> loadModel(MLIRContext &ctx,
                                           const std::string &path) {
  if (llvm::StringRef(path).ends_with(".mlir")) {
    std::string error;
    llvm::raw_string_ostream os(error);
    llvm::SourceMgr sources;
    SourceMgrDiagnosticHandler handler(sources, &ctx, os);
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &ctx);
    if (!module) {
      fail(error.empty() ? "cannot parse '" + path + "'"
                         : llvm::StringRef(error).trim().str());
      return failure();
    }
    return module;
  }
  return importOrFail(ctx, path);
}

/// Imports `path` with the --input-shape dims, then `extraShapes`
/// (`NAME=DIMS` each) over them.
static FailureOr<OwningOpRef<ModuleOp>>
importOrFail(MLIRContext &ctx, const std::string &path,
             ArrayRef<std::string> extraShapes) {
  std::string error;
  importer::ImportOptions options;
  for (const std::string &shape : inputShapes)
    if (!importer::parseInputShape(shape, options, error)) {
      fail(error);
      return failure();
    }
  for (const std::string &shape : extraShapes) {
    importer::ImportOptions extra;
    if (!importer::parseInputShape(shape, extra, error)) {
      fail("--specialize: " + error);
      return failure();
    }
    for (auto &[name, dims] : extra.inputShapes)
      options.inputShapes[name] = dims;
  }
  auto module = importer::importOnnxModel(ctx, path, error, options);
  if (failed(module)) {
    if (!extraShapes.empty())
      error = "--specialize " + llvm::join(extraShapes, ",") + ": " + error;
    fail(error);
    return failure();
  }
  return module;
}

static int runImport() {
  auto ctx = makeContext();
  auto module = importOrFail(*ctx, importInput);
  if (failed(module))
    return 1;
  (*module)->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

/// Parses `--schedule tile_m=128,pack_row_bytes=0` into (key, value) pairs;
/// the keys are checked against the target later.
static bool parseSchedule(llvm::StringRef text,
                          std::vector<std::pair<std::string, int64_t>> &pairs) {
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    int64_t n;
    if (key.empty() || value.getAsInteger(10, n) || n < 0)
      return false;
    pairs.emplace_back(key.str(), n);
  }
  return !items.empty();
}

/// `-o` when not given: the model's path with `.so` for `.onnx`.
static std::string defaultOutputPath(llvm::StringRef model) {
  llvm::SmallString<256> path(model);
  llvm::sys::path::replace_extension(path, ".so");
  return std::string(path);
}

/// The `--target` entries as (name, cpu); cpu is empty unless given.
static std::vector<std::pair<std::string, std::string>> targetSpecs() {
  std::vector<std::pair<std::string, std::string>> specs;
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(targetName).split(items, ',');
  for (llvm::StringRef item : items) {
    auto [name, cpu] = item.split(':');
    specs.emplace_back(name.str(), cpu.str());
  }
  return specs;
}

int getTargetOptions(CompileOptions &options, bool allowBundle) {
  auto specs = targetSpecs();
  if (!allowBundle && (specs.size() > 1 || !specs[0].second.empty()))
    return fail("--target: give one target name (lists and NAME:CPU are for "
                "`kiln compile`)");
  if (!specs[0].second.empty() && cpuName.getNumOccurrences())
    return fail("--target " + targetName +
                ": give the CPU either after ':' or with --cpu");
  options.target = specs[0].first;
  options.targetOptions.cpu =
      specs[0].second.empty() ? std::string(cpuName) : specs[0].second;
  options.targetOptions.features = features;
  if (optLevel > 3)
    return fail("-O" + std::to_string(optLevel) + ": the levels are -O0..-O3");
  options.targetOptions.optLevel = optLevel;
  if (layout != ConvLayout::Target)
    options.convLayout = layout == ConvLayout::Nchw ? "nchw" : "nhwc";
  options.targetOptions.scheduleFile = scheduleFile;
  if (schedule.getNumOccurrences() &&
      !parseSchedule(schedule, options.targetOptions.schedule))
    return fail("--schedule needs KEY=N[,KEY=N...] with N >= 0, not '" +
                schedule + "'");
  std::unique_ptr<TargetBackend> target = createTarget(options.target);
  options.targetOptions.precision = precision;
  options.targetOptions.emulateDevice = emulateDevice;
  TargetOptions withDevice = options.targetOptions;
  withDevice.emulateDevice = false;
  if (emulateDevice && target->getDevice(withDevice).empty())
    return fail("--emulate-device: target " + options.target +
                " has no device to emulate");
  std::vector<std::string> precisions =
      target->getPrecisions(options.targetOptions);
  if (!llvm::is_contained(precisions, precision.getValue())) {
    std::string needs = target->getPrecisionNeeds(precision);
    std::string message = "--precision " + precision + ": target " +
                          options.target + " supports " +
                          llvm::join(precisions, ", ");
    if (!needs.empty())
      message +=
          " with cpu " +
          (options.targetOptions.cpu.empty() ? target->getDefaultCpu()
                                             : options.targetOptions.cpu) +
          "; " + precision + " needs the CPU feature " + needs +
          " (--cpu native on a machine that has it, or --features +" + needs +
          ")";
    return fail(message);
  }
  std::vector<std::string> keys;
  for (const auto &entry : target->getScheduleDefaults(options.targetOptions))
    keys.push_back(entry.first);
  for (const auto &entry : options.targetOptions.schedule)
    if (!llvm::is_contained(keys, entry.first))
      return fail("unknown schedule key '" + entry.first + "' for target " +
                  options.target + " (known: " + llvm::join(keys, ", ") + ")");
  return 0;
}

/// The best schedules of `--tuning-db` for the compile's target, as JSON
/// keyed by signature.
static int readTunedSchedules(CompileOptions &options) {
  auto db = autotune::TuningDatabase::open(tuningDb, /*create=*/false);
  if (!db)
    return fail(llvm::toString(db.takeError()));
  std::string key =
      createTarget(options.target)->getTuningTarget(options.targetOptions);
  std::string device;
  // A tuned schedule replaces the default only when clearly faster.
  std::map<std::string, std::string> best = (*db)->getBestSchedules(
      key, tuningDevice, autotune::kMinTunedSpeedup, &device);
  if (verbose)
    llvm::errs() << "kiln: " << best.size() << " tuned schedules for " << key
                 << (device.empty() ? "" : " on " + device) << " from "
                 << tuningDb << "\n";
  std::string json = "{";
  for (const auto &[signature, schedule] : best)
    json += (json.size() > 1 ? ", \"" : "\"") + signature + "\": " + schedule;
  options.targetOptions.schedules = json + "}";
  return 0;
}

/// One library per `--target` entry, written as one bundle file (see
/// runtime/src/bundle.c for the format) with the header beside it.
static int compileBundle(ModuleOp module, CompileOptions options) {
  if (options.externalWeights)
    return fail("--weights external cannot be combined with a bundle: each "
                "library of a bundle holds its weights");
  if (options.headerPath.empty()) {
    llvm::SmallString<256> h(options.outputPath);
    llvm::sys::path::replace_extension(h, "h");
    options.headerPath = std::string(h);
  }
  std::string manifest, payload;
  auto specs = targetSpecs();
  manifest = "KILN-BUNDLE 1\nentries " + std::to_string(specs.size()) + "\n";
  std::vector<std::string> lines;
  for (auto &[name, cpu] : specs) {
    CompileOptions entry = options;
    entry.target = name;
    entry.targetOptions.cpu = cpu.empty() ? std::string(cpuName) : cpu;
    llvm::SmallString<128> tmp;
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-bundle", "so", tmp))
      return fail("cannot create a temporary file: " + ec.message());
    entry.outputPath = std::string(tmp);
    OwningOpRef<ModuleOp> copy = module.clone();
    ModelLibraryInfo info;
    llvm::Error err = compileModelLibrary(*copy, entry, &info);
    auto bytes = err ? nullptr : llvm::MemoryBuffer::getFile(tmp);
    llvm::sys::fs::remove(tmp);
    if (err)
      return fail(compileInput + " (" + name +
                  "): " + llvm::toString(std::move(err)));
    if (!bytes)
      return fail("cannot read the library for " + name);
    std::string arch =
        llvm::StringRef(createTarget(name)->getTriple()).split('-').first.str();
    lines.push_back(std::to_string(payload.size()) + " " +
                    std::to_string((*bytes)->getBufferSize()) + " " + name +
                    " " + arch + " " + info.cpu + " " +
                    (info.cpuFeatures.empty() ? "-" : info.cpuFeatures) + " " +
                    (info.device.empty() ? "-" : info.device));
    payload += (*bytes)->getBuffer();
    // Libraries start on 4 KiB boundaries, as a linker would place them.
    payload.resize(llvm::alignTo(payload.size(), 4096), '\0');
  }
  // Offsets count from the file's start: the manifest's own length is part
  // of them, so it is measured with the offsets it will hold.
  size_t base = 0;
  std::string text;
  for (int round = 0; round < 3; ++round) {
    text = manifest;
    for (const std::string &line : lines) {
      auto [offset, rest] = llvm::StringRef(line).split(' ');
      uint64_t off = 0;
      offset.getAsInteger(10, off);
      text += "entry " + std::to_string(off + base) + " " + rest.str() + "\n";
    }
    text += "end\n";
    size_t aligned = llvm::alignTo(text.size(), 4096);
    if (aligned == base)
      break;
    base = aligned;
  }
  text.resize(base, '\0');
  std::error_code ec;
  llvm::raw_fd_ostream os(options.outputPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write " + options.outputPath + ": " + ec.message());
  os << text << payload;
  os.close();
  if (os.has_error())
    return fail("cannot write " + options.outputPath + ": " +
                os.error().message());
  return 0;
}

static int runCompile() {
  CompileOptions options;
  options.outputPath = outputPath.getNumOccurrences()
                           ? outputPath.getValue()
                           : defaultOutputPath(compileInput);
  if (int rc = getTargetOptions(options, /*allowBundle=*/true))
    return rc;
  options.headerPath = headerPath;
  options.asmPath = asmPath;
  options.deviceAsmPath = ptxPath;
  if (codegenThreads > 256)
    return fail("--codegen-threads: at most 256 (0: automatic)");
  options.codegenThreads = codegenThreads;
  options.dumpIR = dumpIR;
  options.remarks = remarks;
  options.verifyEach = verifyEach;
  options.targetOptions.profile = profile;
  options.externalWeights = weightsPlace == WeightsPlace::External;
  options.verbose = verbose;
  if (!tuningDb.empty())
    if (int rc = readTunedSchedules(options))
      return rc;
  auto ctx = makeContext();
  FailureOr<OwningOpRef<ModuleOp>> module = failure();
  {
    PhaseTimer timer(verbose, "import");
    module = loadModel(*ctx, compileInput);
  }
  if (failed(module))
    return 1;
  // Each specialization: the model imported again with its dims.
  std::vector<OwningOpRef<ModuleOp>> specialized;
  for (const std::string &spec : specializations) {
    SmallVector<std::string> shapes;
    SmallVector<Attribute> ranges;
    Builder b(ctx.get());
    for (llvm::StringRef part : llvm::split(spec, ',')) {
      // A range `lo..hi` keeps the dim symbolic in this specialization and
      // limits the runs that take it.
      auto [name, dims] = part.rsplit('=');
      SmallVector<llvm::StringRef> extents;
      dims.split(extents, 'x');
      std::string shape = (name + "=").str();
      for (auto [d, extent] : llvm::enumerate(extents)) {
        auto [lo, hi] = extent.split("..");
        int64_t l = 0, h = 0;
        if (!hi.empty() || extent.contains("..")) {
          if (lo.getAsInteger(10, l) || hi.getAsInteger(10, h) || l < 0 ||
              h < l)
            return fail("--specialize '" + part.str() + "': '" + extent.str() +
                        "' is not a range (LO..HI, 0 <= LO <= HI)");
          ranges.push_back(
              b.getArrayAttr({b.getStringAttr(name), b.getI64IntegerAttr(d),
                              b.getI64IntegerAttr(l), b.getI64IntegerAttr(h)}));
          extent = "?";
        }
        shape += (d ? "x" : "") + extent.str();
      }
      shapes.push_back(shape);
    }
    auto variant = importOrFail(*ctx, compileInput, shapes);
    if (failed(variant))
      return 1;
    if (!ranges.empty())
      (**variant)->setAttr(kSpecializeRangesAttr, b.getArrayAttr(ranges));
    options.specializations.push_back(**variant);
    specialized.push_back(std::move(*variant));
  }
  if (targetSpecs().size() > 1 ||
      llvm::StringRef(options.outputPath).ends_with(".kiln")) {
    if (!specialized.empty())
      return fail("--specialize: not with bundles");
    return compileBundle(**module, options);
  }
  if (llvm::Error err = compileModelLibrary(**module, options)) {
    std::string msg = llvm::toString(std::move(err));
    return fail(compileInput + ": " + msg);
  }
  return 0;
}

static int runOps() {
  auto ctx = makeContext();
  // Ops with lowerings, ops the importer expands into their ONNX function
  // bodies made of those, and ops it rewrites into them.
  std::vector<std::string> ops = getSupportedOpTypes(*ctx);
  std::vector<std::string> expanded = importer::getFunctionExpandedOpTypes(ops);
  ops.insert(ops.end(), expanded.begin(), expanded.end());
  for (const std::string &op : importer::getRewrittenOpTypes())
    ops.push_back(op);
  llvm::sort(ops);
  for (const std::string &op : ops)
    std::printf("%s\n", op.c_str());
  return 0;
}

static int runTargets() {
  std::printf("%-9s %-20s %-16s %-7s %-18s %s\n", "name", "triple",
              "default cpu", "vector", "default features", "description");
  TargetOptions defaults;
  std::vector<std::string> schedules;
  for (const std::string &name : getRegisteredTargetNames()) {
    auto target = createTarget(name);
    TargetBackend::ScheduleValues schedule =
        target->getScheduleDefaults(defaults);
    std::string vector = "-";
    for (const auto &[key, value] : schedule)
      if (key == "vector_bits")
        vector = value ? std::to_string(value) + "b" : "scalar";
    std::string features = target->getDefaultFeatures();
    std::printf("%-9s %-20s %-16s %-7s %-18s %s\n", name.c_str(),
                target->getTriple().c_str(), target->getDefaultCpu().c_str(),
                vector.c_str(), features.empty() ? "-" : features.c_str(),
                target->getDescription().str().c_str());
    std::string line = name + ":";
    for (const auto &[key, value] : schedule)
      line += " " + key + "=" + std::to_string(value);
    schedules.push_back(line);
  }
  std::printf("\ndefault schedules (`--schedule KEY=N` overrides; tile_* and "
              "reg_m/reg_n 0: chosen per op):\n");
  for (const std::string &line : schedules)
    std::printf("  %s\n", line.c_str());
  return 0;
}

/// "float32 [N, 3, (run time)]": dtype and dims as the library's descriptor
/// will say them.
static std::string describeTensor(const TensorSignature &t,
                                  const ModelSignature &sig) {
  return std::string(kiln_dtype_name(t.dtype)) + " " + formatDims(t, sig);
}

int inspectOnnx(const std::string &path) {
  auto ctx = makeContext();
  auto module = importOrFail(*ctx, path);
  if (failed(module))
    return 1;
  auto entry = (*module)->lookupSymbol<func::FuncOp>("main");
  llvm::outs() << "ONNX model " << path << "\n";
  llvm::StringMap<unsigned> counts;
  entry.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name.consume_front("kiln_graph.") && name != "NoValue" &&
        name != "Constant")
      ++counts[name];
  });
  SmallVector<Type> inputs(entry.getFunctionType().getInputs()),
      outputs(entry.getFunctionType().getResults());
  SmallVector<DictionaryAttr> inAttrs, outAttrs;
  for (unsigned i = 0; i < inputs.size(); ++i)
    inAttrs.push_back(entry.getArgAttrDict(i));
  for (unsigned i = 0; i < outputs.size(); ++i)
    outAttrs.push_back(entry.getResultAttrDict(i));

  // The signature a library of it would have (x86_64): symbolic dims by
  // name, and which output dims follow them or are sized at run time.
  CompileOptions options;
  options.target = "x86_64";
  auto sig = describeModelSignature(**module, options);
  if (sig) {
    for (auto [i, t] : llvm::enumerate(sig->inputs))
      llvm::outs() << "  input " << i << ": " << t.name << " "
                   << describeTensor(t, *sig) << "\n";
    for (auto [i, t] : llvm::enumerate(sig->outputs))
      llvm::outs() << "  output " << i << ": " << t.name << " "
                   << describeTensor(t, *sig) << "\n";
  } else {
    auto printTensors = [&](llvm::StringRef role, ArrayRef<Type> types,
                            ArrayRef<DictionaryAttr> attrs) {
      for (auto [i, t] : llvm::enumerate(types)) {
        auto name =
            attrs[i] ? attrs[i].getAs<StringAttr>("kiln.name") : StringAttr();
        llvm::outs() << "  " << role << " " << i << ": "
                     << (name ? name.getValue() : "") << " " << t << "\n";
      }
    };
    printTensors("input", inputs, inAttrs);
    printTensors("output", outputs, outAttrs);
    llvm::outs() << "  (does not compile as is: "
                 << llvm::toString(sig.takeError()) << ")\n";
  }
  if (sig && !sig->symbols.empty()) {
    // Each symbol and the input dims it names.
    llvm::outs() << "  symbols:";
    for (auto [k, name] : llvm::enumerate(sig->symbols)) {
      llvm::outs() << (k ? "; " : " ") << name << " =";
      for (const TensorSignature &in : sig->inputs)
        for (auto [d, extent] : llvm::enumerate(in.dims))
          if (extent == -int64_t(k) - 1)
            llvm::outs() << " " << in.name << "[" << d << "]";
    }
    llvm::outs() << "\n";
  }
  std::vector<std::string> names;
  for (auto &c : counts)
    names.push_back(c.getKey().str());
  llvm::sort(names);
  llvm::outs() << "  ops:";
  for (const std::string &n : names)
    llvm::outs() << " " << n << "x" << counts[n];
  llvm::outs() << "\n";
  return 0;
}

Command CompileCommand{compileSub, runCompile};
Command ImportCommand{importSub, runImport};
Command OpsCommand{opsSub, runOps};
Command TargetsCommand{targetsSub, runTargets};

} // namespace kiln::driver
