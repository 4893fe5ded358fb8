//===- Schedule.h - Reading the per-op CPU schedules ------------*- C++ -*-===//
//
// kiln-cpu-select-schedule writes a #kiln_kernel.cpu_schedule on each op
// (and a default on the function); the passes that apply schedules read them
// through these helpers, and say through remarks when an op takes a slow
// path. Op identities (`node#fingerprint`) key schedule files and, later,
// the tuning database.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_SCHEDULE_H
#define KILN_LOWERING_CPU_SCHEDULE_H

#include "dialects/kernel/KernelAttrs.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace kiln::cpu {

/// The op's own schedule.
inline constexpr llvm::StringLiteral kScheduleAttr = "kiln.schedule";
/// On a function: the schedule of ops without their own.
inline constexpr llvm::StringLiteral kDefaultScheduleAttr =
    "kiln.default_schedule";
/// The op's identity, `node#fingerprint`.
inline constexpr llvm::StringLiteral kOpIdAttr = "kiln.op_id";

/// The op's own schedule, or null.
kernel::CpuScheduleAttr getOwnSchedule(mlir::Operation *op);
/// f32 lanes of a vector register of `vectorBits`; 4 when there is none
/// (tiles are still sized as if, and LLVM lowers the vectors to scalars).
inline int64_t lanesFor(int64_t vectorBits) {
  return std::max<int64_t>(vectorBits / 32, 4);
}

/// Bytes of one element of `type` (a shaped type's element; whole bytes,
/// sub-byte types as one); 4 for types without a bit width.
inline int64_t elementBytesOf(mlir::Type type) {
  mlir::Type t = mlir::getElementTypeOrSelf(type);
  return t.isIntOrFloat() ? std::max<int64_t>(t.getIntOrFloatBitWidth(), 8) / 8
                          : 4;
}

/// The kind of schedule an op takes: "conv" (NCHW), "conv_nhwc",
/// "conv_grouped", "depthwise" or "contraction"; empty for ops that take
/// their function's default. Kinds key search spaces and tuning tasks.
llvm::StringRef getTunableKind(mlir::Operation *op);
/// The strategies that fit a kind (the first is the fast path).
llvm::ArrayRef<llvm::StringRef> getStrategiesFor(llvm::StringRef kind);

/// The ONNX node an op comes from (the first name in its location); empty
/// if its location names none.
std::string getNodeName(mlir::Operation *op);
/// Eight hex digits of a stable hash of the op's name, operand and result
/// types and inherent attributes: equal for ops that compute the same
/// function of the same shapes.
std::string getFingerprint(mlir::Operation *op);
/// `node#fingerprint` (just the fingerprint when no node is known).
std::string getOpIdentity(mlir::Operation *op);

/// The contraction kernel's schedule for a product a rewrite creates from a
/// scheduled op: `s` with strategy `contraction` and these cache tiles,
/// packing thresholds and thread chunks, its register tiles kept.
kernel::CpuScheduleAttr
contractionScheduleFrom(kernel::CpuScheduleAttr s, int64_t tileM, int64_t tileN,
                        int64_t tileK, int64_t packRowBytes,
                        int64_t packARowBytes, int64_t threads);

/// An op's schedule and identity, kept across a rewrite that erases it.
struct SavedSchedule {
  mlir::Attribute schedule, id;
};
SavedSchedule saveSchedule(mlir::Operation *op);
/// Sets a saved schedule and identity on `to` where it has none.
void restoreSchedule(const SavedSchedule &saved, mlir::Operation *to);
/// Copies `from`'s schedule and identity to `to` where `to` has none: for
/// the ops a rewrite puts in place of a scheduled op.
void inheritSchedule(mlir::Operation *from, mlir::Operation *to);

/// Keeps schedules on ops that pattern rewrites replace (with a new linalg
/// op, possibly behind reshapes): pass it as the rewrite driver's listener.
struct KeepSchedulesListener : public mlir::RewriterBase::Listener {
  void notifyOperationReplaced(mlir::Operation *op,
                               mlir::ValueRange replacement) override;
};

/// Emits a remark on `op`: "<what> (<op name>): <why>". `kiln compile
/// --remarks` prints them with the node name.
void remarkSlowPath(mlir::Operation *op, const llvm::Twine &what,
                    const llvm::Twine &why);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_SCHEDULE_H
