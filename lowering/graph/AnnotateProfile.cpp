//===- AnnotateProfile.cpp - What a profile says about each ONNX node -----===//
//
// A profiled library names each kernel by the ONNX node it comes from (the
// first name in its location). What the kernels no longer know, the node's
// ONNX op type, what was fused into it and its FLOP count, is read here, on
// the graph, and kept on the module until the library's kernel table is
// written:
//
//   module attributes {kiln.profile.nodes = {conv1 = {flops = 2.3e+08,
//       fused = "Relu", op = "Conv"}}}
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"
#include "lowering/graph/Passes.h"

#include <map>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_ANNOTATEPROFILE
#include "lowering/graph/Passes.h.inc"

namespace {
namespace g = graph;

/// Elements of a static shape; nullopt when a dim is dynamic.
std::optional<double> numElements(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  double n = 1;
  for (int64_t d : t.getShape())
    n *= d;
  return n;
}

std::optional<int64_t> staticDim(Value v, int64_t index) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() == 0)
    return std::nullopt;
  if (index < 0)
    index += t.getRank();
  if (index < 0 || index >= t.getRank() || t.isDynamicDim(index))
    return std::nullopt;
  return t.getDimSize(index);
}

/// 2 * multiply-adds of `out` elements each reading `weights` elements
/// shared by `perOutput` outputs: numel(out) * numel(w) / perOutput * 2.
std::optional<double> convFlops(Value out, Value weights, int64_t perOutDim) {
  auto y = numElements(out), w = numElements(weights);
  auto m = staticDim(weights, perOutDim);
  if (!y || !w || !m || *m == 0)
    return std::nullopt;
  return 2 * *y * (*w / *m);
}

/// 2 * numel(out) * k for a contraction over `k`.
std::optional<double> contractionFlops(Value out, std::optional<int64_t> k) {
  auto y = numElements(out);
  if (!y || !k)
    return std::nullopt;
  return 2 * *y * *k;
}

/// FLOPs of the ops that have a count (contractions); 0 for the others.
std::optional<double> countFlops(Operation *op) {
  if (auto c = dyn_cast<g::ConvOp>(op))
    return convFlops(c.getY(), c.getW(), 0);
  if (auto c = dyn_cast<g::FusedConvOp>(op))
    return convFlops(c.getY(), c.getW(), 0);
  if (auto c = dyn_cast<kernel::Conv2DNhwcOp>(op))
    return convFlops(c.getOutput(), c.getFilter(), -1);
  // Integer multiply-adds count as two operations too.
  if (auto c = dyn_cast<g::QuantizedConvOp>(op))
    return convFlops(c.getY(), c.getW(), 0);
  if (auto m = dyn_cast<g::QuantizedMatMulOp>(op))
    return contractionFlops(m.getY(), staticDim(m.getX(), -1));
  if (auto c = dyn_cast<g::ConvTransposeOp>(op)) {
    // Every input element meets M/group * prod(kernel) weights.
    auto x = numElements(c.getX()), w = numElements(c.getW());
    auto cin = staticDim(c.getW(), 0);
    if (!x || !w || !cin || *cin == 0)
      return std::nullopt;
    return 2 * *x * (*w / *cin);
  }
  if (auto m = dyn_cast<g::MatMulOp>(op))
    return contractionFlops(m.getY(), staticDim(m.getA(), -1));
  if (auto m = dyn_cast<g::FusedMatMulOp>(op))
    return contractionFlops(m.getY(), staticDim(m.getA(), -1));
  if (auto m = dyn_cast<g::GemmOp>(op))
    return contractionFlops(m.getY(),
                            staticDim(m.getA(), m.getTransA() ? 0 : 1));
  return 0.0;
}

/// The ONNX op an op stands for: FusedConv and conv_2d_nhwc are Conv,
/// max_pool_2d_nhwc is MaxPool.
std::string onnxOpType(Operation *op) {
  if (isa<kernel::Conv2DNhwcOp>(op))
    return "Conv";
  if (isa<kernel::MaxPool2DNhwcOp>(op))
    return "MaxPool";
  llvm::StringRef name = op->getName().stripDialect();
  name.consume_front("Fused");
  return name.str();
}

/// What graph passes fused into the op ("bias+Relu"); empty if nothing.
std::string fusedInto(Operation *op) {
  std::string fused;
  auto add = [&](llvm::StringRef what) {
    if (!what.empty())
      fused += (fused.empty() ? "" : "+") + what.str();
  };
  if (auto c = dyn_cast<g::FusedConvOp>(op))
    add(c.getActivation());
  if (auto m = dyn_cast<g::FusedMatMulOp>(op)) {
    if (!isa<NoneType>(m.getBias().getType()))
      add("bias");
    add(m.getActivation());
  }
  if (auto c = dyn_cast<kernel::Conv2DNhwcOp>(op))
    if (auto act = c.getActivation())
      add(*act);
  return fused;
}

std::string firstName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string n = firstName(inner); !n.empty())
        return n;
  return "";
}

struct NodeInfo {
  std::string op, fused;
  double flops = 0;
  bool flopsKnown = true;
};

struct AnnotateProfilePass : impl::AnnotateProfileBase<AnnotateProfilePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::map<std::string, NodeInfo> nodes;
    module.walk([&](Operation *op) {
      if (!isa<g::GraphDialect, kernel::KernelDialect>(op->getDialect()) ||
          isa<g::ConstantOp, g::NoValueOp>(op))
        return;
      std::string node = firstName(op->getLoc());
      if (node.empty())
        return;
      // Ops an import expanded one node into share its name: the first
      // gives the op type, the FLOPs add up.
      auto [it, inserted] = nodes.try_emplace(node);
      NodeInfo &info = it->second;
      if (inserted) {
        info.op = onnxOpType(op);
        info.fused = fusedInto(op);
      }
      std::optional<double> flops = countFlops(op);
      if (!flops)
        info.flopsKnown = false;
      else
        info.flops += *flops;
    });
    Builder b(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto &[node, info] : nodes) {
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("op", b.getStringAttr(info.op)),
          b.getNamedAttr("fused", b.getStringAttr(info.fused)),
          b.getNamedAttr("flops",
                         b.getF64FloatAttr(info.flopsKnown ? info.flops : 0))};
      entries.push_back(b.getNamedAttr(node, b.getDictionaryAttr(fields)));
    }
    module->setAttr(kProfileNodesAttr, b.getDictionaryAttr(entries));
  }
};

} // namespace
} // namespace kiln
