//===- InstrumentProfile.cpp - Timestamps around every kernel call --------===//
//
//   func.call @kiln_entry_conv1_ser0(...) {kiln.kernel = "..."}
// becomes
//   if (&kiln_rt_profile_event != null) kiln_rt_profile_event(3, 0)
//   func.call @kiln_entry_conv1_ser0(...)
//   if (&kiln_rt_profile_event != null) kiln_rt_profile_event(3, 1)
//
// The hook is extern_weak like kiln_rt_parallel_for: a library loaded where
// kiln_rt's symbols are not global still runs, untimed.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Schedule.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_INSTRUMENTPROFILE
#include "lowering/cpu/Passes.h.inc"

namespace {

LLVM::LLVMFuncOp getOrDeclareHook(ModuleOp module) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(kProfileEventSymbol))
    return fn;
  MLIRContext *ctx = module.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), kProfileEventSymbol,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {i64, i64}),
      LLVM::Linkage::ExternWeak);
}

/// `kiln_rt_profile_event(kernel, phase)` at `b`, when the hook is present.
void callHook(OpBuilder &b, Location loc, LLVM::LLVMFuncOp hook, int64_t kernel,
              int64_t phase) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value address = LLVM::AddressOfOp::create(b, loc, hook);
  Value null = LLVM::ZeroOp::create(b, loc, ptr);
  Value present =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, address, null);
  auto ifOp = scf::IfOp::create(b, loc, present, /*withElseRegion=*/false);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Value k = LLVM::ConstantOp::create(tb, loc, tb.getI64Type(), kernel);
  Value p = LLVM::ConstantOp::create(tb, loc, tb.getI64Type(), phase);
  LLVM::CallOp::create(tb, loc, hook, ValueRange{k, p});
}

struct InstrumentProfilePass
    : impl::InstrumentProfileBase<InstrumentProfilePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> sites;
    module.walk([&](Operation *op) {
      if (op->hasAttr(kKernelAttr))
        sites.push_back(op);
    });
    if (sites.empty())
      return;
    LLVM::LLVMFuncOp hook = getOrDeclareHook(module);
    Builder attrs(&getContext());
    SmallVector<Attribute> kernels;
    for (Operation *op : sites) {
      auto symbol = op->getAttrOfType<StringAttr>(kKernelAttr);
      op->removeAttr(kKernelAttr);
      int64_t index = kernels.size();
      kernels.push_back(attrs.getDictionaryAttr(
          {attrs.getNamedAttr("symbol", symbol),
           attrs.getNamedAttr("node",
                              attrs.getStringAttr(cpu::getNodeName(op)))}));
      OpBuilder b(op);
      callHook(b, op->getLoc(), hook, index, 0);
      b.setInsertionPointAfter(op);
      callHook(b, op->getLoc(), hook, index, 1);
    }
    module->setAttr(kProfileKernelsAttr, attrs.getArrayAttr(kernels));
  }
};

} // namespace
} // namespace kiln
