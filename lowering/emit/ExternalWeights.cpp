//===- ExternalWeights.cpp - Weights in a file beside the library ---------===//
//
// `--weights external` moves every weight global into one file, each at a
// 64-byte aligned offset, and makes the code read it through a pointer that
// kiln_rt sets when it maps the file (kiln_model_desc.weights_base):
//
//   %w = getelementptr i8, ptr @weight, ...          ; before
//   %base = load ptr, ptr @kiln.weights_base, !invariant.load
//   %p = getelementptr i8, ptr %base, i64 <offset>   ; after, %p for @weight
//
// The library then holds only code, so a model of gigabytes links and loads
// quickly, and processes running it share the weights through the page
// cache.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/ModelLibrary.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/Alignment.h"

using namespace llvm;

namespace kiln {

/// Offsets of weights in the file are multiples of this (the code may rely
/// on the alignment the globals had; the mapping itself is page aligned).
static constexpr uint64_t kWeightAlignment = 64;

Expected<std::string> externalizeWeights(Module &m) {
  const DataLayout &dl = m.getDataLayout();
  SmallVector<std::pair<GlobalVariable *, uint64_t>> moved;
  std::string blob;
  for (GlobalVariable &g : m.globals()) {
    if (!g.isConstant() || !g.hasInitializer() ||
        g.getName().starts_with("kiln."))
      continue;
    uint64_t align =
        std::max<uint64_t>(kWeightAlignment, g.getAlign().valueOrOne().value());
    std::string bytes;
    if (!appendConstantBytes(g.getInitializer(), dl, bytes))
      continue; // not plain data: stays in the library
    blob.resize(alignTo(blob.size(), align), '\0');
    moved.push_back({&g, blob.size()});
    blob += bytes;
  }
  if (moved.empty())
    return blob;
  // A file of at least one aligned unit, so that it can always be mapped.
  blob.resize(alignTo(std::max<size_t>(blob.size(), 1), kWeightAlignment),
              '\0');

  LLVMContext &ctx = m.getContext();
  auto *ptrTy = PointerType::get(ctx, 0);
  auto *base = new GlobalVariable(
      m, ptrTy, /*isConstant=*/false, GlobalValue::InternalLinkage,
      ConstantPointerNull::get(ptrTy), kWeightsBaseSymbol);
  MDNode *invariant = MDNode::get(ctx, {});
  SmallVector<Constant *> globals;
  for (auto [g, offset] : moved)
    globals.push_back(g);
  // Constant expressions over the globals (GEPs into a weight) become
  // instructions, so that every use is an instruction operand.
  convertUsersOfConstantsToInstructions(globals);
  for (auto [g, offset] : moved) {
    for (Use &use : llvm::make_early_inc_range(g->uses())) {
      auto *user = dyn_cast<Instruction>(use.getUser());
      if (!user)
        return createStringError("weight '" + g->getName() +
                                 "' is used outside code; it cannot be "
                                 "external");
      Instruction *at = user;
      if (auto *phi = dyn_cast<PHINode>(user))
        at = phi->getIncomingBlock(use)->getTerminator();
      IRBuilder<> b(at);
      LoadInst *basePtr = b.CreateLoad(ptrTy, base, "weights");
      basePtr->setMetadata(LLVMContext::MD_invariant_load, invariant);
      basePtr->setAlignment(Align(8));
      use.set(b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), basePtr, offset,
                                           g->getName() + ".ext"));
    }
    g->eraseFromParent();
  }
  return blob;
}

} // namespace kiln
