//===- ReducePrecision.cpp - bf16/f16 contractions ------------------------===//
//
// Marks the contractions `--precision bf16|fp16` runs in reduced precision
// (see Passes.td and dialects/graph/ComputeType.h). Only a mark: the
// rounding and packing happen in the lowering (ReducedPrecision.cpp), where
// the weight is packed for the dot kernel at compile time.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ComputeType.h"
#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "dialects/kernel/KernelOps.h"
#include "lowering/graph/Passes.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_REDUCEPRECISION
#include "lowering/graph/Passes.h.inc"

namespace {

bool isStaticF32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32();
}

bool isConstantMatrix(Value v) {
  std::optional<ConstantData> d = getConstantData(v);
  return d && d->type.getRank() == 2 && d->type.getElementType().isF32();
}

/// True for the ops ReducedPrecision.cpp lowers.
bool isReducible(Operation *op) {
  if (auto conv = dyn_cast<kernel::Conv2DNhwcOp>(op)) {
    std::optional<ConstantData> w = getConstantData(conv.getFilter());
    return !conv.isDepthwise() && w && w->type.getElementType().isF32() &&
           isStaticF32(conv.getInput()) && isStaticF32(conv.getOutput());
  }
  Value a, b;
  if (auto m = dyn_cast<g::MatMulOp>(op)) {
    a = m.getA();
    b = m.getB();
  } else if (auto m = dyn_cast<g::FusedMatMulOp>(op)) {
    a = m.getA();
    b = m.getB();
  } else if (auto gemm = dyn_cast<g::GemmOp>(op)) {
    auto ct = dyn_cast<RankedTensorType>(gemm.getC().getType());
    int64_t n =
        isStaticF32(gemm.getY())
            ? cast<RankedTensorType>(gemm.getY().getType()).getDimSize(1)
            : -1;
    bool biasOk = g::isNoValue(gemm.getC()) ||
                  (ct && ct.getRank() == 1 && ct.getDimSize(0) == n &&
                   gemm.getBeta().convertToDouble() == 1.0);
    if (gemm.getTransA() || !biasOk)
      return false;
    a = gemm.getA();
    b = gemm.getB();
  } else {
    return false;
  }
  return isStaticF32(a) && isConstantMatrix(b) && isStaticF32(op->getResult(0));
}

struct ReducePrecisionPass : impl::ReducePrecisionBase<ReducePrecisionPass> {
  using ReducePrecisionBase::ReducePrecisionBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type type;
    if (precision == "bf16")
      type = BFloat16Type::get(ctx);
    else if (precision == "fp16")
      type = Float16Type::get(ctx);
    else {
      getOperation().emitError("kiln-reduce-precision: unknown precision '")
          << precision << "' (bf16 or fp16)";
      return signalPassFailure();
    }
    getOperation().walk([&](Operation *op) {
      if (isReducible(op))
        op->setAttr(g::kComputeTypeAttr, TypeAttr::get(type));
    });
  }
};

} // namespace
} // namespace kiln
