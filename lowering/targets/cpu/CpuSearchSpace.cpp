//===- CpuSearchSpace.cpp - The CPU targets' tunable ops and knobs --------===//
//
// Tasks are the ops kiln-cpu-select-schedule writes a schedule on; their
// knobs are the fields of #kiln_kernel.cpu_schedule that change the code:
// the algorithm (im2col, blocked im2col, pixel-row im2col, Winograd
// F(4x4,3x3) and F(2x2,3x3) for 3x3 filters; weights packed at compile time
// for MatMuls), register and cache tiles of the contraction kernel and the
// order of its register tiles, packing, the block of a blocked im2col, the
// depthwise kernel's accumulators, and the thread split when the library
// runs on more than one thread. Every knob's list holds the heuristic's value,
// so the default schedule is always a candidate. Scalar fallbacks (direct
// convolutions, scalar contractions) are not searched: they are never
// faster where the vector kernels apply.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Schedule.h"
#include "lowering/targets/cpu/CpuTargetBackend.h"
#include "lowering/to-linalg/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace kiln {

static llvm::json::Object toJson(kernel::CpuScheduleAttr s) {
  return llvm::json::Object{{"strategy", s.getStrategy().str()},
                            {"vector_bits", s.getVectorBits()},
                            {"tile_m", s.getTileM()},
                            {"tile_n", s.getTileN()},
                            {"tile_k", s.getTileK()},
                            {"reg_m", s.getRegM()},
                            {"reg_n", s.getRegN()},
                            {"reg_k", s.getRegK()},
                            {"pack_row_bytes", s.getPackRowBytes()},
                            {"pack_a_row_bytes", s.getPackARowBytes()},
                            {"pack_min_reuse", s.getPackMinReuse()},
                            {"pack_a_min_reuse", s.getPackAMinReuse()},
                            {"threads", s.getThreads()},
                            {"min_parallel_work", s.getMinParallelWork()},
                            {"block_bytes", s.getBlockBytes()},
                            {"accumulators", s.getAccumulators()}};
}

llvm::Expected<std::vector<TunableOp>>
CpuTargetBackend::getTunableOps(ModuleOp module,
                                const TargetOptions &options) const {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  // The passes before schedule selection in the lowering pipeline, with the
  // heuristics alone (no file, no tuned schedules).
  CpuScheduleOptions schedule = getSchedule(options);
  schedule.scheduleFile.clear();
  schedule.schedules.clear();
  PassManager pm(module.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createSelectSchedule(schedule));
  std::string error;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && error.empty())
      error = d.str();
    return success();
  });
  if (failed(pm.run(*copy)))
    return llvm::createStringError("schedule selection failed: " + error);
  std::vector<TunableOp> ops;
  copy->walk([&](linalg::LinalgOp op) {
    kernel::CpuScheduleAttr attr = cpu::getOwnSchedule(op);
    StringRef kind = cpu::getTunableKind(op);
    if (!attr || kind.empty() || !op.hasPureTensorSemantics())
      return;
    // Fallbacks (dynamic shapes, no vector unit) have nothing to tune.
    if (attr.getStrategy() == "direct" || attr.getStrategy() == "scalar")
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    TunableOp t;
    t.signature = cpu::getFingerprint(op);
    t.node = cpu::getNodeName(op);
    t.kind = kind.str();
    t.loopRanges.assign(ranges.begin(), ranges.end());
    for (utils::IteratorType it : op.getIteratorTypesArray())
      t.reductionLoops.push_back(it == utils::IteratorType::reduction);
    t.defaultSchedule = toJson(attr);
    ops.push_back(std::move(t));
  });
  return ops;
}

namespace {
/// Knob values with the heuristic's value added where missing, sorted.
std::vector<int64_t> withDefault(std::vector<int64_t> values, int64_t value) {
  if (!llvm::is_contained(values, value))
    values.push_back(value);
  llvm::sort(values);
  return values;
}

int64_t field(const llvm::json::Object &o, StringRef key) {
  return o.getInteger(key).value_or(0);
}
} // namespace

SearchSpace CpuTargetBackend::getSearchSpace(const TunableOp &op,
                                             const TargetOptions &options,
                                             int threads) const {
  SearchSpace space;
  const llvm::json::Object &def = op.defaultSchedule;
  int64_t lanes = cpu::lanesFor(getVectorBits(options));
  // AVX-512 doubles x86's register file.
  int64_t registers = getVectorBits(options) >= 512 ? 32 : desc.vectorRegisters;
  std::string strategy = def.getString("strategy").value_or("").str();
  enum Knobs {
    Strategy,
    RegM,
    RegNVectors,
    TileMRegs,
    TileNRegs,
    TileK,
    PackB,
    PackA,
    BlockBytes,
    LoopOrder,
    Accumulators,
    Threads,
    NumKnobs
  };
  std::vector<Knob> knobs(NumKnobs);
  std::vector<int64_t> defaults(NumKnobs, 0);
  auto set = [&](Knobs k, StringRef name, std::vector<int64_t> values,
                 int64_t value) {
    knobs[k].name = name.str();
    knobs[k].values = withDefault(std::move(values), value);
    defaults[k] = value;
  };
  bool contraction = op.kind != "depthwise";
  if (contraction) {
    std::vector<StringRef> strategies =
        op.kind == "conv" ? std::vector<StringRef>{"im2col", "blocked_im2col",
                                                   "im2col_transposed"}
        : op.kind == "contraction"
            ? std::vector<StringRef>{"contraction", "packed_weights"}
        : op.kind == "conv_grouped"
            ? std::vector<StringRef>{"im2col", "im2col_transposed"}
            : std::vector<StringRef>{"im2col"};
    // Winograd for 3x3 filters (loops n, f, oh, ow, c, kh, kw); a candidate
    // whose convolution it does not fit (strides, a filter known at run
    // time) runs im2col and says so in a remark.
    const std::vector<int64_t> &loops = op.loopRanges;
    if (op.kind == "conv" && loops.size() == 7 && loops[5] == 3 &&
        loops[6] == 3) {
      strategies.push_back("winograd_f4");
      strategies.push_back("winograd_f2");
    }
    knobs[Strategy].name = "strategy";
    for (auto [i, s] : llvm::enumerate(strategies)) {
      knobs[Strategy].values.push_back(i);
      knobs[Strategy].labels.push_back(s.str());
      if (s == strategy)
        defaults[Strategy] = i;
    }
    int64_t regM = field(def, "reg_m"), regN = field(def, "reg_n");
    int64_t regNVectors = std::max<int64_t>(regN / lanes, 1);
    set(RegM, "reg_m", {1, 2, 4, 6, 8, 12, 14}, regM);
    // Whole powers of two of vectors: three (48 lanes at 512 bits) lowered
    // to scalar inserts and ran a 128 x 1152 x 784 MatMul 36x slower.
    set(RegNVectors, "reg_n_vectors", {1, 2, 4}, regNVectors);
    set(TileMRegs, "tile_m_regs", {1, 2, 4, 8, 16, 32},
        std::max<int64_t>(field(def, "tile_m") / std::max<int64_t>(regM, 1),
                          1));
    set(TileNRegs, "tile_n_regs", {1, 2, 4, 8, 16},
        std::max<int64_t>(field(def, "tile_n") / std::max<int64_t>(regN, 1),
                          1));
    set(TileK, "tile_k", {64, 128, 256, 512}, field(def, "tile_k"));
    // Packing: 0 never, 1 the heuristic's thresholds, 2 always.
    set(PackB, "pack_b", {0, 1, 2}, 1);
    set(PackA, "pack_a", {0, 1, 2}, 1);
    // Register tiles column by column (1) or row by row (2).
    set(LoopOrder, "loop_order", {1, 2},
        field(def, "loop_order") > 0 ? field(def, "loop_order") : 1);
    if (op.kind == "conv")
      set(BlockBytes, "block_bytes", {98304, 196608, 393216, 786432},
          field(def, "block_bytes") > 0 ? field(def, "block_bytes") : 393216);
    if (threads > 1)
      set(Threads, "threads", {2, 8, 32}, field(def, "threads"));
  } else {
    set(Accumulators, "accumulators", {4, 6, 8, 10, 12, 16},
        field(def, "accumulators"));
    if (threads > 1 && field(def, "threads") > 0)
      set(Threads, "threads", {0}, field(def, "threads"));
  }
  // Keep the knobs in use, remembering their slots.
  std::vector<int> slot(NumKnobs, -1);
  for (int k = 0; k < NumKnobs; ++k)
    if (!knobs[k].name.empty()) {
      slot[k] = space.knobs.size();
      space.knobs.push_back(knobs[k]);
    }
  std::vector<int64_t> defaultCandidate;
  for (int k = 0; k < NumKnobs; ++k)
    if (slot[k] >= 0)
      defaultCandidate.push_back(defaults[k]);
  auto get = [slot, defaults](llvm::ArrayRef<int64_t> c, Knobs k) {
    return slot[k] >= 0 ? c[slot[k]] : defaults[k];
  };
  std::vector<int64_t> ranges = op.loopRanges;
  int64_t blockDefault =
      slot[BlockBytes] >= 0 ? space.knobs[slot[BlockBytes]].values.front() : 0;
  std::vector<std::string> labels = slot[Strategy] >= 0
                                        ? space.knobs[slot[Strategy]].labels
                                        : std::vector<std::string>();
  space.isValid = [=](llvm::ArrayRef<int64_t> c) {
    if (c == llvm::ArrayRef<int64_t>(defaultCandidate))
      return true;
    if (!contraction)
      return get(c, Accumulators) + 2 <= registers;
    int64_t regM = get(c, RegM), vectors = get(c, RegNVectors);
    // Accumulators, a row of B and a broadcast of A in registers (a single
    // row streams B through one register).
    if (regM * vectors + (regM == 1 ? 1 : vectors) + 1 > registers)
      return false;
    bool blocked =
        !labels.empty() && labels[get(c, Strategy)] == "blocked_im2col";
    if (slot[BlockBytes] >= 0 && !blocked && get(c, BlockBytes) != blockDefault)
      return false;
    // Blocks are rows of one image's output (loops n, f, oh, ow, ...).
    if (blocked && (ranges.size() < 3 || ranges[0] != 1 || ranges[2] < 4))
      return false;
    return true;
  };
  space.toSchedule = [=](llvm::ArrayRef<int64_t> c) {
    llvm::json::Object s;
    if (!contraction) {
      s["strategy"] = "depthwise";
      s["accumulators"] = get(c, Accumulators);
      s["threads"] = get(c, Threads);
      return s;
    }
    s["strategy"] = labels[get(c, Strategy)];
    int64_t regM = get(c, RegM), regN = get(c, RegNVectors) * lanes;
    s["reg_m"] = regM;
    s["reg_n"] = regN;
    s["tile_m"] = get(c, TileMRegs) * regM;
    s["tile_n"] = get(c, TileNRegs) * regN;
    s["tile_k"] = get(c, TileK);
    s["loop_order"] = get(c, LoopOrder);
    auto pack = [&](int64_t choice, StringRef rowBytes, StringRef reuse) {
      if (choice == 1)
        return; // the heuristic's thresholds
      s[rowBytes] = choice == 0 ? 0 : 1;
      if (choice == 2)
        s[reuse] = 1;
    };
    pack(get(c, PackB), "pack_row_bytes", "pack_min_reuse");
    pack(get(c, PackA), "pack_a_row_bytes", "pack_a_min_reuse");
    if (s["strategy"] == "blocked_im2col")
      s["block_bytes"] = get(c, BlockBytes);
    s["threads"] = get(c, Threads);
    return s;
  };
  return space;
}

} // namespace kiln
