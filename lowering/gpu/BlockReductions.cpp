//===- BlockReductions.cpp - One block per reduced output element ---------===//

#include "lowering/gpu/Combiners.h"
#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_BLOCKREDUCTIONS
#include "lowering/gpu/Passes.h.inc"

using gpu::AllReduceOperation;

std::optional<AllReduceOperation> getAllReduceOperation(Operation *op) {
  if (!op)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<AllReduceOperation>>(op)
      .Case<arith::AddFOp, arith::AddIOp>(
          [](auto) { return AllReduceOperation::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>(
          [](auto) { return AllReduceOperation::MUL; })
      .Case([](arith::MaximumFOp) { return AllReduceOperation::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return AllReduceOperation::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return AllReduceOperation::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return AllReduceOperation::MINNUMF; })
      .Case([](arith::MaxSIOp) { return AllReduceOperation::MAXSI; })
      .Case([](arith::MinSIOp) { return AllReduceOperation::MINSI; })
      .Case([](arith::MaxUIOp) { return AllReduceOperation::MAXUI; })
      .Case([](arith::MinUIOp) { return AllReduceOperation::MINUI; })
      .Case([](arith::AndIOp) { return AllReduceOperation::AND; })
      .Case([](arith::OrIOp) { return AllReduceOperation::OR; })
      .Case([](arith::XOrIOp) { return AllReduceOperation::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

Value buildReductionIdentity(OpBuilder &b, Location loc, AllReduceOperation op,
                             Type type) {
  bool isFloat = isa<FloatType>(type);
  arith::AtomicRMWKind kind;
  switch (op) {
  case AllReduceOperation::ADD:
    kind = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case AllReduceOperation::MUL:
    kind = isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
    break;
  case AllReduceOperation::MAXIMUMF:
    kind = arith::AtomicRMWKind::maximumf;
    break;
  case AllReduceOperation::MINIMUMF:
    kind = arith::AtomicRMWKind::minimumf;
    break;
  case AllReduceOperation::MAXNUMF:
    kind = arith::AtomicRMWKind::maxnumf;
    break;
  case AllReduceOperation::MINNUMF:
    kind = arith::AtomicRMWKind::minnumf;
    break;
  case AllReduceOperation::MAXSI:
    kind = arith::AtomicRMWKind::maxs;
    break;
  case AllReduceOperation::MINSI:
    kind = arith::AtomicRMWKind::mins;
    break;
  case AllReduceOperation::MAXUI:
    kind = arith::AtomicRMWKind::maxu;
    break;
  case AllReduceOperation::MINUI:
    kind = arith::AtomicRMWKind::minu;
    break;
  case AllReduceOperation::AND:
    kind = arith::AtomicRMWKind::andi;
    break;
  case AllReduceOperation::OR:
    kind = arith::AtomicRMWKind::ori;
    break;
  case AllReduceOperation::XOR:
    kind = arith::AtomicRMWKind::xori;
    break;
  }
  return arith::getIdentityValue(kind, type, b, loc);
}

Value buildCombine(OpBuilder &b, Location loc, AllReduceOperation op, Value x,
                   Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (op) {
  case AllReduceOperation::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case AllReduceOperation::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case AllReduceOperation::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, x, y);
  case AllReduceOperation::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, x, y);
  case AllReduceOperation::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, x, y);
  case AllReduceOperation::MINNUMF:
    return arith::MinNumFOp::create(b, loc, x, y);
  case AllReduceOperation::MAXSI:
    return arith::MaxSIOp::create(b, loc, x, y);
  case AllReduceOperation::MINSI:
    return arith::MinSIOp::create(b, loc, x, y);
  case AllReduceOperation::MAXUI:
    return arith::MaxUIOp::create(b, loc, x, y);
  case AllReduceOperation::MINUI:
    return arith::MinUIOp::create(b, loc, x, y);
  case AllReduceOperation::AND:
    return arith::AndIOp::create(b, loc, x, y);
  case AllReduceOperation::OR:
    return arith::OrIOp::create(b, loc, x, y);
  case AllReduceOperation::XOR:
    return arith::XOrIOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown reduction");
}

namespace {

/// The indices `map` gives for the loop indices `ivs`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange ivs) {
  SmallVector<Value> out;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    out.push_back(
        affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), ivs));
  return out;
}

struct BlockReductionsPass : impl::BlockReductionsBase<BlockReductionsPass> {
  using BlockReductionsBase::BlockReductionsBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops)
      rewrite(op);
  }

  void rewrite(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 1 || !op.getBlock())
      return;
    // Products and convolutions keep one thread per output: neighbouring
    // threads then read neighbouring columns.
    if (linalg::isaContractionOpInterface(op) ||
        linalg::isaConvolutionOpInterface(op))
      return;
    Block &body = *op.getBlock();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    BlockArgument out = body.getArgument(op.getNumDpsInputs());
    Operation *combiner = yield.getOperand(0).getDefiningOp();
    std::optional<AllReduceOperation> kind = getAllReduceOperation(combiner);
    if (!kind || combiner->getNumOperands() != 2 || !out.hasOneUse() ||
        out.getUses().begin()->getOwner() != combiner)
      return;
    Value x = combiner->getOperand(0) == out ? combiner->getOperand(1)
                                             : combiner->getOperand(0);
    if (body.walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    int64_t red =
        llvm::find(iters, utils::IteratorType::reduction) - iters.begin();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (!ShapedType::isDynamic(ranges[red]) && ranges[red] < minExtent)
      return;

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(bb, loc, v);
    };
    // Loop extents (linalg loops start at 0 with step 1).
    SmallVector<Value> sizes;
    for (Range r : op.createLoopRanges(b, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    Value outputs = cst(b, 1);
    for (auto [i, s] : llvm::enumerate(sizes))
      if ((int64_t)i != red)
        outputs = arith::MulIOp::create(b, loc, outputs, s);
    int64_t threads = 256;
    if (!ShapedType::isDynamic(ranges[red]))
      threads = std::clamp<int64_t>(llvm::alignTo(ranges[red], 32), 32, 256);
    Value one = cst(b, 1);
    auto launch = gpu::LaunchOp::create(b, loc, outputs, one, one,
                                        cst(b, threads), one, one);
    Block &kbody = launch.getBody().front();
    OpBuilder kb = OpBuilder::atBlockBegin(&kbody);
    auto terminator = gpu::TerminatorOp::create(kb, loc);
    kb.setInsertionPoint(terminator);

    // This block's output element: its parallel indices.
    SmallVector<Value> ivs(sizes.size());
    Value rest = launch.getBlockIds().x;
    for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
      if (i == red)
        continue;
      ivs[i] = arith::RemUIOp::create(kb, loc, rest, sizes[i]);
      rest = arith::DivUIOp::create(kb, loc, rest, sizes[i]);
    }
    Value tid = launch.getThreadIds().x;
    Type type = x.getType();
    Value identity = buildReductionIdentity(kb, loc, *kind, type);
    auto loop = scf::ForOp::create(
        kb, loc, tid, sizes[red], cst(kb, threads), ValueRange{identity},
        [&](OpBuilder &lb, Location, Value k, ValueRange acc) {
          SmallVector<Value> at = ivs;
          at[red] = k;
          IRMapping map;
          for (OpOperand *in : op.getDpsInputOperands()) {
            Value v = in->get();
            BlockArgument arg = body.getArgument(in->getOperandNumber());
            if (!isa<MemRefType>(v.getType())) {
              map.map(arg, v);
              continue;
            }
            map.map(arg,
                    memref::LoadOp::create(
                        lb, loc, v,
                        applyMap(lb, loc, op.getMatchingIndexingMap(in), at)));
          }
          for (Operation &inner : body.without_terminator())
            if (&inner != combiner)
              lb.clone(inner, map);
          Value next =
              buildCombine(lb, loc, *kind, acc[0], map.lookupOrDefault(x));
          scf::YieldOp::create(lb, loc, next);
        });
    auto total = gpu::AllReduceOp::create(
        kb, loc, loop.getResult(0),
        gpu::AllReduceOperationAttr::get(&getContext(), *kind), true);
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid,
                                        cst(kb, 0));
    auto guard = scf::IfOp::create(kb, loc, first, false);
    OpBuilder sb = guard.getThenBodyBuilder();
    SmallVector<Value> at = ivs;
    at[red] = cst(sb, 0);
    OpOperand *init = op.getDpsInitOperand(0);
    SmallVector<Value> idx =
        applyMap(sb, loc, op.getMatchingIndexingMap(init), at);
    Value prior = memref::LoadOp::create(sb, loc, init->get(), idx);
    Value result = buildCombine(sb, loc, *kind, prior, total.getResult());
    memref::StoreOp::create(sb, loc, result, init->get(), idx);
    op->erase();
  }
};

} // namespace
} // namespace kiln
