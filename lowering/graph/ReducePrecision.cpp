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

/// Empty for the ops ReducedPrecision.cpp lowers; else why a convolution
/// or matrix product stays f32; nullopt for other ops.
std::optional<StringRef> whyNotReducible(Operation *op) {
  StringRef dynamic = "it has dynamic dims (--input-shape or --specialize "
                      "give it static ones)";
  if (auto conv = dyn_cast<kernel::Conv2DNhwcOp>(op)) {
    std::optional<ConstantData> w = getConstantData(conv.getFilter());
    if (conv.isDepthwise())
      return StringRef("depthwise convolutions are memory-bound");
    if (!w || !w->type.getElementType().isF32())
      return StringRef("its filter is not an f32 constant");
    if (!isStaticF32(conv.getInput()) || !isStaticF32(conv.getOutput()))
      return dynamic;
    return StringRef();
  }
  // Convolutions that stayed NCHW: the channels-last kernel takes no groups.
  if (isa<g::ConvOp, g::FusedConvOp>(op))
    return StringRef("grouped convolutions have no reduced kernel");
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
      return StringRef("a Gemm with transA, or a C that is not one value "
                       "per column");
    a = gemm.getA();
    b = gemm.getB();
  } else {
    return std::nullopt;
  }
  if (!isConstantMatrix(b))
    return StringRef("its weight is not a constant f32 matrix");
  if (!isStaticF32(a) || !isStaticF32(op->getResult(0)))
    return dynamic;
  return StringRef();
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
    // Remarks (`kiln compile --remarks`) name the contractions that stay f32.
    getOperation().walk([&](Operation *op) {
      std::optional<StringRef> why = whyNotReducible(op);
      if (!why)
        return;
      if (why->empty())
        op->setAttr(g::kComputeTypeAttr, TypeAttr::get(type));
      else
        op->emitRemark() << "stays f32 under --precision " << precision << ": "
                         << *why;
    });
  }
};

} // namespace
} // namespace kiln
