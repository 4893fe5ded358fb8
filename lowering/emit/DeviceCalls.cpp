//===- DeviceCalls.cpp - Launcher calls through a table kiln_rt fills -----===//
//
// The GPU lowering calls upstream's launcher ABI (mgpuLaunchKernel,
// mgpuMemAlloc, ...) and kiln's weight upload (kiln_gpu_constant_*, through
// the C interface). A model library must not need those symbols at dlopen
// time: kiln_rt may be loaded privately (Python's ctypes), and a library
// has to load, and say why it cannot run, on a machine without CUDA. So
// each such function becomes an internal stub that calls through a table
// slot, and the descriptor names the slots for kiln_rt to fill at load.
// The kernel modules' constructors (which would call the launcher at
// dlopen) run at the start of every run instead; the launcher caches
// what they load, per context.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/ModelLibrary.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace kiln {

/// The launcher name a declaration stands for, or "" when it is none.
static std::string launcherName(StringRef symbol) {
  if (symbol.starts_with("mgpu"))
    return symbol.str();
  if (symbol.starts_with("_mlir_ciface_kiln_gpu_constant_"))
    return "kiln_gpu_constant";
  return "";
}

/// Removes the constructors or destructors that call the launcher and
/// returns them.
static SmallVector<Function *> takeDeviceStructors(Module &m, StringRef list) {
  SmallVector<Function *> taken;
  GlobalVariable *gv = m.getGlobalVariable(list);
  if (!gv)
    return taken;
  auto callsLauncher = [](Function *f) {
    for (Instruction &inst : instructions(*f))
      if (auto *call = dyn_cast<CallBase>(&inst))
        if (Function *callee = call->getCalledFunction())
          if (!launcherName(callee->getName()).empty())
            return true;
    return false;
  };
  SmallVector<Constant *> kept;
  if (auto *array = dyn_cast<ConstantArray>(gv->getInitializer()))
    for (Value *op : array->operands()) {
      auto *entry = cast<ConstantStruct>(op);
      auto *f = dyn_cast<Function>(entry->getOperand(1));
      if (f && callsLauncher(f))
        taken.push_back(f);
      else
        kept.push_back(entry);
    }
  auto *elemTy = cast<ArrayType>(gv->getValueType())->getElementType();
  gv->eraseFromParent();
  if (!kept.empty()) {
    auto *ty = ArrayType::get(elemTy, kept.size());
    new GlobalVariable(m, ty, false, GlobalValue::AppendingLinkage,
                       ConstantArray::get(ty, kept), list);
  }
  return taken;
}

Error routeDeviceCalls(Module &m, StringRef entryName,
                       std::vector<std::string> &names) {
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::get(ctx, 0);
  SmallVector<Function *> stubs;
  for (Function &f : m.functions())
    if (f.isDeclaration() && !launcherName(f.getName()).empty())
      stubs.push_back(&f);
  names.clear();
  if (stubs.empty())
    return Error::success();

  SmallVector<Function *> loads = takeDeviceStructors(m, "llvm.global_ctors");
  for (Function *f : takeDeviceStructors(m, "llvm.global_dtors"))
    f->eraseFromParent(); // kiln_rt releases modules with their context

  auto *tableTy = ArrayType::get(ptrTy, stubs.size());
  auto *table = new GlobalVariable(
      m, tableTy, false, GlobalValue::InternalLinkage,
      ConstantAggregateZero::get(tableTy), kDeviceCallsSymbol);
  for (auto [i, f] : llvm::enumerate(stubs)) {
    names.push_back(launcherName(f->getName()));
    f->setLinkage(GlobalValue::InternalLinkage);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", f));
    Value *slot = b.CreateConstInBoundsGEP2_64(tableTy, table, 0, i);
    Value *target = b.CreateLoad(ptrTy, slot);
    SmallVector<Value *> args;
    for (Argument &a : f->args())
      args.push_back(&a);
    CallInst *call = b.CreateCall(f->getFunctionType(), target, args);
    if (f->getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(call);
  }

  Function *entry = m.getFunction(entryName);
  if (!entry || entry->isDeclaration())
    return createStringError("device code without an entry function");
  IRBuilder<> b(&*entry->getEntryBlock().getFirstInsertionPt());
  for (Function *load : loads)
    b.CreateCall(load);
  return Error::success();
}

} // namespace kiln
