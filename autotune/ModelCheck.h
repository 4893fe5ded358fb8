//===- ModelCheck.h - Tuned schedules checked inside the model --*- C++ -*-===//
//
// A candidate is timed as a one-op library, the op's inputs and weights
// warm in the cache levels a model would have evicted, its output in no
// one's way. Inside a model some winners lose: ResNet-18's 256-channel
// 14x14 convolutions took Winograd F(4x4) at 1.03 against 1.70 ms one-op
// and ran 2.13 against 1.72 ms in the model (four times the weights, read
// from memory there). So after a local sweep the model is compiled twice
// with `--profile`, with the defaults and with the database's choices, and
// timed per node (`kiln profile`, interleaved); a signature whose nodes
// are not faster with its chosen schedule gets a 'slower_in_model' record
// for that schedule, which `getBestSchedules` skips from then on. The next
// best candidate is checked the same way, for a few rounds; an op whose
// candidates still lose in the last round keeps its default (the faster
// candidates not judged get 'unchecked_in_model' verdicts).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_MODELCHECK_H
#define KILN_AUTOTUNE_MODELCHECK_H

#include "autotune/Tasks.h"
#include "autotune/Tuner.h"
#include "autotune/TuningDatabase.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace kiln::autotune {

struct ModelCheckResult {
  int checked = 0;  ///< chosen schedules timed in the model
  int rejected = 0; ///< of them, not faster there than the default
  int rounds = 0;
};

/// Checks the schedules `db` chooses for `tasks` (of options.modelPath)
/// inside the model, as the file comment says; `log` gets one line per
/// rejection.
llvm::Expected<ModelCheckResult>
checkInModel(const TuneOptions &options, llvm::ArrayRef<Task> tasks,
             TuningDatabase &db, llvm::StringRef target, llvm::StringRef device,
             llvm::function_ref<void(const llvm::Twine &)> log);

/// How candidates are timed (MeasureOptions::cold): "flush" when the whole
/// model is at most 7 % slower with its memory flushed before each run than
/// back to back, i.e. its weights and activations leave the caches between
/// two uses anyway (here ResNet-50 1.01x, ResNet-18 1.03x, DenseNet-121
/// 1.05x), else "evict" (SqueezeNet 1.1 1.10x, EfficientNet-B0 1.11x,
/// MobileNetV2 1.30x: their data stay in the shared cache, and flushed
/// one-op timings favour schedules that lose in the model).
struct CacheChoice {
  std::string cold;
  double backToBackNs = 0, flushedNs = 0;
};
llvm::Expected<CacheChoice> chooseCacheState(const TuneOptions &options);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_MODELCHECK_H
