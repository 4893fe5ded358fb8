//===- DeviceMemory.cpp - Every buffer of the entry in device memory ------===//
//
// The model's run function gets host buffers from kiln_run and its kernels
// read device memory, so the host side allocates device buffers, copies the
// inputs in and the outputs back, and reads weights through their device
// copies. Weights are uploaded by the launcher (kiln_gpu_constant_*), which
// keeps one copy per context: a weight crosses the bus once, not per run.
//
//===----------------------------------------------------------------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_DEVICEMEMORY
#include "lowering/gpu/Passes.h.inc"

namespace {

/// True when `op` runs on the device: inside a loop nest that becomes a
/// kernel (kiln-gpu-map-to-gpu) or a launch already.
static bool isInKernel(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() ||
         op->getParentOfType<gpu::LaunchOp>();
}

static Value allocLike(OpBuilder &b, Location loc, MemRefType type,
                       ValueRange dynamicSizes) {
  auto plain = MemRefType::get(type.getShape(), type.getElementType());
  return gpu::AllocOp::create(b, loc, plain, Type(), ValueRange(), dynamicSizes,
                              ValueRange(), false)
      .getMemref();
}

/// Name suffix of an element type in the upload function's name.
static std::string typeSuffix(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return s;
}

struct DeviceMemoryPass : impl::DeviceMemoryBase<DeviceMemoryPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(moveArguments(func)) || failed(moveAllocations(func)) ||
        failed(uploadConstants(func)))
      signalPassFailure();
  }

  LogicalResult moveArguments(func::FuncOp func) {
    Block &entry = func.front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    SmallVector<std::pair<Value, Value>> outputs; // host, device
    SmallVector<Value> copies;
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        continue;
      if (!type.getLayout().isIdentity())
        return func.emitError("entry argument with a non-identity layout");
      SmallVector<Value> sizes;
      SmallPtrSet<Operation *, 4> dims;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        auto dim = memref::DimOp::create(b, loc, arg, d);
        dims.insert(dim);
        sizes.push_back(dim);
      }
      Value device = allocLike(b, loc, type, sizes);
      bool input = func.getArgAttr(arg.getArgNumber(), kCopyInAttr) != nullptr;
      arg.replaceUsesWithIf(device, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        // The host reads scalars of inputs (a run-time axis, sequence
        // lengths) from the caller's buffer, which nothing writes.
        if (input && isa<memref::LoadOp>(user) && !isInKernel(user))
          return false;
        return !dims.contains(user);
      });
      copies.push_back(device);
      // The arena (kiln-plan-memory) is scratch: device memory of the
      // plan's size, copied neither way.
      if (input)
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), device, arg);
      else if (!func.getArgAttr(arg.getArgNumber(), "kiln.arena"))
        outputs.emplace_back(arg, device);
    }
    func.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      for (auto [host, device] : outputs)
        gpu::MemcpyOp::create(rb, loc, Type(), ValueRange(), host, device);
      for (Value device : copies)
        gpu::DeallocOp::create(rb, loc, Type(), ValueRange(), device);
    });
    return success();
  }

  LogicalResult moveAllocations(func::FuncOp func) {
    SmallVector<Operation *> allocs, deallocs;
    func.walk([&](Operation *op) {
      if (isInKernel(op))
        return;
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        allocs.push_back(op);
      else if (isa<memref::DeallocOp>(op))
        deallocs.push_back(op);
    });
    for (Operation *op : allocs) {
      OpBuilder b(op);
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!type.getLayout().isIdentity())
        return op->emitError("buffer with a non-identity layout");
      Value device = allocLike(b, op->getLoc(), type, op->getOperands());
      if (device.getType() != type)
        return op->emitError("buffer in a non-default memory space");
      op->getResult(0).replaceAllUsesWith(device);
      // A stack buffer lives until its block ends.
      if (isa<memref::AllocaOp>(op)) {
        b.setInsertionPoint(op->getBlock()->getTerminator());
        gpu::DeallocOp::create(b, op->getLoc(), Type(), ValueRange(), device);
      }
      op->erase();
    }
    for (Operation *op : deallocs) {
      OpBuilder b(op);
      gpu::DeallocOp::create(b, op->getLoc(), Type(), ValueRange(),
                             op->getOperand(0));
      op->erase();
    }
    return success();
  }

  /// Declares `kiln_gpu_constant_<type>(memref<?xT>, i64 elementBytes) ->
  /// memref<?xT>` with the C interface (descriptors by pointer).
  func::FuncOp getUploadFunction(ModuleOp module, Type elementType) {
    std::string name = kConstantUploadPrefix + typeSuffix(elementType);
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    auto flat = MemRefType::get({ShapedType::kDynamic}, elementType);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto type = b.getFunctionType({flat, b.getI64Type()}, {flat});
    auto f = func::FuncOp::create(b, module.getLoc(), name, type);
    f.setPrivate();
    f->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    return f;
  }

  LogicalResult uploadConstants(func::FuncOp func) {
    auto module = func->getParentOfType<ModuleOp>();
    SmallVector<memref::GetGlobalOp> gets;
    func.walk([&](memref::GetGlobalOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        gets.push_back(op);
    });
    llvm::DenseMap<Attribute, Value> uploaded;
    OpBuilder b = OpBuilder::atBlockBegin(&func.front());
    for (memref::GetGlobalOp get : gets) {
      Value &device = uploaded[get.getNameAttr()];
      auto type = cast<MemRefType>(get.getType());
      if (!device) {
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          return get.emitError("weight without a static dense shape");
        Location loc = get.getLoc();
        Value host = memref::GetGlobalOp::create(b, loc, type, get.getName());
        int64_t n = type.getNumElements();
        auto flat = MemRefType::get({n}, type.getElementType());
        Value h1 =
            memref::ReinterpretCastOp::create(b, loc, flat, host, 0, {n}, {1});
        auto dyn =
            MemRefType::get({ShapedType::kDynamic}, type.getElementType());
        Value hd = memref::CastOp::create(b, loc, dyn, h1);
        unsigned bits = type.getElementTypeBitWidth();
        Value bytes = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                                   std::max(1u, bits / 8));
        auto call = func::CallOp::create(
            b, loc, getUploadFunction(module, type.getElementType()),
            ValueRange{hd, bytes});
        Value d1 = memref::CastOp::create(b, loc, flat, call.getResult(0));
        SmallVector<int64_t> strides;
        int64_t stride = 1;
        strides.resize(type.getRank());
        for (int64_t d = type.getRank() - 1; d >= 0; --d) {
          strides[d] = stride;
          stride *= type.getDimSize(d);
        }
        device = memref::ReinterpretCastOp::create(b, loc, type, d1, 0,
                                                   type.getShape(), strides);
      }
      get.getResult().replaceAllUsesWith(device);
      get.erase();
    }
    return success();
  }
};

} // namespace
} // namespace kiln
