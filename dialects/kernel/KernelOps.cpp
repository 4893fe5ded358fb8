//===- KernelOps.cpp - kiln.kernel verifiers and type inference -----------===//
//
// Operand checks live in the result-type inference, which runs as part of
// verification, so that invalid ops never get a result type; the verifier
// adds the checks of the epilogue attributes.
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelOps.h"
#include "dialects/graph/Activation.h"

using namespace mlir;
using namespace kiln::kernel;
namespace graph = kiln::graph;

/// OH and OW of a window op on the NHWC `in` with a `kh` x `kw` window;
/// also checks the strides, dilations and pads.
static FailureOr<SmallVector<int64_t, 2>>
inferWindowExtents(std::optional<Location> loc, RankedTensorType in,
                   ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads) {
  if (in.getRank() != 4)
    return emitOptionalError(loc, "input must be NHWC (rank 4), got rank ",
                             in.getRank());
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    return emitOptionalError(
        loc, "needs 2 strides, 2 dilations and 4 pads [top, left, bottom, "
             "right]");
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return emitOptionalError(loc, "strides and dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, "pads must not be negative");
  SmallVector<int64_t, 2> out;
  for (int i = 0; i < 2; ++i) {
    int64_t size = in.getDimSize(1 + i), k = window[i];
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(k)) {
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t extent = size + pads[i] + pads[i + 2];
    int64_t span = (k - 1) * dilations[i] + 1;
    if (extent < span)
      return emitOptionalError(loc, "window of ", span,
                               " exceeds the padded input extent ", extent);
    out.push_back((extent - span) / strides[i] + 1);
  }
  return out;
}

LogicalResult MaxPool2DNhwcOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  if (kernel.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return emitOptionalError(loc, "needs a kernel of 2 positive extents");
  FailureOr<SmallVector<int64_t, 2>> spatial =
      inferWindowExtents(loc, in, kernel, adaptor.getStrides(),
                         adaptor.getDilations(), adaptor.getPads());
  if (failed(spatial))
    return failure();
  types.push_back(RankedTensorType::get(
      {in.getDimSize(0), (*spatial)[0], (*spatial)[1], in.getDimSize(3)},
      in.getElementType()));
  return success();
}

LogicalResult Conv2DNhwcOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = cast<RankedTensorType>(adaptor.getFilter().getType());
  ArrayRef<int64_t> strides = adaptor.getStrides();
  ArrayRef<int64_t> dilations = adaptor.getDilations();
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t group = adaptor.getGroup();
  if (filter.getElementType() != in.getElementType())
    return emitOptionalError(loc, "filter element type ",
                             filter.getElementType(), " differs from input's ",
                             in.getElementType());
  if (filter.getRank() < 3)
    return emitOptionalError(loc, "filter must be HWCF or HWC");
  FailureOr<SmallVector<int64_t, 2>> spatial = inferWindowExtents(
      loc, in, filter.getShape().take_front(2), strides, dilations, pads);
  if (failed(spatial))
    return failure();

  int64_t channels = in.getDimSize(3), features;
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (group == 1) {
    if (filter.getRank() != 4)
      return emitOptionalError(loc,
                               "group 1 needs an HWCF filter (rank 4), "
                               "got rank ",
                               filter.getRank());
    if (mismatch(filter.getDimSize(2), channels))
      return emitOptionalError(loc, "filter has ", filter.getDimSize(2),
                               " input channels, input has ", channels);
    features = filter.getDimSize(3);
  } else {
    if (filter.getRank() != 3 || group != channels ||
        mismatch(filter.getDimSize(2), channels))
      return emitOptionalError(
          loc, "group ", group,
          " is supported only as depthwise: group = C with an HWC filter");
    features = channels;
  }
  if (Value bias = adaptor.getBias()) {
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getRank() != 1 || mismatch(bt.getDimSize(0), features) ||
        bt.getElementType() != in.getElementType())
      return emitOptionalError(loc, "bias must be a vector of ", features,
                               " elements of ", in.getElementType());
  }

  SmallVector<int64_t> out = {in.getDimSize(0), (*spatial)[0], (*spatial)[1],
                              features};
  types.push_back(RankedTensorType::get(out, in.getElementType()));
  return success();
}

LogicalResult Conv2DNhwcOp::verify() {
  std::optional<StringRef> activation = getActivation();
  std::optional<ArrayRef<float>> params = getActivationParams();
  if (!activation) {
    if (params)
      return emitOpError("activation_params given without an activation");
    return success();
  }
  std::optional<graph::Activation> act = graph::parseActivation(*activation);
  if (!act || *act == graph::Activation::None)
    return emitOpError("unknown activation '") << *activation << "'";
  unsigned expected = graph::getNumActivationParams(*act);
  size_t given = params ? params->size() : 0;
  if (given != expected)
    return emitOpError("activation '") << *activation << "' takes " << expected
                                       << " parameters, got " << given;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.cpp.inc"
