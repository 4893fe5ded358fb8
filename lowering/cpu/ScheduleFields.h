//===- ScheduleFields.h - Editable CPU schedules and block sizes -*- C++
//-*-===//
//
// The fields of a #kiln_kernel.cpu_schedule as kiln-cpu-select-schedule
// edits them, the per-op schedules of a schedule file or tuning database,
// and the thread and cache block sizes its heuristics share.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LOWERING_CPU_SCHEDULEFIELDS_H
#define KILN_LOWERING_CPU_SCHEDULEFIELDS_H

#include "dialects/kernel/KernelAttrs.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace kiln::cpu {

/// The fields of a #kiln_kernel.cpu_schedule, editable.
struct ScheduleFields {
  std::string strategy;
  int64_t vectorBits = 0, tileM = 0, tileN = 0, tileK = 0, regM = 0, regN = 0,
          regK = 0, packRowBytes = 0, packARowBytes = 0, packMinReuse = 0,
          packAMinReuse = 0, threads = 0, minParallelWork = 0, blockBytes = 0,
          accumulators = 0, loopOrder = 0;

  /// The integer fields by their names in the attribute and in schedule
  /// files.
  static llvm::ArrayRef<std::pair<llvm::StringRef, int64_t ScheduleFields::*>>
  integers() {
    static const std::pair<llvm::StringRef, int64_t ScheduleFields::*>
        fields[] = {{"vector_bits", &ScheduleFields::vectorBits},
                    {"tile_m", &ScheduleFields::tileM},
                    {"tile_n", &ScheduleFields::tileN},
                    {"tile_k", &ScheduleFields::tileK},
                    {"reg_m", &ScheduleFields::regM},
                    {"reg_n", &ScheduleFields::regN},
                    {"reg_k", &ScheduleFields::regK},
                    {"pack_row_bytes", &ScheduleFields::packRowBytes},
                    {"pack_a_row_bytes", &ScheduleFields::packARowBytes},
                    {"pack_min_reuse", &ScheduleFields::packMinReuse},
                    {"pack_a_min_reuse", &ScheduleFields::packAMinReuse},
                    {"threads", &ScheduleFields::threads},
                    {"min_parallel_work", &ScheduleFields::minParallelWork},
                    {"block_bytes", &ScheduleFields::blockBytes},
                    {"accumulators", &ScheduleFields::accumulators},
                    {"loop_order", &ScheduleFields::loopOrder}};
    return fields;
  }

  kernel::CpuScheduleAttr
  toAttr(mlir::MLIRContext *ctx,
         llvm::function_ref<mlir::InFlightDiagnostic()> emitError) const {
    return kernel::CpuScheduleAttr::getChecked(
        emitError, ctx, llvm::StringRef(strategy), vectorBits, tileM, tileN,
        tileK, regM, regN, regK, packRowBytes, packARowBytes, packMinReuse,
        packAMinReuse, threads, minParallelWork, blockBytes, accumulators,
        loopOrder);
  }
};

/// Per-op overrides read from a schedule file, keyed by node name,
/// node#fingerprint or fingerprint.
using ScheduleOverrides = llvm::StringMap<llvm::json::Object>;

/// Reads schedules from JSON `text` into `overrides` (a later entry for an
/// op adds to an earlier one's); `path` names it in `error`.
mlir::LogicalResult parseSchedules(llvm::StringRef text, llvm::StringRef path,
                                   ScheduleOverrides &overrides,
                                   std::string &error);

/// Sets the fields `entry` names (checked by parseSchedules).
void applyOverride(ScheduleFields &f, const llvm::json::Object &entry);

/// Row blocks (of 8 register tiles or more, up to `f.tileM`) that two or
/// four threads finish soonest: they share the whole blocks (times the
/// column blocks), then the rows past them, an op of their own, split by
/// its column blocks. 1000 rows (a classifier as a 1x1 convolution,
/// SqueezeNet's 512 -> 1000 at 13x13) were 7 blocks of 128 and 104 rows:
/// two threads ran 4 blocks, then the rest on one; in 8 blocks of 120
/// (and 40 rows), 0.434 -> 0.372 ms. A block 5 % shorter or more wins.
int64_t evenRowBlocks(int64_t m, int64_t n, const ScheduleFields &f);

/// Cache or thread blocks that leave no rows (columns) past the last
/// whole block but those of the last register tile: as many blocks of
/// equal size where that divides `size`, else the largest multiple of
/// `reg` up to `tile`, of `least` register tiles or more (two at least),
/// whose blocks divide `size`'s whole register tiles; `tile` itself when
/// none does or `size` fits in one block. The rest past the whole blocks
/// runs as an op of its own, after them and often on one thread: 200 rows
/// in blocks of 64 left 8 rows, and 289 pixels in blocks of 256 left 33
/// columns, 21 % of a 200-channel 3x3 convolution's time at 17x17 on two
/// threads; in blocks of 40 rows and 96 columns, 1.27 -> 0.99 ms (1.63 ->
/// 1.52 on one thread). Also gives the threads even row blocks: 192 rows in
/// blocks of 128 were a block and a serial rest.
int64_t wholeBlockTile(int64_t size, int64_t tile, int64_t reg, int64_t least);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_SCHEDULEFIELDS_H
