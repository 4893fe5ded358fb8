//===- MergeKernelModules.cpp - One gpu.module per library ----------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_MERGEKERNELMODULES
#include "lowering/gpu/Passes.h.inc"

namespace {
struct MergeKernelModulesPass
    : impl::MergeKernelModulesBase<MergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.size() < 2)
      return;
    gpu::GPUModuleOp target = kernels.front();
    SymbolTable targetSymbols(target);
    // (old module, old kernel) -> new kernel name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUModuleOp source : llvm::drop_begin(kernels)) {
      for (Operation &op : llvm::make_early_inc_range(*source.getBody())) {
        auto sym = dyn_cast<SymbolOpInterface>(op);
        if (!sym) {
          op.emitError("unexpected op in an outlined kernel module");
          return signalPassFailure();
        }
        StringAttr old = sym.getNameAttr();
        op.remove();
        // insert() renames on a clash and returns the name it kept.
        moved[{source.getNameAttr(), old}] = targetSymbols.insert(&op);
      }
      source.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it =
          moved.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == moved.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          target.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};
} // namespace
} // namespace kiln
