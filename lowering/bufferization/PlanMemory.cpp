//===- PlanMemory.cpp - Static arena placement of intermediate buffers ----===//

#include "lowering/bufferization/Passes.h"
#include "lowering/bufferization/SymbolicSizes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  // Dynamically shaped buffers: `bytes` and `offset` above are those of a
  // representative size (every dynamic argument dim kRepresentativeExtent),
  // which orders them; the real ones are computed on entry.
  Value dynamicBytes, dynamicOffset;
};

constexpr int64_t kRepresentativeExtent = 64;

/// Best fit, largest first: places each buffer at the lowest aligned offset
/// at or above `base` that does not collide with a placed buffer alive at
/// the same time. Returns the end of the highest one.
static int64_t placeBestFit(std::vector<Buffer> &buffers, int64_t base,
                            int64_t alignment) {
  std::vector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order,
                    [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  int64_t arena = base;
  std::vector<Buffer *> placed;
  for (Buffer *b : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (p->start <= b->end && b->start <= p->end)
        busy.push_back({p->offset, p->offset + p->bytes});
    llvm::sort(busy);
    int64_t offset = base;
    for (auto [lo, hi] : busy) {
      if (offset + b->bytes <= lo)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(hi, alignment));
    }
    b->offset = offset;
    arena = std::max(arena, offset + b->bytes);
    placed.push_back(b);
  }
  return arena;
}

/// Whether `alloc` lies in sequential loops and branches below `top` only:
/// one iteration at a time uses it, so one slot serves them all.
static bool inSequentialCode(memref::AllocOp alloc, Operation *top) {
  for (Operation *p = alloc->getParentOp(); p; p = p->getParentOp()) {
    if (!isa<scf::ForOp, scf::IfOp>(p))
      return false;
    if (p == top)
      return true;
  }
  return false;
}

/// Calls `visit` on each user of `root` and of the memrefs derived from it
/// (views, casts, reshapes) until it returns true; returns whether it did.
static bool anyDerivedUser(Value root,
                           llvm::function_ref<bool(Operation *)> visit) {
  SmallVector<Value> worklist{root};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      if (visit(user))
        return true;
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()))
          worklist.push_back(r);
    }
  }
  return false;
}

/// Whether `root` or a view of it reaches a `func.return` (a run-time output
/// the caller frees), or, with `acrossIterations`, leaves the loop iteration
/// or branch it was made in.
static bool escapes(Value root, bool acrossIterations = false) {
  return anyDerivedUser(root, [&](Operation *user) {
    return isa<func::ReturnOp>(user) ||
           (acrossIterations && isa<scf::YieldOp, scf::ConditionOp, scf::ForOp,
                                    scf::WhileOp, scf::ForallOp>(user));
  });
}

/// Index of the last top-level op in `block` that uses `root` or a memref
/// derived from it.
static int64_t lastUse(Value root, Block &block,
                       const DenseMap<Operation *, int64_t> &index) {
  int64_t last = 0;
  anyDerivedUser(root, [&](Operation *user) {
    if (Operation *top = block.findAncestorOpInBlock(*user))
      last = std::max(last, index.lookup(top));
    return false;
  });
  return last;
}

/// Index of the first top-level op in `block` that uses `root` or a memref
/// derived from it.
static int64_t firstUse(Value root, Block &block,
                        const DenseMap<Operation *, int64_t> &index) {
  int64_t first = std::numeric_limits<int64_t>::max();
  anyDerivedUser(root, [&](Operation *user) {
    if (Operation *top = block.findAncestorOpInBlock(*user))
      if (!isa<memref::SubViewOp, memref::CollapseShapeOp,
               memref::ExpandShapeOp, memref::CastOp>(top))
        first = std::min(first, index.lookup(top));
    return false;
  });
  return first;
}

/// The buffer under `v`'s views and reshapes.
static Value rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Where the life of `alloc`, first used by top-level op `first`, starts.
/// A buffer that an elementwise op writes first, reading what the product
/// (or convolution) right before it wrote, starts at that product (and its
/// initializer): the product's register tiles may compute the elementwise
/// op (ContractionEpilogue.cpp, VectorizeDepthwiseConv.cpp) and write the
/// buffer while the product still reads its operands.
static int64_t startOf(memref::AllocOp alloc, int64_t first,
                       ArrayRef<Operation *> ops) {
  auto gen = dyn_cast<linalg::GenericOp>(ops[first]);
  if (!gen || gen.getNumParallelLoops() != gen.getNumLoops() ||
      gen.getNumDpsInits() != 1 ||
      rootBuffer(gen.getDpsInits()[0]) != alloc.getResult())
    return first;
  auto writtenBy = [&](int64_t i, Value buffer) {
    auto op = dyn_cast<linalg::LinalgOp>(ops[i]);
    return op && op.hasPureBufferSemantics() && op.getNumDpsInits() == 1 &&
           rootBuffer(op.getDpsInits()[0]) == buffer;
  };
  auto previous = [&](int64_t i) {
    // Views, constants, and the allocs and deallocs that bufferization
    // put between the ops.
    while (--i >= 0 && (isMemoryEffectFree(ops[i]) ||
                        isa<memref::AllocOp, memref::DeallocOp>(ops[i])))
      ;
    return i;
  };
  int64_t product = previous(first);
  // Only f32 products: the integer and packed ones (DotKernel.cpp) fuse
  // their epilogues by rules of their own, and an i8 1x1 convolution
  // (AArch64, sdot) gave wrong results with its output placed so.
  auto linalgOp =
      product < 0 ? nullptr : dyn_cast<linalg::LinalgOp>(ops[product]);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      !getElementTypeOrSelf(linalgOp.getDpsInits()[0]).isF32() ||
      !(linalg::isaContractionOpInterface(linalgOp) ||
        linalg::isaConvolutionOpInterface(linalgOp)) ||
      !llvm::any_of(gen.getDpsInputs(), [&](Value in) {
        return writtenBy(product, rootBuffer(in));
      }))
    return first;
  Value c = rootBuffer(linalgOp.getDpsInits()[0]);
  int64_t init = previous(product);
  return init >= 0 && writtenBy(init, c) ? init : product;
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

  /// Places the dynamically shaped buffers above the static ones. Their
  /// sizes are computed on entry; a plan at representative sizes orders
  /// them, and on entry each one starts above the end of every buffer it
  /// lives beside that the representative plan put below it. That holds for
  /// any sizes (the order is total among buffers alive together) and equals
  /// the representative plan at its sizes. The arena's size becomes a
  /// function of the entry's arguments, `kArenaBytesFunction`.
  void planDynamicBuffers(ModuleOp module, func::FuncOp fn,
                          std::vector<Buffer> &dynamic, int64_t staticArena) {
    Block &block = fn.getBody().front();
    Operation *firstOld = &block.front();
    OpBuilder b = OpBuilder::atBlockBegin(&block);
    Location loc = fn.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    IRMapping map;
    for (Buffer &d : dynamic) {
      MemRefType type = d.alloc.getType();
      int64_t bits = type.getElementTypeBitWidth();
      int64_t bytes = (std::max<int64_t>(bits, 8) + 7) / 8;
      for (int64_t extent : type.getShape())
        if (!ShapedType::isDynamic(extent))
          bytes *= extent;
      Value size = index(bytes);
      for (Value extent : d.alloc.getDynamicSizes())
        size = arith::MulIOp::create(b, loc, size,
                                     cloneComputation(b, extent, map));
      std::optional<int64_t> rep =
          evaluateWithExtent(size, kRepresentativeExtent);
      d.bytes = rep && *rep >= 0 ? llvm::alignTo(*rep, alignment) : 1 << 20;
      d.dynamicBytes = arith::AndIOp::create(
          b, loc, arith::AddIOp::create(b, loc, size, index(alignment - 1)),
          index(-alignment));
    }
    placeBestFit(dynamic, staticArena, alignment);
    SmallVector<Buffer *> order;
    for (Buffer &d : dynamic)
      order.push_back(&d);
    llvm::stable_sort(
        order, [](Buffer *x, Buffer *y) { return x->offset < y->offset; });
    Value total = index(staticArena);
    for (auto [k, d] : llvm::enumerate(order)) {
      Value offset = index(staticArena);
      for (Buffer *p : ArrayRef(order).take_front(k))
        if (p->start <= d->end && d->start <= p->end)
          offset = arith::MaxUIOp::create(
              b, loc, offset,
              arith::AddIOp::create(b, loc, p->dynamicOffset, p->dynamicBytes));
      d->dynamicOffset = offset;
      total = arith::MaxUIOp::create(
          b, loc, total,
          arith::AddIOp::create(b, loc, offset, d->dynamicBytes));
    }

    // The same computation as a function of the entry's arguments, which
    // the runtime calls before a run to size the arena.
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto sizeFn = func::FuncOp::create(mb, loc, kArenaBytesFunction,
                                       FunctionType::get(&getContext(),
                                                         fn.getArgumentTypes(),
                                                         {b.getIndexType()}));
    Block *body = sizeFn.addEntryBlock();
    IRMapping args;
    args.map(fn.getArguments(), body->getArguments());
    OpBuilder fb = OpBuilder::atBlockBegin(body);
    for (Operation &op :
         llvm::make_range(block.begin(), firstOld->getIterator()))
      fb.clone(op, args);
    func::ReturnOp::create(fb, loc, args.lookup(total));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>("kiln_entry");
    if (!fn || fn.isExternal())
      return;
    Block &block = fn.getBody().front();
    DenseMap<Operation *, int64_t> index;
    SmallVector<Operation *> ops;
    for (auto [i, op] : llvm::enumerate(block)) {
      index[&op] = i;
      ops.push_back(&op);
    }

    std::vector<Buffer> buffers, dynamicBuffers;
    DenseMap<Value, bool> computable;
    fn.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat())
        return;
      Operation *top = block.findAncestorOpInBlock(*alloc);
      if (!top)
        return;
      if (!type.hasStaticShape()) {
        if (symbolicSizes && top == alloc.getOperation() &&
            llvm::all_of(alloc.getDynamicSizes(),
                         [&](Value v) {
                           return isComputableOnEntry(v, fn, computable);
                         }) &&
            !escapes(alloc)) {
          Buffer b;
          b.alloc = alloc;
          b.start = index[top];
          b.end = std::max(b.start, lastUse(alloc, block, index));
          dynamicBuffers.push_back(b);
        }
        return;
      }
      int64_t trips = 1;
      bool perIteration = false;
      if (top != alloc.getOperation()) {
        auto forall = dyn_cast<scf::ForallOp>(alloc->getParentOp());
        if (forall && isUnitStrideFromZero(forall, trips))
          perIteration = true;
        else if (!inSequentialCode(alloc, top) || escapes(alloc, true))
          return;
      }
      Buffer b;
      b.alloc = alloc;
      int64_t bits = type.getElementTypeBitWidth();
      b.bytes = std::max<int64_t>(
          1, (type.getNumElements() * std::max<int64_t>(bits, 8) + 7) / 8);
      if (perIteration) {
        b.slotBytes = llvm::alignTo(b.bytes, alignment);
        b.bytes = b.slotBytes * trips;
      }
      b.start = index[top];
      if (top == alloc.getOperation()) {
        // From the first use: an allocation may be placed early (a concat's
        // destination is made at the function's start, DataMovement.cpp).
        int64_t first = firstUse(alloc, block, index);
        if (first < int64_t(ops.size()))
          b.start = startOf(alloc, first, ops);
      }
      b.end = std::max(b.start, lastUse(alloc, block, index));
      buffers.push_back(b);
    });

    int64_t arena = placeBestFit(buffers, 0, alignment);
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
    if (!dynamicBuffers.empty())
      planDynamicBuffers(module, fn, dynamicBuffers, arena);
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
    buffers.insert(buffers.end(), dynamicBuffers.begin(), dynamicBuffers.end());
    for (Buffer &b : buffers) {
      builder.setInsertionPoint(b.alloc);
      Location loc = b.alloc.getLoc();
      Value offset =
          b.dynamicOffset
              ? b.dynamicOffset
              : arith::ConstantIndexOp::create(builder, loc, b.offset);
      if (b.slotBytes) {
        auto forall = cast<scf::ForallOp>(b.alloc->getParentOp());
        Value slot = linearIndex(builder, loc, forall);
        Value slotBytes =
            arith::ConstantIndexOp::create(builder, loc, b.slotBytes);
        offset = arith::AddIOp::create(
            builder, loc, offset,
            arith::MulIOp::create(builder, loc, slot, slotBytes));
      }
      auto view =
          memref::ViewOp::create(builder, loc, b.alloc.getType(), arenaArg,
                                 offset, b.alloc.getDynamicSizes());
      if (b.slotBytes && !b.dynamicOffset)
        view->setAttr(kArenaRangeAttr, builder.getDenseI64ArrayAttr(
                                           {b.offset, b.offset + b.bytes}));
      // Buffers in the arena are never freed individually.
      for (Operation *user : llvm::make_early_inc_range(b.alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      b.alloc.replaceAllUsesWith(view.getResult());
      b.alloc.erase();
    }
  }
};

} // namespace
} // namespace kiln
