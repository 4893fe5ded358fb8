//===- CompileCommands.cpp - import, compile, ops, targets ----------------===//

#include "compiler/driver/Commands.h"
#include "compiler/importer/OnnxImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/pipeline/Registration.h"
#include "compiler/pipeline/TargetBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;

namespace kiln::driver {

/// A context with every dialect kiln's pipelines use, multithreading off
/// (compiles are parallelized across models, not within one).
static std::unique_ptr<MLIRContext> makeContext() {
  static bool passesRegistered = [] {
    registerAllPasses();
    return true;
  }();
  (void)passesRegistered;
  DialectRegistry registry;
  registerAllDialects(registry);
  auto ctx =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

static FailureOr<OwningOpRef<ModuleOp>> importOrFail(MLIRContext &ctx,
                                                     const std::string &path) {
  std::string error;
  auto module = importer::importOnnxModel(ctx, path, error);
  if (failed(module)) {
    fail(error);
    return failure();
  }
  return module;
}

int runImport(const Args &args) {
  if (args.size() != 1)
    return fail("usage: kiln import MODEL.onnx");
  auto ctx = makeContext();
  auto module = importOrFail(*ctx, args[0]);
  if (failed(module))
    return 1;
  (*module)->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

/// Parses `--schedule tile_m=128,pack_row_bytes=0` into (key, value) pairs;
/// the keys are checked against the target later.
static bool
parseSchedule(const std::string &text,
              std::vector<std::pair<std::string, int64_t>> &schedule) {
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(text).split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    int64_t n;
    if (key.empty() || value.getAsInteger(10, n) || n < 0)
      return false;
    schedule.emplace_back(key.str(), n);
  }
  return !items.empty();
}

int runCompile(const Args &args) {
  CompileOptions options;
  std::string input;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= args.size())
        return false;
      out = args[++i];
      return true;
    };
    bool ok = true;
    if (a == "-o")
      ok = value(options.outputPath);
    else if (a == "--target")
      ok = value(options.target);
    else if (a == "--cpu")
      ok = value(options.targetOptions.cpu);
    else if (a == "--features")
      ok = value(options.targetOptions.features);
    else if (a == "--header")
      ok = value(options.headerPath);
    else if (a == "--emit-asm")
      ok = value(options.asmPath);
    else if (a == "--layout")
      ok = value(options.convLayout);
    else if (a == "--schedule") {
      std::string text;
      ok = value(text);
      if (ok && !parseSchedule(text, options.targetOptions.schedule))
        return fail("--schedule needs KEY=N[,KEY=N...] with N >= 0, not '" +
                    text + "'");
    } else if (a == "--codegen-threads") {
      std::string n;
      ok = value(n);
      if (ok && (n.empty() || n.size() > 3 ||
                 n.find_first_not_of("0123456789") != std::string::npos))
        return fail("--codegen-threads needs a number (0: automatic)");
      if (ok)
        options.codegenThreads = std::stoul(n);
    } else if (a == "--dump-ir")
      options.dumpIR = true;
    else if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' &&
             a[2] <= '3')
      options.targetOptions.optLevel = a[2] - '0';
    else if (!a.empty() && a[0] == '-')
      return fail("unknown option '" + a + "' for compile");
    else if (input.empty())
      input = a;
    else
      return fail("more than one input model given");
    if (!ok)
      return fail("option '" + a + "' needs a value");
  }
  if (input.empty() || options.outputPath.empty())
    return fail("usage: kiln compile MODEL.onnx -o MODEL.so [--target NAME]");
  if (!options.convLayout.empty() && options.convLayout != "nchw" &&
      options.convLayout != "nhwc")
    return fail("--layout must be nchw or nhwc");
  registerAllTargets();
  std::unique_ptr<TargetBackend> target = createTarget(options.target);
  if (!target)
    return fail("unknown target '" + options.target + "' (see kiln targets)");
  std::vector<std::string> keys = target->getScheduleKeys();
  for (const auto &entry : options.targetOptions.schedule)
    if (!llvm::is_contained(keys, entry.first))
      return fail("unknown schedule key '" + entry.first + "' for target " +
                  options.target + " (known: " + llvm::join(keys, ", ") + ")");
  auto ctx = makeContext();
  auto module = importOrFail(*ctx, input);
  if (failed(module))
    return 1;
  if (llvm::Error err = compileModelLibrary(**module, options)) {
    std::string msg = llvm::toString(std::move(err));
    return fail(input + ": " + msg);
  }
  return 0;
}

int runOps(const Args &) {
  auto ctx = makeContext();
  for (const std::string &op : getSupportedOpTypes(*ctx))
    std::printf("%s\n", op.c_str());
  return 0;
}

int runTargets(const Args &) {
  registerAllTargets();
  std::printf("%-9s %-20s %-16s %-7s %-18s %s\n", "name", "triple",
              "default cpu", "vector", "default features", "description");
  TargetOptions defaults;
  for (const std::string &name : getRegisteredTargetNames()) {
    auto target = createTarget(name);
    unsigned bits = target->getVectorBits(defaults);
    std::string vector = bits ? std::to_string(bits) + "b" : "scalar";
    std::string features = target->getDefaultFeatures();
    std::printf("%-9s %-20s %-16s %-7s %-18s %s\n", name.c_str(),
                target->getTriple().c_str(), target->getDefaultCpu().c_str(),
                vector.c_str(), features.empty() ? "-" : features.c_str(),
                target->getDescription().str().c_str());
  }
  return 0;
}

int inspectOnnx(const std::string &path) {
  auto ctx = makeContext();
  auto module = importOrFail(*ctx, path);
  if (failed(module))
    return 1;
  auto entry = (*module)->lookupSymbol<func::FuncOp>("main");
  llvm::outs() << "ONNX model " << path << "\n";
  auto printTensors = [&](llvm::StringRef role, TypeRange types, auto attrsAt) {
    for (auto [i, t] : llvm::enumerate(types)) {
      DictionaryAttr attrs = attrsAt(i);
      auto name = attrs ? attrs.getAs<StringAttr>("kiln.name") : StringAttr();
      llvm::outs() << "  " << role << " " << i << ": "
                   << (name ? name.getValue() : "") << " " << t << "\n";
    }
  };
  printTensors("input", entry.getFunctionType().getInputs(),
               [&](unsigned i) { return entry.getArgAttrDict(i); });
  printTensors("output", entry.getFunctionType().getResults(),
               [&](unsigned i) { return entry.getResultAttrDict(i); });
  llvm::StringMap<unsigned> counts;
  entry.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name.consume_front("kiln_graph.") && name != "NoValue" &&
        name != "Constant")
      ++counts[name];
  });
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

} // namespace kiln::driver
