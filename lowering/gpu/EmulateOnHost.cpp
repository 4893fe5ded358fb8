//===- EmulateOnHost.cpp - Mapped kernels as host loops -------------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_EMULATEONHOST
#include "lowering/gpu/Passes.h.inc"

namespace {

struct EmulateOnHostPass : impl::EmulateOnHostBase<EmulateOnHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch)))
        return signalPassFailure();
    replaceBuffers(module);
  }

  LogicalResult emulate(gpu::LaunchOp launch) {
    WalkResult warpLevel = launch.getBody().walk([](Operation *op) {
      if (isa<gpu::BarrierOp, gpu::SubgroupMmaComputeOp,
              gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp>(op))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (warpLevel.wasInterrupted() ||
        !launch.getWorkgroupAttributions().empty())
      return launch.emitError("a kernel with warp-level or shared-memory "
                              "operations cannot run emulated on the host");
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    IRMapping map;
    map.map(launch.getGridSize().x, grid.x);
    map.map(launch.getGridSize().y, grid.y);
    map.map(launch.getGridSize().z, grid.z);
    map.map(launch.getBlockSize().x, block.x);
    map.map(launch.getBlockSize().y, block.y);
    map.map(launch.getBlockSize().z, block.z);
    // Blocks z, y, x, then threads z, y, x: x innermost, as a warp runs.
    SmallVector<std::pair<Value, Value>> loops = {
        {launch.getBlockIds().z, grid.z},   {launch.getBlockIds().y, grid.y},
        {launch.getBlockIds().x, grid.x},   {launch.getThreadIds().z, block.z},
        {launch.getThreadIds().y, block.y}, {launch.getThreadIds().x, block.x}};
    for (auto [id, bound] : loops) {
      auto loop = scf::ForOp::create(b, loc, zero, bound, one);
      map.map(id, loop.getInductionVar());
      b.setInsertionPointToStart(loop.getBody());
    }
    for (Operation &op : launch.getBody().front().without_terminator())
      b.clone(op, map);
    launch.erase();
    return success();
  }

  void replaceBuffers(ModuleOp module) {
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, func::CallOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        Value host = memref::AllocOp::create(
            b, loc, alloc.getMemref().getType(), alloc.getDynamicSizes(),
            ValueRange(), b.getI64IntegerAttr(64));
        alloc.getMemref().replaceAllUsesWith(host);
      } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
        memref::DeallocOp::create(b, loc, dealloc.getMemref());
      } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
        memref::CopyOp::create(b, loc, copy.getSrc(), copy.getDst());
      } else {
        auto call = cast<func::CallOp>(op);
        if (!call.getCallee().starts_with(kConstantUploadPrefix))
          continue;
        // The weight is already in host memory.
        call.getResult(0).replaceAllUsesWith(call.getOperand(0));
      }
      op->erase();
    }
    for (auto f : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (f.isExternal() && f.getName().starts_with(kConstantUploadPrefix))
        f.erase();
  }
};

} // namespace
} // namespace kiln
