//===- EmulateOnHost.cpp - Mapped kernels as host loops -------------------===//

#include "lowering/gpu/Combiners.h"
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
    // A block-wide reduction at the body's top level splits the body:
    // every thread runs the part before it, the values are combined, then
    // every thread runs the part before it again and the part after it.
    gpu::AllReduceOp reduce;
    for (Operation &op : launch.getBody().front())
      if (auto r = dyn_cast<gpu::AllReduceOp>(op))
        reduce = r;
    WalkResult warpLevel = launch.getBody().walk([&](Operation *op) {
      if (auto r = dyn_cast<gpu::AllReduceOp>(op))
        return r == reduce && r.getOp() ? WalkResult::advance()
                                        : WalkResult::interrupt();
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
    if (!reduce) {
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
    // Blocks as loops; threads (x only, as kiln-gpu-block-reductions makes
    // them) three times around the reduction.
    for (auto [id, bound] : ArrayRef(loops).take_front(3)) {
      auto loop = scf::ForOp::create(b, loc, zero, bound, one);
      map.map(id, loop.getInductionVar());
      b.setInsertionPointToStart(loop.getBody());
    }
    map.map(launch.getThreadIds().y, zero);
    map.map(launch.getThreadIds().z, zero);
    Type type = reduce.getType();
    auto partials = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, type),
        ValueRange{block.x});
    // Each round clones with a fresh copy of the mapping: a region cloned
    // with a mapping that already holds its block arguments loses them.
    IRMapping round;
    auto before = [&](OpBuilder &tb, Value t) {
      round = map;
      round.map(launch.getThreadIds().x, t);
      for (Operation &op : launch.getBody().front()) {
        if (&op == reduce.getOperation())
          break;
        tb.clone(op, round);
      }
    };
    scf::ForOp::create(b, loc, zero, block.x, one, ValueRange(),
                       [&](OpBuilder &tb, Location, Value t, ValueRange) {
                         before(tb, t);
                         memref::StoreOp::create(
                             tb, loc, round.lookup(reduce.getValue()), partials,
                             ValueRange{t});
                         scf::YieldOp::create(tb, loc);
                       });
    Value first = memref::LoadOp::create(b, loc, partials, ValueRange{zero});
    auto combine = scf::ForOp::create(
        b, loc, one, block.x, one, ValueRange{first},
        [&](OpBuilder &tb, Location, Value t, ValueRange acc) {
          Value v = memref::LoadOp::create(tb, loc, partials, ValueRange{t});
          scf::YieldOp::create(
              tb, loc, buildCombine(tb, loc, *reduce.getOp(), acc[0], v));
        });
    scf::ForOp::create(b, loc, zero, block.x, one, ValueRange(),
                       [&](OpBuilder &tb, Location, Value t, ValueRange) {
                         before(tb, t);
                         round.map(reduce.getResult(), combine.getResult(0));
                         for (Operation *op = reduce->getNextNode();
                              !isa<gpu::TerminatorOp>(op);
                              op = op->getNextNode())
                           tb.clone(*op, round);
                         scf::YieldOp::create(tb, loc);
                       });
    memref::DeallocOp::create(b, loc, partials);
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
