//===- MapToGpu.cpp - Loop nests of the host function as kernels ----------===//
//
// After bufferization and linalg-to-parallel-loops the entry function is a
// sequence of scf.parallel nests (one per linalg op) and a few host-level
// memory accesses. Each nest becomes one gpu.launch over its linearized
// iteration space: any rank, any (dynamic) trip counts, and the innermost
// loop spread over consecutive threads so that a warp reads consecutive
// addresses of row-major buffers. Kernels with a better mapping (tensor-core
// contractions) are made before this pass and are left alone.
//
//===----------------------------------------------------------------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_MAPTOGPU
#include "lowering/gpu/Passes.h.inc"

namespace {

static bool isHostBuffer(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// Reads or writes a buffer by itself (not through its regions); launcher
/// ops (gpu.memcpy) stay on the host.
static bool accessesBuffer(Operation *op) {
  if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
    return false;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  // Function arguments are the caller's host buffers (kiln-gpu-device-memory
  // leaves only host reads of inputs on them).
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    Value v = e.getValue();
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) && v &&
           isa<MemRefType>(v.getType()) && !isHostBuffer(v);
  });
}

static bool isDeviceWork(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (isa<gpu::LaunchOp>(inner))
      return WalkResult::skip();
    if (accessesBuffer(inner) || isa<scf::ParallelOp>(inner)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

static bool containsParallel(Operation *op) {
  return op->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The outermost scf.parallel around `op`, or null.
static scf::ParallelOp outermostParallel(Operation *op) {
  scf::ParallelOp outer;
  for (auto p = op->getParentOfType<scf::ParallelOp>(); p;
       p = p->getParentOfType<scf::ParallelOp>())
    outer = p;
  return outer;
}

static Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

struct MapToGpuPass : impl::MapToGpuBase<MapToGpuPass> {
  using MapToGpuBase::MapToGpuBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(sinkScalarLoads(func)) || failed(mapBlocks(func.getBody())))
      signalPassFailure();
  }

  /// A host-level load whose value (possibly through pure scalar ops) only
  /// kernels use is cloned, with those ops, into each of them.
  LogicalResult sinkScalarLoads(func::FuncOp func) {
    SmallVector<memref::LoadOp> loads;
    func.walk([&](memref::LoadOp load) {
      if (!outermostParallel(load) && !load->getParentOfType<gpu::LaunchOp>() &&
          !isHostBuffer(load.getMemRef()))
        loads.push_back(load);
    });
    for (memref::LoadOp load : loads) {
      // Host values computed from the load, and the kernels using them.
      llvm::SetVector<Operation *> chain;
      llvm::SetVector<scf::ParallelOp> kernels;
      SmallVector<Operation *> work{load};
      bool hostUse = false;
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        if (!chain.insert(op))
          continue;
        for (Operation *user : op->getUsers()) {
          if (scf::ParallelOp p = outermostParallel(user)) {
            kernels.insert(p);
          } else if (isPure(user) && user->getNumRegions() == 0 &&
                     user->getBlock() == load->getBlock()) {
            work.push_back(user);
          } else {
            hostUse = true;
          }
        }
      }
      if (hostUse)
        continue; // Left to run in a one-thread kernel, or reported.
      SmallVector<Operation *> ordered(chain.begin(), chain.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      for (scf::ParallelOp p : kernels) {
        OpBuilder b = OpBuilder::atBlockBegin(p.getBody());
        IRMapping map;
        for (Operation *op : ordered) {
          Operation *clone = b.clone(*op, map);
          for (auto [from, to] :
               llvm::zip(op->getResults(), clone->getResults()))
            from.replaceUsesWithIf(to, [&](OpOperand &use) {
              return p->isProperAncestor(use.getOwner());
            });
        }
      }
      for (Operation *op : llvm::reverse(ordered))
        if (op->use_empty())
          op->erase();
    }
    return success();
  }

  LogicalResult mapBlocks(Region &region) {
    for (Block &block : region) {
      // Runs of host-level memory accesses and the scalar ops between them
      // (a rank-0 op is a load, arithmetic and a store) share one
      // one-thread kernel.
      SmallVector<Operation *> run;
      for (Operation &op : llvm::make_early_inc_range(block)) {
        bool scalar = isPure(&op) && op.getNumRegions() == 0;
        bool serial = !isa<scf::ParallelOp, gpu::LaunchOp>(op) &&
                      isDeviceWork(&op) && !containsParallel(&op);
        if (scalar || serial) {
          run.push_back(&op);
          continue;
        }
        if (failed(wrapSerial(run)))
          return failure();
        run.clear();
        if (failed(mapOp(&op)))
          return failure();
      }
      if (failed(wrapSerial(run)))
        return failure();
    }
    return success();
  }

  LogicalResult mapOp(Operation *op) {
    if (auto par = dyn_cast<scf::ParallelOp>(op))
      return mapParallel(par);
    // Host control flow around kernels stays on the host.
    if (!isa<gpu::LaunchOp>(op) && op->getNumRegions() > 0 &&
        containsParallel(op))
      for (Region &r : op->getRegions())
        if (failed(mapBlocks(r)))
          return failure();
    return success();
  }

  /// Runs the device-dependent ops of `ops` (consecutive ops of one block)
  /// in a one-thread kernel; the others (index arithmetic for later
  /// kernels) stay on the host, before it.
  LogicalResult wrapSerial(ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 16> device;
    for (Operation *op : ops) {
      bool onDevice = isDeviceWork(op);
      for (Value v : op->getOperands())
        onDevice |= device.contains(v.getDefiningOp());
      if (onDevice)
        device.insert(op);
    }
    if (device.empty())
      return success();
    SmallVector<Operation *> moved;
    for (Operation *op : ops)
      if (device.contains(op))
        moved.push_back(op);
    for (Operation *op : moved)
      for (Operation *user : op->getUsers())
        if (!device.contains(user))
          return op->emitError()
                 << "the host would need a value computed from device memory "
                    "('"
                 << op->getName() << "' used by '" << user->getName()
                 << "'); not supported on GPU targets yet";
    OpBuilder b(moved.back()->getNextNode());
    Location loc = moved.front()->getLoc();
    Value one = index(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(b, loc);
    for (Operation *op : moved)
      op->moveBefore(terminator);
    return success();
  }

  LogicalResult mapParallel(scf::ParallelOp par) {
    if (par.getNumResults() != 0)
      return par.emitError("parallel loop with reductions");
    OpBuilder b(par);
    Location loc = par.getLoc();
    Value zero = index(b, loc, 0), one = index(b, loc, 1);
    SmallVector<Value> counts;
    Value total = one;
    for (auto [lb, ub, step] :
         llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep())) {
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      Value count = arith::CeilDivSIOp::create(b, loc, span, step);
      count = arith::MaxSIOp::create(b, loc, count, zero);
      counts.push_back(count);
      total = arith::MulIOp::create(b, loc, total, count);
    }
    // A small static iteration space gets one block of just its size.
    int64_t perBlock = threadsPerBlock, known = 1;
    for (auto [lb, ub, step] :
         llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
           st = getConstantIntValue(step);
      if (!l || !u || !st || *st <= 0) {
        known = -1;
        break;
      }
      known *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *st));
    }
    if (known >= 0)
      perBlock = std::clamp<int64_t>(known, 1, perBlock);
    Value threads = index(b, loc, perBlock);
    Value blocks = arith::CeilDivUIOp::create(b, loc, total, threads);
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);
    Block &body = launch.getBody().front();
    OpBuilder kb = OpBuilder::atBlockBegin(&body);
    Value id = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, launch.getBlockIds().x,
                              launch.getBlockSize().x),
        launch.getThreadIds().x);
    Value inRange =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, id, total);
    auto guard = scf::IfOp::create(kb, loc, inRange, false);
    gpu::TerminatorOp::create(kb, loc);

    OpBuilder ib = guard.getThenBodyBuilder();
    IRMapping map;
    Value rest = id;
    for (int64_t i = (int64_t)counts.size() - 1; i >= 0; --i) {
      Value k =
          i == 0 ? rest : arith::RemUIOp::create(ib, loc, rest, counts[i]);
      if (i > 0)
        rest = arith::DivUIOp::create(ib, loc, rest, counts[i]);
      Value iv = arith::AddIOp::create(
          ib, loc, par.getLowerBound()[i],
          arith::MulIOp::create(ib, loc, k, par.getStep()[i]));
      map.map(par.getInductionVars()[i], iv);
    }
    for (Operation &op : par.getBody()->without_terminator())
      ib.clone(op, map);
    par.erase();
    return success();
  }
};

} // namespace
} // namespace kiln
