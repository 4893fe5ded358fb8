//===- ModelLibrary.cpp - ABI entry and metadata in LLVM IR ---------------===//

#include "lowering/emit/ModelLibrary.h"

#include "kiln_model_abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace kiln {

static Constant *makeString(Module &m, StringRef s, const Twine &name) {
  auto *init = ConstantDataArray::getString(m.getContext(), s);
  auto *gv = new GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, init, name);
  gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return gv;
}

static Constant *makeI64Array(Module &m, ArrayRef<int64_t> values,
                              const Twine &name) {
  auto *i64 = Type::getInt64Ty(m.getContext());
  auto *ty = ArrayType::get(i64, values.size());
  SmallVector<Constant *> elems;
  for (int64_t v : values)
    elems.push_back(ConstantInt::get(i64, v, /*isSigned=*/true));
  auto *gv = new GlobalVariable(m, ty, true, GlobalValue::PrivateLinkage,
                                ConstantArray::get(ty, elems), name);
  return gv;
}

/// Appends one memref descriptor: (ptr, ptr, offset 0, sizes, row-major
/// strides).
static void appendMemref(IRBuilder<> &b, Value *ptr, ArrayRef<Value *> sizes,
                         SmallVectorImpl<Value *> &args) {
  args.push_back(ptr);
  args.push_back(ptr);
  args.push_back(b.getInt64(0));
  SmallVector<Value *> strides(sizes.size());
  Value *stride = b.getInt64(1);
  for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride = b.CreateMul(stride, sizes[i]);
  }
  args.append(sizes.begin(), sizes.end());
  args.append(strides.begin(), strides.end());
}

/// Appends the memref descriptors (allocated, aligned, offset 0, sizes,
/// row-major strides) the entry takes for `sig`'s inputs and caller-sized
/// outputs, read from the run's `buffers` (null data when `buffers` is null)
/// and `dims` tables.
static void appendEntryArguments(IRBuilder<> &b, const ModelSignature &sig,
                                 Value *buffers, Value *dims,
                                 SmallVectorImpl<Value *> &args) {
  auto *ptrTy = PointerType::get(b.getContext(), 0);
  auto *i64 = b.getInt64Ty();
  int64_t dimOffset = 0, index = 0;
  auto addTensor = [&](const TensorSignature &t) {
    Value *data = ConstantPointerNull::get(ptrTy);
    if (buffers)
      data = b.CreateLoad(ptrTy, b.CreateConstGEP1_64(ptrTy, buffers, index));
    ++index;
    SmallVector<Value *> sizes;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      if (t.dims[d] >= 0) {
        sizes.push_back(ConstantInt::get(i64, t.dims[d]));
      } else {
        Value *p = b.CreateConstGEP1_64(i64, dims, dimOffset + d);
        sizes.push_back(b.CreateLoad(i64, p));
      }
    }
    dimOffset += t.dims.size();
    appendMemref(b, data, sizes, args);
  };
  for (const TensorSignature &t : sig.inputs)
    addTensor(t);
  for (const TensorSignature &t : sig.outputs) {
    if (!t.sizedAtRunTime) {
      addTensor(t);
      continue;
    }
    ++index;
    dimOffset += t.dims.size();
  }
}

/// Builds `i32 run(ptr buffers, ptr dims, ptr arena)` around `entry`.
static Function *buildRunWrapper(Module &m, Function *entry,
                                 const ModelSignature &sig, bool takesArena,
                                 uint64_t arenaBytes, StringRef name) {
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::get(ctx, 0);
  auto *i64 = Type::getInt64Ty(ctx);
  auto *i32 = Type::getInt32Ty(ctx);
  auto *fnTy = FunctionType::get(i32, {ptrTy, ptrTy, ptrTy}, false);
  Function *run = Function::Create(fnTy, GlobalValue::InternalLinkage, name, m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", run));
  Value *buffers = run->getArg(0), *dims = run->getArg(1);

  SmallVector<Value *> args;
  appendEntryArguments(b, sig, buffers, dims, args);
  int64_t outputDims = 0;
  for (const TensorSignature &t : sig.inputs)
    outputDims += t.dims.size();
  if (takesArena)
    appendMemref(b, run->getArg(2),
                 {ConstantInt::get(i64, std::max<uint64_t>(arenaBytes, 1))},
                 args);
  Value *results = b.CreateCall(entry, args);

  // Outputs sized at run time come back as memref descriptors (allocated,
  // aligned, offset, sizes, strides; a struct of them for several) of
  // identity-layout buffers the entry allocated: hand their data, extents
  // and the block to free to the caller.
  int64_t numRunTime = llvm::count_if(
      sig.outputs, [](const TensorSignature &t) { return t.sizedAtRunTime; });
  int64_t first = sig.inputs.size(), j = 0;
  int64_t dimOffset = outputDims;
  for (auto [i, t] : llvm::enumerate(sig.outputs)) {
    if (!t.sizedAtRunTime) {
      dimOffset += t.dims.size();
      continue;
    }
    Value *desc = numRunTime == 1
                      ? results
                      : b.CreateExtractValue(results, {(unsigned)j});
    Value *offset =
        b.CreateMul(b.CreateExtractValue(desc, {2}),
                    ConstantInt::get(i64, kiln_dtype_bytes(t.dtype)));
    Value *data =
        b.CreateGEP(b.getInt8Ty(), b.CreateExtractValue(desc, {1}), offset);
    b.CreateStore(data, b.CreateConstGEP1_64(ptrTy, buffers, first + i));
    b.CreateStore(
        b.CreateExtractValue(desc, {0}),
        b.CreateConstGEP1_64(ptrTy, buffers, first + sig.outputs.size() + j));
    for (unsigned d = 0; d < t.dims.size(); ++d)
      b.CreateStore(b.CreateExtractValue(desc, {3, d}),
                    b.CreateConstGEP1_64(i64, dims, dimOffset + d));
    dimOffset += t.dims.size();
    ++j;
  }
  b.CreateRet(ConstantInt::get(i32, 0));
  return run;
}

/// The entry function `name`, checked against the arguments `sig` implies.
static Expected<Function *> findEntry(Module &m, StringRef name,
                                      const ModelSignature &sig,
                                      bool takesArena) {
  Function *entry = m.getFunction(name);
  if (!entry)
    return createStringError("lowered module has no entry function " + name);
  size_t expected = 0;
  for (const auto *list : {&sig.inputs, &sig.outputs})
    for (const TensorSignature &t : *list)
      if (!t.sizedAtRunTime)
        expected += 3 + 2 * t.dims.size();
  if (takesArena)
    expected += 5;
  if (entry->arg_size() != expected)
    return createStringError(
        "entry function takes " + Twine(entry->arg_size()) +
        " arguments, the signature implies " + Twine(expected));
  return entry;
}

/// Whether the run's input dims (`dims`) equal the static dims `variant`
/// gives the inputs that are symbolic in `sig`, and lie in its ranges.
static Value *matchesVariant(IRBuilder<> &b, const ModelSignature &sig,
                             const ModelVariant &variant, Value *dims) {
  auto *i64 = b.getInt64Ty();
  Value *match = b.getTrue();
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (auto [in, vin] : llvm::zip(sig.inputs, variant.sig.inputs)) {
    offsets.push_back(offset);
    for (auto [d, extent] : llvm::enumerate(vin.dims))
      if (in.dims[d] < 0 && extent >= 0) {
        Value *dim =
            b.CreateLoad(i64, b.CreateConstGEP1_64(i64, dims, offset + d));
        match = b.CreateAnd(match,
                            b.CreateICmpEQ(dim, ConstantInt::get(i64, extent)));
      }
    offset += in.dims.size();
  }
  for (const ModelVariant::DimRange &r : variant.ranges) {
    Value *dim = b.CreateLoad(
        i64, b.CreateConstGEP1_64(i64, dims, offsets[r.input] + r.dim));
    match = b.CreateAnd(match, b.CreateICmpSGE(dim, b.getInt64(r.lo)));
    match = b.CreateAnd(match, b.CreateICmpSLE(dim, b.getInt64(r.hi)));
  }
  return match;
}

/// `i64 arena_bytes_for(ptr dims)`: the most arena bytes the run with these
/// dims needs, from the memory plans over symbolic sizes (the generic
/// entry's, and a matching variant's); null when every plan is static.
static Function *buildArenaBytesFor(Module &m, const ModelSignature &sig,
                                    const ModelLibraryInfo &info) {
  Function *generic = info.arenaBytesFunction.empty()
                          ? nullptr
                          : m.getFunction(info.arenaBytesFunction);
  bool anyVariant = llvm::any_of(info.variants, [](const ModelVariant &v) {
    return !v.arenaBytesFunction.empty();
  });
  if (!generic && !anyVariant)
    return nullptr;
  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::get(ctx, 0);
  auto *i64 = Type::getInt64Ty(ctx);
  Function *fn =
      Function::Create(FunctionType::get(i64, {ptrTy}, false),
                       GlobalValue::InternalLinkage, "kiln_arena_bytes_for", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
  Value *dims = fn->getArg(0);
  Value *bytes = b.getInt64(info.arenaBytes);
  if (generic) {
    SmallVector<Value *> args;
    appendEntryArguments(b, sig, nullptr, dims, args);
    Value *need = b.CreateCall(generic, args);
    bytes = b.CreateSelect(b.CreateICmpUGT(need, bytes), need, bytes);
  }
  for (const ModelVariant &v : info.variants) {
    if (v.arenaBytesFunction.empty())
      continue;
    SmallVector<Value *> args;
    appendEntryArguments(b, v.sig, nullptr, dims, args);
    Value *need = b.CreateCall(m.getFunction(v.arenaBytesFunction), args);
    Value *more = b.CreateAnd(matchesVariant(b, sig, v, dims),
                              b.CreateICmpUGT(need, bytes));
    bytes = b.CreateSelect(more, need, bytes);
  }
  b.CreateRet(bytes);
  return fn;
}

/// `i32 kiln_run(buffers, dims, arena)` calling the first variant whose
/// static input dims equal the run's, else `generic`.
static Function *
buildDispatch(Module &m, const ModelSignature &sig,
              ArrayRef<std::pair<Function *, const ModelVariant *>> variants,
              Function *generic) {
  LLVMContext &ctx = m.getContext();
  Function *run = Function::Create(generic->getFunctionType(),
                                   GlobalValue::InternalLinkage, "kiln_run", m);
  SmallVector<Value *> args(llvm::make_pointer_range(run->args()));
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", run));
  for (auto [wrapper, variant] : variants) {
    Value *match = matchesVariant(b, sig, *variant, run->getArg(1));
    BasicBlock *take = BasicBlock::Create(ctx, "specialized", run);
    BasicBlock *next = BasicBlock::Create(ctx, "next", run);
    b.CreateCondBr(match, take, next);
    b.SetInsertPoint(take);
    b.CreateRet(b.CreateCall(wrapper, args));
    b.SetInsertPoint(next);
  }
  b.CreateRet(b.CreateCall(generic, args));
  return run;
}

Error addModelEntryPoints(Module &m, const ModelSignature &sig,
                          const ModelLibraryInfo &info) {
  auto entry = findEntry(m, kEntryFunctionName, sig, info.entryTakesArena);
  if (!entry)
    return entry.takeError();
  SmallVector<std::pair<Function *, const ModelVariant *>> variants;
  for (const ModelVariant &v : info.variants) {
    auto ventry = findEntry(m, v.entry, v.sig, v.entryTakesArena);
    if (!ventry)
      return ventry.takeError();
    variants.push_back({buildRunWrapper(m, *ventry, v.sig, v.entryTakesArena,
                                        info.arenaBytes, "kiln_run_" + v.entry),
                        &v});
  }

  // Everything the compiler generated is private to the library.
  for (Function &f : m)
    if (!f.isDeclaration())
      f.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &g : m.globals())
    if (!g.isDeclaration())
      g.setLinkage(GlobalValue::InternalLinkage);

  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::get(ctx, 0);
  auto *i64 = Type::getInt64Ty(ctx);
  auto *i32 = Type::getInt32Ty(ctx);
  Function *run =
      buildRunWrapper(m, *entry, sig, info.entryTakesArena, info.arenaBytes,
                      variants.empty() ? "kiln_run" : "kiln_run_generic");
  if (!variants.empty())
    run = buildDispatch(m, sig, variants, run);

  auto *infoTy =
      StructType::create(ctx, {ptrTy, i32, i32, ptrTy}, "kiln_tensor_info");
  auto makeInfos = [&](ArrayRef<TensorSignature> tensors, StringRef role) {
    SmallVector<Constant *> elems;
    for (auto [i, t] : llvm::enumerate(tensors)) {
      std::string prefix = ("kiln." + role + Twine(i)).str();
      elems.push_back(ConstantStruct::get(
          infoTy,
          {makeString(m, t.name, prefix + ".name"),
           ConstantInt::get(i32, t.dtype), ConstantInt::get(i32, t.dims.size()),
           makeI64Array(m, t.dims, prefix + ".dims")}));
    }
    auto *ty = ArrayType::get(infoTy, elems.size());
    return new GlobalVariable(m, ty, true, GlobalValue::PrivateLinkage,
                              ConstantArray::get(ty, elems),
                              "kiln." + role + "s");
  };
  SmallVector<Constant *> symbolNames;
  for (auto [i, s] : llvm::enumerate(sig.symbols))
    symbolNames.push_back(makeString(m, s, "kiln.symbol" + Twine(i)));
  auto *symTy = ArrayType::get(ptrTy, symbolNames.size());
  auto *symbols = new GlobalVariable(
      m, symTy, true, GlobalValue::PrivateLinkage,
      ConstantArray::get(symTy, symbolNames), "kiln.symbols");

  Constant *weightsFile = ConstantPointerNull::get(ptrTy);
  Constant *weightsBase = ConstantPointerNull::get(ptrTy);
  uint64_t checksum = computeWeightsChecksum(m);
  if (!info.externalWeightsFile.empty()) {
    GlobalVariable *base = m.getGlobalVariable(kWeightsBaseSymbol, true);
    if (!base)
      return createStringError("external weights without a base pointer");
    weightsFile = makeString(m, info.externalWeightsFile, "kiln.weights_file");
    weightsBase = base;
    checksum = info.externalWeightsChecksum;
  }

  auto *kernelTy = StructType::create(
      ctx, {ptrTy, ptrTy, ptrTy, ptrTy, Type::getDoubleTy(ctx)},
      "kiln_kernel_info");
  SmallVector<Constant *> kernelInfos;
  for (auto [i, k] : llvm::enumerate(info.kernels)) {
    std::string prefix = ("kiln.kernel" + Twine(i)).str();
    kernelInfos.push_back(ConstantStruct::get(
        kernelTy, {makeString(m, k.symbol, prefix + ".symbol"),
                   makeString(m, k.node, prefix + ".node"),
                   makeString(m, k.opType, prefix + ".op"),
                   makeString(m, k.fused, prefix + ".fused"),
                   ConstantFP::get(Type::getDoubleTy(ctx), k.nodeFlops)}));
  }
  Constant *kernels = ConstantPointerNull::get(ptrTy);
  if (!kernelInfos.empty()) {
    auto *ty = ArrayType::get(kernelTy, kernelInfos.size());
    kernels =
        new GlobalVariable(m, ty, true, GlobalValue::PrivateLinkage,
                           ConstantArray::get(ty, kernelInfos), "kiln.kernels");
  }

  Constant *device = ConstantPointerNull::get(ptrTy);
  Constant *callNames = ConstantPointerNull::get(ptrTy);
  Constant *calls = ConstantPointerNull::get(ptrTy);
  if (!info.device.empty()) {
    device = makeString(m, info.device, "kiln.device");
    SmallVector<Constant *> names;
    for (auto [i, n] : llvm::enumerate(info.deviceCalls))
      names.push_back(makeString(m, n, "kiln.device_call" + Twine(i)));
    auto *namesTy = ArrayType::get(ptrTy, names.size());
    callNames = new GlobalVariable(
        m, namesTy, true, GlobalValue::PrivateLinkage,
        ConstantArray::get(namesTy, names), "kiln.device_call_names");
    if (!info.deviceCalls.empty()) {
      calls = m.getGlobalVariable(kDeviceCallsSymbol, true);
      if (!calls)
        return createStringError("device calls without their table");
    }
  }

  Constant *arenaBytesFor = ConstantPointerNull::get(ptrTy);
  if (Function *fn = buildArenaBytesFor(m, sig, info))
    arenaBytesFor = fn;
  auto *descTy = StructType::create(
      ctx, {i32,   i32,   ptrTy, ptrTy, ptrTy, i64,   i64,   ptrTy, i64, ptrTy,
            i64,   ptrTy, i64,   i64,   ptrTy, i64,   ptrTy, ptrTy, i64, ptrTy,
            ptrTy, i64,   ptrTy, ptrTy, i64,   ptrTy, ptrTy, ptrTy},
      "kiln_model_desc");
  Constant *desc = ConstantStruct::get(
      descTy, {ConstantInt::get(i32, KILN_MODEL_ABI_VERSION),
               ConstantInt::get(i32, 0),
               makeString(m, sig.name, "kiln.name"),
               makeString(m, info.target, "kiln.target"),
               makeString(m, KILN_VERSION, "kiln.version"),
               ConstantInt::get(i64, checksum),
               ConstantInt::get(i64, sig.inputs.size()),
               makeInfos(sig.inputs, "input"),
               ConstantInt::get(i64, sig.outputs.size()),
               makeInfos(sig.outputs, "output"),
               ConstantInt::get(i64, sig.symbols.size()),
               symbols,
               ConstantInt::get(i64, info.arenaBytes),
               ConstantInt::get(i64, info.arenaAlignment),
               run,
               ConstantInt::get(i64, info.arenaLowerBound),
               makeString(m, info.cpu, "kiln.cpu"),
               makeString(m, info.cpuFeatures, "kiln.cpu_features"),
               ConstantInt::get(i64, kernelInfos.size()),
               kernels,
               weightsFile,
               ConstantInt::get(i64, info.externalWeightsBytes),
               weightsBase,
               device,
               ConstantInt::get(i64, info.deviceCalls.size()),
               callNames,
               calls,
               arenaBytesFor});
  auto *descVar = new GlobalVariable(
      m, descTy, true, GlobalValue::PrivateLinkage, desc, "kiln.model_desc");

  auto *getTy = FunctionType::get(ptrTy, {}, false);
  Function *get = Function::Create(getTy, GlobalValue::ExternalLinkage,
                                   KILN_MODEL_ENTRY_SYMBOL, m);
  get->setVisibility(GlobalValue::DefaultVisibility);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", get));
  b.CreateRet(descVar);
  return Error::success();
}

bool appendConstantBytes(const Constant *c, const DataLayout &dl,
                         std::string &out) {
  if (auto *seq = dyn_cast<ConstantDataSequential>(c)) {
    out += seq->getRawDataValues();
    return true;
  }
  if (isa<ConstantAggregateZero>(c)) {
    out.append(dl.getTypeAllocSize(c->getType()), '\0');
    return true;
  }
  if (isa<ConstantArray>(c) || isa<ConstantStruct>(c)) {
    bool plain = true;
    for (const Use &op : c->operands())
      plain &= appendConstantBytes(cast<Constant>(op.get()), dl, out);
    return plain;
  }
  return false;
}

uint64_t fnv1a64(StringRef bytes, uint64_t hash) {
  for (char c : bytes) {
    hash ^= (uint8_t)c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

uint64_t computeWeightsChecksum(const Module &m) {
  uint64_t hash = kFnv1a64Offset;
  for (const GlobalVariable &g : m.globals())
    if (g.isConstant() && g.hasInitializer() &&
        !g.getName().starts_with("kiln.")) {
      // Bytes that are not plain data (addresses) are left out.
      std::string bytes;
      appendConstantBytes(g.getInitializer(), m.getDataLayout(), bytes);
      hash = fnv1a64(bytes, hash);
    }
  return hash;
}

} // namespace kiln
