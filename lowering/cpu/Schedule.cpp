//===- Schedule.cpp - Reading the per-op CPU schedules --------------------===//

#include "lowering/cpu/Schedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln::cpu {

kernel::CpuScheduleAttr getOwnSchedule(Operation *op) {
  return op->getAttrOfType<kernel::CpuScheduleAttr>(kScheduleAttr);
}

StringRef getTunableKind(Operation *op) {
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return "conv";
  if (isa<linalg::Conv2DNhwcHwcfOp>(op))
    return "conv_nhwc";
  if (isa<linalg::Conv2DNgchwGfchwOp>(op))
    return "conv_grouped";
  if (isa<linalg::DepthwiseConv2DNchwChwOp>(op))
    return "depthwise";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (linalgOp && linalg::isaContractionOpInterface(linalgOp))
    return "contraction";
  return "";
}

ArrayRef<StringRef> getStrategiesFor(StringRef kind) {
  static const StringRef conv[] = {
      "im2col",      "blocked_im2col", "im2col_transposed",
      "winograd_f4", "winograd_f2",    "direct"};
  static const StringRef im2col[] = {"im2col", "direct"};
  static const StringRef grouped[] = {"im2col", "im2col_transposed", "direct"};
  static const StringRef depthwise[] = {"depthwise", "direct"};
  static const StringRef contraction[] = {"contraction", "packed_weights",
                                          "scalar"};
  if (kind == "conv")
    return conv;
  if (kind == "conv_grouped")
    return grouped;
  if (kind == "conv_nhwc")
    return im2col;
  if (kind == "depthwise")
    return depthwise;
  if (kind == "contraction")
    return contraction;
  return {};
}

static std::string nameIn(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      std::string name = nameIn(inner);
      if (!name.empty())
        return name;
    }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return nameIn(callSite.getCallee());
  return "";
}

std::string getNodeName(Operation *op) { return nameIn(op->getLoc()); }

std::string getFingerprint(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName();
  for (Type t : op->getOperandTypes())
    os << " " << t;
  os << " ->";
  for (Type t : op->getResultTypes())
    os << " " << t;
  os << " " << op->getPropertiesAsAttribute();
  // FNV-1a, folded to 32 bits: stable across runs and builds.
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) {
    hash ^= (uint8_t)c;
    hash *= 0x100000001b3ULL;
  }
  std::string hex;
  llvm::raw_string_ostream(hex)
      << llvm::format_hex_no_prefix((hash ^ (hash >> 32)) & 0xffffffffu, 8);
  return hex;
}

std::string getOpIdentity(Operation *op) {
  std::string name = getNodeName(op);
  return (name.empty() ? "" : name + "#") + getFingerprint(op);
}

kernel::CpuScheduleAttr
contractionScheduleFrom(kernel::CpuScheduleAttr s, int64_t tileM, int64_t tileN,
                        int64_t tileK, int64_t packRowBytes,
                        int64_t packARowBytes, int64_t threads) {
  return kernel::CpuScheduleAttr::get(
      s.getContext(), "contraction", s.getVectorBits(), tileM, tileN, tileK,
      s.getRegM(), s.getRegN(), s.getRegK(), packRowBytes, packARowBytes,
      s.getPackMinReuse(), s.getPackAMinReuse(), threads,
      s.getMinParallelWork(), s.getBlockBytes(), s.getAccumulators(),
      s.getLoopOrder());
}

SavedSchedule saveSchedule(Operation *op) {
  return {op->getAttr(kScheduleAttr), op->getAttr(kOpIdAttr)};
}

void restoreSchedule(const SavedSchedule &saved, Operation *to) {
  if (!to)
    return;
  if (saved.schedule && !to->hasAttr(kScheduleAttr))
    to->setAttr(kScheduleAttr, saved.schedule);
  if (saved.id && !to->hasAttr(kOpIdAttr))
    to->setAttr(kOpIdAttr, saved.id);
}

void inheritSchedule(Operation *from, Operation *to) {
  if (from && from != to)
    restoreSchedule(saveSchedule(from), to);
}

void KeepSchedulesListener::notifyOperationReplaced(Operation *op,
                                                    ValueRange replacement) {
  if (!getOwnSchedule(op) || replacement.empty())
    return;
  // Through reshapes and casts to the op that computes the value.
  Operation *def = replacement.front().getDefiningOp();
  while (def && def->getNumOperands() >= 1 &&
         isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  if (def && isa<linalg::LinalgOp>(def))
    inheritSchedule(op, def);
}

void remarkSlowPath(Operation *op, const llvm::Twine &what,
                    const llvm::Twine &why) {
  // At the op's location, not on the op: a remark on an op prints the op
  // into a note, which numbers every value of its function first (a third
  // of DenseNet-121's lowering time went to remarks nobody asked for).
  emitRemark(op->getLoc()) << what << " (" << op->getName() << "): " << why;
}

} // namespace kiln::cpu
