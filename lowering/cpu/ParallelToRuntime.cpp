//===- ParallelToRuntime.cpp - scf.forall on the kiln_rt thread pool ------===//
//
//   scf.forall (%i, %j) in (%a, %b) { body(%i, %j, captured...) }
// becomes
//   %data = llvm.alloca !llvm.struct<(captured...)>   (entry block)
//   llvm.store captured... -> %data
//   if (&kiln_rt_parallel_for != null)
//     kiln_rt_parallel_for(a * b, @f_par0, %data)
//   else
//     @f_par0(0, a * b, %data)
//   func.func private @f_par0(%begin: i64, %end: i64, %data: !llvm.ptr) {
//     loads, then scf.for %l = begin to end { %i, %j = delinearize(%l); body }
//   }
//
// Serial loop nests at the top of a function are outlined the same way
// (@f_ser0, called directly and marked no_inline), so that no function
// holds the whole model when LLVM code generation splits the module by
// function across threads.
//
// With mark-kernels, each call site is marked `kiln.kernel = "<outlined
// function>"`, for kiln-cpu-instrument-profile.
//
// The runtime symbol is an extern_weak reference, so a model loaded where
// kiln_rt's symbols are not global still runs, serially. Memrefs cross the
// struct as their LLVM descriptors through unrealized casts that
// finalize-memref-to-llvm and reconcile-unrealized-casts fold away.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Schedule.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_PARALLELTORUNTIME
#include "lowering/cpu/Passes.h.inc"

namespace {

/// Whether a captured memref crosses the struct as its two pointers alone
/// (allocated and aligned: a loop body may free what it captured): its
/// shape, strides and offset are in its type, so the body rebuilds the rest
/// of the descriptor from constants. A rank-4 descriptor is 11 stores at
/// the call site, and DenseNet-121's model function (1300 call sites) is the
/// last of its functions to finish compiling.
bool crossesAsPointer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getMemorySpace())
    return false;
  int64_t offset;
  SmallVector<int64_t> strides;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// The {allocated, aligned} pointer pair a static memref crosses as.
Type pointerPairType(MLIRContext *ctx) {
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  return LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr});
}

/// `into` with fields 0 and 1 (the allocated and aligned pointers) of the
/// struct `from`.
Value copyPointers(OpBuilder &b, Location loc, Value from, Value into) {
  for (int64_t i : {0, 1})
    into = LLVM::InsertValueOp::create(
        b, loc, into,
        LLVM::ExtractValueOp::create(b, loc, from, ArrayRef<int64_t>{i}),
        ArrayRef<int64_t>{i});
  return into;
}

/// The descriptor of a static memref from its pointer pair `pointers`.
Value rebuildDescriptor(OpBuilder &b, Location loc, Value pointers,
                        MemRefType type, const LLVMTypeConverter &converter) {
  Type descType = converter.convertType(type);
  auto i64 = b.getI64Type();
  int64_t offset;
  SmallVector<int64_t> strides;
  (void)type.getStridesAndOffset(strides, offset);
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, v);
  };
  Value d =
      copyPointers(b, loc, pointers, LLVM::PoisonOp::create(b, loc, descType));
  d = LLVM::InsertValueOp::create(b, loc, d, constant(offset),
                                  ArrayRef<int64_t>{2});
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    int64_t at = static_cast<int64_t>(i);
    d = LLVM::InsertValueOp::create(b, loc, d, constant(size),
                                    ArrayRef<int64_t>{3, at});
    d = LLVM::InsertValueOp::create(b, loc, d, constant(strides[i]),
                                    ArrayRef<int64_t>{4, at});
  }
  return UnrealizedConversionCastOp::create(b, loc, type, d).getResult(0);
}

/// The LLVM type a captured value travels as, or null if unsupported.
Type fieldType(const LLVMTypeConverter &converter, Type type) {
  if (isa<IndexType>(type))
    return IntegerType::get(type.getContext(), 64);
  // Pointers: the argument blocks of loops outlined before, which live in
  // the caller's frame for the duration of the call.
  if (isa<IntegerType, FloatType, LLVM::LLVMPointerType>(type))
    return type;
  if (crossesAsPointer(type))
    return pointerPairType(type.getContext());
  if (auto memref = dyn_cast<MemRefType>(type)) {
    Type converted = converter.convertType(memref);
    return isa_and_nonnull<LLVM::LLVMStructType>(converted) ? converted
                                                            : Type();
  }
  return Type();
}

/// Converts `v` to its struct field representation.
Value toField(OpBuilder &b, Location loc, Value v, Type field,
              const LLVMTypeConverter &converter) {
  if (isa<IndexType>(v.getType()))
    return arith::IndexCastOp::create(b, loc, field, v);
  if (crossesAsPointer(v.getType())) {
    Type descType = converter.convertType(v.getType());
    Value desc =
        UnrealizedConversionCastOp::create(b, loc, descType, v).getResult(0);
    return copyPointers(b, loc, desc, LLVM::PoisonOp::create(b, loc, field));
  }
  if (isa<MemRefType>(v.getType()))
    return UnrealizedConversionCastOp::create(b, loc, field, v).getResult(0);
  return v;
}

/// Inverse of toField.
Value fromField(OpBuilder &b, Location loc, Value v, Type original,
                const LLVMTypeConverter &converter) {
  if (isa<IndexType>(original))
    return arith::IndexCastOp::create(b, loc, original, v);
  if (crossesAsPointer(original))
    return rebuildDescriptor(b, loc, v, cast<MemRefType>(original), converter);
  if (isa<MemRefType>(original))
    return UnrealizedConversionCastOp::create(b, loc, original, v).getResult(0);
  return v;
}

/// Trip count of each forall dim, as index values at `b`'s insertion point.
SmallVector<Value> tripCounts(OpBuilder &b, Location loc, scf::ForallOp forall,
                              IRMapping &map) {
  SmallVector<Value> counts;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    auto value = [&](OpFoldResult r) -> Value {
      if (auto v = dyn_cast<Value>(r))
        return map.lookupOrDefault(v);
      return arith::ConstantIndexOp::create(
          b, loc, cast<IntegerAttr>(cast<Attribute>(r)).getInt());
    };
    Value span = arith::SubIOp::create(b, loc, value(ub), value(lb));
    counts.push_back(arith::CeilDivSIOp::create(b, loc, span, value(step)));
  }
  return counts;
}

LLVM::LLVMFuncOp getOrDeclareRuntime(ModuleOp module) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(kParallelForSymbol))
    return fn;
  MLIRContext *ctx = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = LLVM::LLVMFuncOp::create(
      b, module.getLoc(), kParallelForSymbol,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {i64, ptr, ptr}),
      LLVM::Linkage::ExternWeak);
  return fn;
}

/// kiln_rt_parallel_for(n, body, data) when kiln_rt is loaded, else
/// body(0, n, data): one call per parallel loop. The check at each call site
/// let LLVM thread the branch over runs of calls, so the model function held
/// two copies of each run.
LLVM::LLVMFuncOp getOrDefineDispatch(ModuleOp module) {
  constexpr llvm::StringLiteral name = "kiln_parallel_dispatch";
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  LLVM::LLVMFuncOp runtime = getOrDeclareRuntime(module);
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = LLVM::LLVMFuncOp::create(
      b, loc, name, LLVM::LLVMFunctionType::get(voidType, {i64, ptr, ptr}),
      LLVM::Linkage::Internal);
  fn.setNoInline(true);
  Block *entry = fn.addEntryBlock(b);
  Block *parallel = fn.addBlock(), *serial = fn.addBlock();
  b.setInsertionPointToStart(entry);
  Value present =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                           LLVM::AddressOfOp::create(b, loc, runtime),
                           LLVM::ZeroOp::create(b, loc, ptr));
  LLVM::CondBrOp::create(b, loc, present, parallel, serial);
  b.setInsertionPointToStart(parallel);
  LLVM::CallOp::create(b, loc, runtime, entry->getArguments());
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  b.setInsertionPointToStart(serial);
  Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
  LLVM::CallOp::create(
      b, loc, LLVM::LLVMFunctionType::get(voidType, {i64, i64, ptr}),
      ValueRange{entry->getArgument(1), zero, entry->getArgument(0),
                 entry->getArgument(2)});
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return fn;
}

constexpr llvm::StringLiteral kSerialAttr = "kiln.serial";

/// Outlined bodies by a structural hash. A body the same as an earlier one
/// (the kernels of a network's repeated blocks: ViT's twelve layers, the
/// layers of a DenseNet block, a ResNet stage's blocks, all reading their
/// weights and buffers through the captured struct) is not emitted again:
/// its call sites call the earlier function, and LLVM compiles each body
/// once. The symbol then names the first node with that body.
class BodyTable {
public:
  /// `fn` itself, or an earlier function with the same body (then `fn` is
  /// erased).
  func::FuncOp unique(func::FuncOp fn) {
    llvm::hash_code hash = mlir::hash_value(Type(fn.getFunctionType()));
    fn.getBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(hash,
                                OperationEquivalence::computeHash(
                                    op, OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::IgnoreLocations));
    });
    SmallVector<func::FuncOp, 1> &bucket = bodies[size_t(hash)];
    for (func::FuncOp seen : bucket)
      if (seen.getFunctionType() == fn.getFunctionType() &&
          seen->hasAttr("no_inline") == fn->hasAttr("no_inline") &&
          OperationEquivalence::isRegionEquivalentTo(
              &seen.getBody(), &fn.getBody(),
              OperationEquivalence::IgnoreLocations)) {
        fn.erase();
        return seen;
      }
    bucket.push_back(fn);
    return fn;
  }

private:
  llvm::DenseMap<size_t, SmallVector<func::FuncOp, 1>> bodies;
};

LogicalResult outline(scf::ForallOp forall, const LLVMTypeConverter &converter,
                      unsigned index, bool markKernel, BodyTable *table) {
  bool serial = forall->hasAttr(kSerialAttr);
  if (!forall.getOutputs().empty())
    return failure();
  auto parent = forall->getParentOfType<func::FuncOp>();
  auto module = forall->getParentOfType<ModuleOp>();
  if (!parent || !module)
    return failure();
  MLIRContext *ctx = forall.getContext();
  Location loc = forall.getLoc();

  // Values the body and bounds use; constants are cloned instead.
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(forall.getRegion(), above);
  for (Value v : forall->getOperands())
    above.insert(v);
  SmallVector<Value> captured, constants;
  SmallVector<Type> fields;
  for (Value v : above) {
    Operation *def = v.getDefiningOp();
    if (def && def->getNumOperands() == 0 &&
        def->hasTrait<OpTrait::ConstantLike>()) {
      constants.push_back(v);
      continue;
    }
    Type field = fieldType(converter, v.getType());
    if (!field)
      return failure();
    captured.push_back(v);
    fields.push_back(field);
  }

  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto bodyType = FunctionType::get(ctx, {i64, i64, ptrType}, {});

  // The outlined body.
  OpBuilder mb(ctx);
  mb.setInsertionPointAfter(parent);
  // The ONNX node in the symbol, so that profilers name the slow layer:
  // kiln_entry_conv1_par3.
  std::string node = cpu::getNodeName(forall);
  for (char &c : node)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (node.size() > 48)
    node.resize(48);
  std::string name = (parent.getName() + (node.empty() ? "" : "_") + node +
                      (serial ? "_ser" : "_par") + llvm::Twine(index))
                         .str();
  auto fn = func::FuncOp::create(mb, loc, name, bodyType);
  fn.setPrivate();
  // A serial body has one direct call; inlined, it would be back where it
  // came from. (func-to-llvm drops `no_inline`, and LLVM inlines the small
  // bodies; LLVM's noinline through `passthrough` gave one QDQ model wrong
  // results on AArch64, not yet understood.)
  if (serial)
    fn->setAttr("no_inline", mb.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  IRMapping map;
  for (Value c : constants)
    map.map(c, b.clone(*c.getDefiningOp())
                   ->getResult(cast<OpResult>(c).getResultNumber()));
  Value data = entry->getArgument(2);
  for (auto [i, v] : llvm::enumerate(captured)) {
    Value gep =
        LLVM::GEPOp::create(b, loc, ptrType, structType, data,
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    Value field = LLVM::LoadOp::create(b, loc, fields[i], gep);
    map.map(v, fromField(b, loc, field, v.getType(), converter));
  }
  SmallVector<Value> counts = tripCounts(b, loc, forall, map);
  Type indexType = b.getIndexType();
  Value begin =
      arith::IndexCastOp::create(b, loc, indexType, entry->getArgument(0));
  Value end =
      arith::IndexCastOp::create(b, loc, indexType, entry->getArgument(1));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, begin, end, one);
  func::ReturnOp::create(b, loc);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    // Row-major delinearization: the last forall dim varies fastest, so a
    // thread's contiguous range walks neighbouring tiles.
    Value rest = loop.getInductionVar();
    SmallVector<Value> ivs(counts.size());
    for (int64_t d = counts.size() - 1; d >= 0; --d) {
      Value idx =
          d == 0 ? rest : arith::RemSIOp::create(lb, loc, rest, counts[d]);
      if (d > 0)
        rest = arith::DivSIOp::create(lb, loc, rest, counts[d]);
      ivs[d] = idx;
    }
    for (auto [d, lbv, step] :
         llvm::enumerate(forall.getMixedLowerBound(), forall.getMixedStep())) {
      auto value = [&](OpFoldResult r) -> Value {
        if (auto v = dyn_cast<Value>(r))
          return map.lookupOrDefault(v);
        return arith::ConstantIndexOp::create(
            lb, loc, cast<IntegerAttr>(cast<Attribute>(r)).getInt());
      };
      Value scaled = arith::MulIOp::create(lb, loc, ivs[d], value(step));
      map.map(forall.getInductionVar(d),
              arith::AddIOp::create(lb, loc, scaled, value(lbv)));
    }
    for (Operation &op : forall.getBody()->without_terminator()) {
      // Static scratch buffers (packed panels) are allocated once per call,
      // not once per iteration: an alloca in the loop would grow the stack.
      if (isa<memref::AllocaOp>(op) && op.getNumOperands() == 0) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop);
        b.clone(op, map);
        continue;
      }
      lb.clone(op, map);
    }
  }

  if (table)
    fn = table->unique(fn);

  // The call site.
  OpBuilder eb = OpBuilder::atBlockBegin(&parent.getBody().front());
  Value oneI64 = LLVM::ConstantOp::create(eb, loc, i64, 1);
  Value buffer = LLVM::AllocaOp::create(eb, loc, ptrType, structType, oneI64);
  OpBuilder cb(forall);
  for (auto [i, v] : llvm::enumerate(captured)) {
    Value gep =
        LLVM::GEPOp::create(cb, loc, ptrType, structType, buffer,
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    LLVM::StoreOp::create(cb, loc, toField(cb, loc, v, fields[i], converter),
                          gep);
  }
  IRMapping identity;
  if (serial) {
    Value zero = arith::ConstantIntOp::create(cb, loc, 0, 64);
    Value one = arith::ConstantIntOp::create(cb, loc, 1, 64);
    auto call =
        func::CallOp::create(cb, loc, fn, ValueRange{zero, one, buffer});
    if (markKernel)
      call->setAttr(kKernelAttr, fn.getSymNameAttr());
    forall.erase();
    return success();
  }
  Value total = arith::ConstantIndexOp::create(cb, loc, 1);
  for (Value c : tripCounts(cb, loc, forall, identity))
    total = arith::MulIOp::create(cb, loc, total, c);
  Value totalI64 = arith::IndexCastOp::create(cb, loc, i64, total);

  LLVM::LLVMFuncOp dispatch = getOrDefineDispatch(module);
  Value fnRef =
      func::ConstantOp::create(cb, loc, bodyType, SymbolRefAttr::get(fn));
  Value fnPtr =
      UnrealizedConversionCastOp::create(cb, loc, ptrType, fnRef).getResult(0);
  auto call = LLVM::CallOp::create(cb, loc, dispatch,
                                   ValueRange{totalI64, fnPtr, buffer});
  if (markKernel)
    call->setAttr(kKernelAttr, fn.getSymNameAttr());
  forall.erase();
  return success();
}

struct ParallelToRuntimePass
    : impl::ParallelToRuntimeBase<ParallelToRuntimePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    LLVMTypeConverter converter(&getContext());
    IRRewriter rewriter(&getContext());

    // Serial loop nests of the model function become functions of their
    // own too: LLVM code generation is split across threads by function,
    // and one large function compiles on one thread (see ObjectEmission).
    // Below a top-level scf.if or scf.for that yields buffers (a run-time
    // size convolution's tiles or its dynamic form, blocks of run-time
    // rows), the loop nests and ops of their bodies go the same way.
    SmallVector<Operation *> serial;
    std::function<void(Block &)> collect = [&](Block &block) {
      for (Operation &op : block) {
        if (isa<scf::ForOp, scf::IfOp, linalg::LinalgOp>(op) &&
            op.getNumResults() == 0)
          serial.push_back(&op);
        if (isa<scf::IfOp, scf::ForOp>(op) && op.getNumResults())
          for (Region &region : op.getRegions())
            for (Block &b : region)
              collect(b);
      }
    };
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        collect(func.getBody().front());
    for (Operation *op : serial) {
      rewriter.setInsertionPoint(op);
      auto wrapper = scf::ForallOp::create(
          rewriter, op->getLoc(),
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, ValueRange{},
          std::nullopt);
      wrapper->setAttr(kSerialAttr, rewriter.getUnitAttr());
      rewriter.moveOpBefore(op, wrapper.getBody()->getTerminator());
    }

    // Inner foralls run serially inside their outer parallel one; below
    // serial wrappers only they keep their threads (outlined first: the
    // walk visits nested ops before their parents).
    SmallVector<scf::ForallOp> inner, outer;
    module.walk([&](scf::ForallOp op) {
      bool underParallel = false;
      for (auto p = op->getParentOfType<scf::ForallOp>(); p;
           p = p->getParentOfType<scf::ForallOp>())
        underParallel |= !p->hasAttr(kSerialAttr);
      (underParallel ? inner : outer).push_back(op);
    });
    for (scf::ForallOp op : llvm::reverse(inner)) {
      rewriter.setInsertionPoint(op);
      if (failed(scf::forallToForLoop(rewriter, op)))
        return signalPassFailure();
    }
    // Profiled libraries keep a function per kernel, named for its node.
    BodyTable table;
    unsigned index = 0;
    for (scf::ForallOp op : outer) {
      if (succeeded(outline(op, converter, index, markKernels,
                            markKernels ? nullptr : &table))) {
        ++index;
        continue;
      }
      rewriter.setInsertionPoint(op);
      if (failed(scf::forallToForLoop(rewriter, op)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace kiln
