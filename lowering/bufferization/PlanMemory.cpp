//===- PlanMemory.cpp - Static arena placement of intermediate buffers ----===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_PLANMEMORY
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  // Bytes per iteration of the parallel loop whose body holds the alloc: each
  // iteration gets its own slot, so threads never share one. 0 if top-level.
  int64_t slotBytes = 0;
  int64_t start = 0, end = 0; // top-level op indices, inclusive
  int64_t offset = -1;
};

/// Index of the last top-level op in `block` that uses `root` or a memref
/// derived from it (views, casts, reshapes).
static int64_t lastUse(Value root, Block &block,
                       const DenseMap<Operation *, int64_t> &index) {
  int64_t last = 0;
  SmallVector<Value> worklist{root};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (top)
        last = std::max(last, index.lookup(top));
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()))
          worklist.push_back(r);
    }
  }
  return last;
}

/// Whether every dim of `forall` runs from 0 in unit steps to a static
/// bound; `trips` gets the total iteration count.
static bool isUnitStrideFromZero(scf::ForallOp forall, int64_t &trips) {
  trips = 1;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *l != 0 || *s != 1 || *u <= 0)
      return false;
    trips *= *u;
  }
  return true;
}

/// The row-major linear iteration number of `forall`'s body.
static Value linearIndex(OpBuilder &b, Location loc, scf::ForallOp forall) {
  Value linear;
  for (auto [iv, ub] :
       llvm::zip(forall.getInductionVars(), forall.getMixedUpperBound())) {
    if (!linear) {
      linear = iv;
      continue;
    }
    Value extent =
        arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(ub));
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear, extent), iv);
  }
  return linear;
}

struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>("kiln_entry");
    if (!fn || fn.isExternal())
      return;
    Block &block = fn.getBody().front();
    DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(block))
      index[&op] = i;

    std::vector<Buffer> buffers;
    fn.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat())
        return;
      Operation *top = block.findAncestorOpInBlock(*alloc);
      if (!top)
        return;
      int64_t trips = 1;
      if (top != alloc.getOperation()) {
        auto forall = dyn_cast<scf::ForallOp>(alloc->getParentOp());
        if (!forall || !isUnitStrideFromZero(forall, trips))
          return;
      }
      Buffer b;
      b.alloc = alloc;
      int64_t bits = type.getElementTypeBitWidth();
      b.bytes = std::max<int64_t>(
          1, (type.getNumElements() * std::max<int64_t>(bits, 8) + 7) / 8);
      if (top != alloc.getOperation()) {
        b.slotBytes = llvm::alignTo(b.bytes, alignment);
        b.bytes = b.slotBytes * trips;
      }
      b.start = index[top];
      b.end = std::max(b.start, lastUse(alloc, block, index));
      buffers.push_back(b);
    });

    // Best fit, largest first: place each buffer at the lowest aligned
    // offset that does not collide with a placed buffer alive at the same
    // time.
    std::vector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    llvm::stable_sort(order,
                      [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
    int64_t arena = 0;
    std::vector<Buffer *> placed;
    for (Buffer *b : order) {
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (Buffer *p : placed)
        if (p->start <= b->end && b->start <= p->end)
          busy.push_back({p->offset, p->offset + p->bytes});
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + b->bytes <= lo)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(hi, alignment));
      }
      b->offset = offset;
      arena = std::max(arena, offset + b->bytes);
      placed.push_back(b);
    }
    // The lower bound: the most bytes alive at any one op.
    int64_t lowerBound = 0;
    for (int64_t t = 0, n = block.getOperations().size(); t < n; ++t) {
      int64_t live = 0;
      for (const Buffer &b : buffers)
        if (b.start <= t && t <= b.end)
          live += b.bytes;
      lowerBound = std::max(lowerBound, live);
    }
    arena = (int64_t)llvm::alignTo(arena, alignment);

    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    module->setAttr(kArenaBytesAttr, builder.getI64IntegerAttr(arena));
    module->setAttr(kArenaLowerBoundAttr,
                    builder.getI64IntegerAttr(lowerBound));
    auto arenaType =
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
    unsigned argIndex = fn.getNumArguments();
    if (failed(fn.insertArgument(
            argIndex, arenaType,
            builder.getDictionaryAttr(
                {builder.getNamedAttr("kiln.name",
                                      builder.getStringAttr("arena")),
                 builder.getNamedAttr("kiln.arena", builder.getUnitAttr())}),
            fn.getLoc())))
      return signalPassFailure();
    Value arenaArg = fn.getArgument(argIndex);
    for (Buffer &b : buffers) {
      builder.setInsertionPoint(b.alloc);
      Location loc = b.alloc.getLoc();
      Value offset = arith::ConstantIndexOp::create(builder, loc, b.offset);
      if (b.slotBytes) {
        auto forall = cast<scf::ForallOp>(b.alloc->getParentOp());
        Value slot = linearIndex(builder, loc, forall);
        Value slotBytes =
            arith::ConstantIndexOp::create(builder, loc, b.slotBytes);
        offset = arith::AddIOp::create(
            builder, loc, offset,
            arith::MulIOp::create(builder, loc, slot, slotBytes));
      }
      Value view = memref::ViewOp::create(builder, loc, b.alloc.getType(),
                                          arenaArg, offset, ValueRange{});
      // Buffers in the arena are never freed individually.
      for (Operation *user : llvm::make_early_inc_range(b.alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      b.alloc.replaceAllUsesWith(view);
      b.alloc.erase();
    }
  }
};

} // namespace
} // namespace kiln
