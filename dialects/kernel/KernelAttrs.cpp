//===- KernelAttrs.cpp - kiln.kernel attributes ---------------------------===//

#include "dialects/kernel/KernelAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln::kernel;

#define GET_ATTRDEF_CLASSES
#include "dialects/kernel/KernelAttrs.cpp.inc"

void KernelDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/kernel/KernelAttrs.cpp.inc"
      >();
}

llvm::ArrayRef<llvm::StringRef> CpuScheduleAttr::getStrategies() {
  static const llvm::StringRef strategies[] = {
      "contraction", "im2col",      "blocked_im2col", "im2col_transposed",
      "winograd_f4", "winograd_f2", "packed_weights", "direct",
      "depthwise",   "rows",        "scalar"};
  return strategies;
}

/// The strategies whose products run the contraction kernel (and need its
/// tiles).
static bool isContractionStrategy(llvm::StringRef strategy) {
  return llvm::is_contained(CpuScheduleAttr::getStrategies().take_front(7),
                            strategy);
}

bool CpuScheduleAttr::usesContractionKernel() const {
  return isContractionStrategy(getStrategy());
}

LogicalResult CpuScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef strategy,
    int64_t vectorBits, int64_t tileM, int64_t tileN, int64_t tileK,
    int64_t regM, int64_t regN, int64_t regK, int64_t packRowBytes,
    int64_t packARowBytes, int64_t packMinReuse, int64_t packAMinReuse,
    int64_t threads, int64_t minParallelWork, int64_t blockBytes,
    int64_t accumulators, int64_t loopOrder) {
  if (!llvm::is_contained(getStrategies(), strategy))
    return emitError() << "unknown strategy '" << strategy
                       << "' (known: " << llvm::join(getStrategies(), ", ")
                       << ")";
  if (vectorBits < 0 ||
      (vectorBits && (vectorBits < 64 || !llvm::isPowerOf2_64(vectorBits))))
    return emitError() << "vector_bits must be 0 or a power of two >= 64, not "
                       << vectorBits;
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"tile_m", tileM},
                             {"tile_n", tileN},
                             {"tile_k", tileK},
                             {"reg_m", regM},
                             {"reg_n", regN},
                             {"reg_k", regK},
                             {"pack_row_bytes", packRowBytes},
                             {"pack_a_row_bytes", packARowBytes},
                             {"pack_min_reuse", packMinReuse},
                             {"pack_a_min_reuse", packAMinReuse},
                             {"threads", threads},
                             {"min_parallel_work", minParallelWork},
                             {"block_bytes", blockBytes},
                             {"accumulators", accumulators}})
    if (value < 0)
      return emitError() << name << " must be >= 0, not " << value;
  bool contraction = isContractionStrategy(strategy);
  if (contraction) {
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"tile_m", tileM},
                               {"tile_n", tileN},
                               {"tile_k", tileK},
                               {"reg_m", regM},
                               {"reg_n", regN},
                               {"reg_k", regK}})
      if (value == 0)
        return emitError() << "strategy '" << strategy << "' needs " << name
                           << " > 0";
  }
  if (strategy == "depthwise" && vectorBits < 128)
    return emitError() << "strategy 'depthwise' needs vector_bits >= 128";
  if (strategy == "blocked_im2col" && blockBytes == 0)
    return emitError() << "strategy 'blocked_im2col' needs block_bytes > 0";
  if (loopOrder < 0 || loopOrder > 2)
    return emitError() << "loop_order must be 0, 1 (columns outer) or 2 (rows "
                          "outer), not "
                       << loopOrder;
  if (strategy == "depthwise" && accumulators == 0)
    return emitError() << "strategy 'depthwise' needs accumulators > 0";
  return success();
}
