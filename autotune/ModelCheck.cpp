//===- ModelCheck.cpp - Tuned schedules checked inside the model ----------===//

#include "autotune/ModelCheck.h"

#include "autotune/Measure.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

namespace kiln::autotune {

namespace {

/// Rounds of checks (each checks the next candidate of the signatures the
/// one before rejected), interleaved profile runs per round, timed runs per
/// profile.
constexpr int kMaxRounds = 3;
constexpr int kRepeats = 3;
constexpr int kIterations = 10;
/// A chosen schedule must make its nodes this much faster in the model.
constexpr double kMinGain = 0.98;
/// A model at most this much slower with its memory flushed before each run
/// than back to back reads its data from memory anyway.
constexpr double kFlushedLikeBackToBack = 1.07;

std::string join(llvm::StringRef dir, llvm::StringRef leaf) {
  llvm::SmallString<128> p(dir);
  llvm::sys::path::append(p, leaf);
  llvm::sys::fs::make_absolute(p);
  return std::string(p);
}

llvm::Error compileModel(const TuneOptions &options, llvm::StringRef output,
                         bool tuned, bool profile = true) {
  const MeasureOptions &m = options.measure;
  std::vector<std::string> argv = {m.kiln, "compile", options.modelPath, "-o",
                                   output.str()};
  if (profile)
    argv.push_back("--profile");
  argv.insert(argv.end(), m.compileArgs.begin(), m.compileArgs.end());
  if (tuned)
    argv.insert(argv.end(), {"--tuning-db", options.dbPath});
  std::string out, err, why;
  int rc = runCommand(argv, m.compileTimeoutSeconds, out, err, why);
  if (rc != 0)
    return llvm::createStringError(
        "could not compile the model: " +
        (why.empty() ? llvm::StringRef(err).trim().str() : why));
  return llvm::Error::success();
}

/// Adds the per-node milliseconds per run of `kiln profile`'s table to
/// `best`, keeping the smaller of two times.
llvm::Error profileNodes(const TuneOptions &options, llvm::StringRef library,
                         llvm::StringMap<double> &best) {
  const MeasureOptions &m = options.measure;
  std::vector<std::string> argv = {m.kiln,
                                   "profile",
                                   library.str(),
                                   "--threads",
                                   std::to_string(m.threads),
                                   "--iters",
                                   std::to_string(kIterations),
                                   "--warmup",
                                   "2"};
  std::string out, err, why;
  if (runCommand(argv, m.timeoutSeconds, out, err, why) != 0)
    return llvm::createStringError(
        "the in-model check could not profile the model: " +
        (why.empty() ? llvm::StringRef(err).trim().str() : why));
  // node  op  fused  kernels  ms/run  %  GF/s: the node is the first field,
  // the time the third from the end.
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(out).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ', -1, false);
    double ms;
    if (fields.size() < 7 || fields[0] == "node" || fields[0] == "profile" ||
        fields[fields.size() - 3].getAsDouble(ms))
      continue;
    auto [it, inserted] = best.try_emplace(fields[0], ms);
    if (!inserted)
      it->second = std::min(it->second, ms);
  }
  return llvm::Error::success();
}

/// The time of `nodes` in `times`, or NaN when one is missing.
double sumNodes(const std::vector<std::string> &nodes,
                const llvm::StringMap<double> &times) {
  double sum = 0;
  for (const std::string &node : nodes) {
    auto it = times.find(node);
    if (it == times.end())
      return NAN;
    sum += it->second;
  }
  return sum;
}

/// The tasks whose schedule `kiln compile --tuning-db` would apply (in
/// `best`, by signature) is not one that held up in the model (`kept`).
std::vector<const Task *>
unconfirmed(TuningDatabase &db, llvm::ArrayRef<Task> tasks,
            llvm::StringRef target, llvm::StringRef device,
            const llvm::StringMap<std::string> &kept,
            std::map<std::string, std::string> &best) {
  best = db.getBestSchedules(target, device, kMinTunedSpeedup, nullptr);
  std::vector<const Task *> out;
  for (const Task &task : tasks) {
    auto it = best.find(task.op.signature);
    if (it != best.end() && kept.lookup(task.op.signature) != it->second)
      out.push_back(&task);
  }
  return out;
}

/// After the last round, the ops whose choice still changes keep their
/// defaults: every faster candidate of theirs not yet judged gets an
/// 'unchecked_in_model' verdict (an op whose first candidates all lost in
/// the model is not left to the next one unchecked).
llvm::Error giveUp(TuningDatabase &db, llvm::ArrayRef<Task> tasks,
                   llvm::StringRef target, llvm::StringRef device,
                   const llvm::StringMap<std::string> &kept) {
  std::map<std::string, std::string> best;
  llvm::StringSet<> open;
  for (const Task *task : unconfirmed(db, tasks, target, device, kept, best))
    open.insert(task->op.signature);
  std::vector<Record> records = db.getRecords(target, device);
  // Candidates with a verdict already keep it.
  llvm::StringSet<> judged;
  for (const Record &r : records)
    if (r.search == "in_model")
      judged.insert(r.signature + "\n" + r.schedule);
  for (Record r : records) {
    if (!open.contains(r.signature) || r.status != "ok" ||
        r.search == "default" || r.search == "in_model" ||
        judged.contains(r.signature + "\n" + r.schedule))
      continue;
    r.search = "in_model";
    r.trial = 0;
    r.status = "unchecked_in_model";
    r.message = llvm::formatv("not checked: {0} candidates of this op were "
                              "slower in the model",
                              kMaxRounds);
    if (auto err = db.addRecord(r))
      return err;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ModelCheckResult>
checkInModel(const TuneOptions &options, llvm::ArrayRef<Task> tasks,
             TuningDatabase &db, llvm::StringRef target, llvm::StringRef device,
             llvm::function_ref<void(const llvm::Twine &)> log) {
  ModelCheckResult result;
  std::string defaultLib = join(options.workDir, "model-default.so");
  std::string tunedLib = join(options.workDir, "model-tuned.so");
  llvm::StringMap<std::string> kept; // signature -> schedule that held up
  bool compiledDefault = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::map<std::string, std::string> best;
    std::vector<const Task *> pending =
        unconfirmed(db, tasks, target, device, kept, best);
    if (pending.empty())
      break;
    ++result.rounds;
    if (!compiledDefault) {
      if (auto err = compileModel(options, defaultLib, /*tuned=*/false))
        return std::move(err);
      compiledDefault = true;
    }
    if (auto err = compileModel(options, tunedLib, /*tuned=*/true))
      return std::move(err);
    llvm::StringMap<double> defaultTimes, tunedTimes;
    for (int r = 0; r < kRepeats; ++r) {
      if (auto err = profileNodes(options, defaultLib, defaultTimes))
        return std::move(err);
      if (auto err = profileNodes(options, tunedLib, tunedTimes))
        return std::move(err);
    }
    int rejected = 0;
    for (const Task *task : pending) {
      const std::string &sig = task->op.signature;
      double d = sumNodes(task->nodes, defaultTimes);
      double t = sumNodes(task->nodes, tunedTimes);
      if (std::isnan(d) || std::isnan(t))
        continue; // a node the profile does not name: nothing to judge by
      ++result.checked;
      if (t <= kMinGain * d) {
        kept[sig] = best[sig];
        continue;
      }
      ++rejected;
      Record r;
      r.signature = sig;
      r.target = target.str();
      r.device = device.str();
      r.search = "in_model";
      r.schedule = best[sig];
      r.status = "slower_in_model";
      r.timeNs = t * 1e6;
      r.message =
          llvm::formatv("in the model {0:f3} ms, default {1:f3} ms", t, d);
      if (auto err = db.addRecord(r))
        return std::move(err);
      log(llvm::formatv("{0}#{1}: {2} {3}", task->op.node, sig, best[sig],
                        r.message));
    }
    result.rejected += rejected;
    if (rejected == 0)
      break;
    if (round + 1 == kMaxRounds)
      if (auto err = giveUp(db, tasks, target, device, kept))
        return std::move(err);
  }
  llvm::sys::fs::remove(defaultLib);
  llvm::sys::fs::remove(tunedLib);
  return result;
}

llvm::Expected<CacheChoice> chooseCacheState(const TuneOptions &options) {
  std::string library = join(options.workDir, "model-cache.so");
  if (auto err = compileModel(options, library, /*tuned=*/false,
                              /*profile=*/false))
    return std::move(err);
  MeasureOptions backToBack = options.measure, flushed = options.measure;
  backToBack.cold = "";
  flushed.cold = "flush";
  CacheChoice choice;
  choice.backToBackNs = choice.flushedNs = INFINITY;
  for (int r = 0; r < 2; ++r)
    for (MeasureOptions *m : {&backToBack, &flushed}) {
      Measurement t = measureLibrary(*m, library);
      if (t.status != "ok") {
        llvm::sys::fs::remove(library);
        return llvm::createStringError("the whole model could not be timed (" +
                                       t.status + "): " + t.message);
      }
      double &best = m == &flushed ? choice.flushedNs : choice.backToBackNs;
      best = std::min(best, t.medianNs);
    }
  llvm::sys::fs::remove(library);
  choice.cold = choice.flushedNs <= kFlushedLikeBackToBack * choice.backToBackNs
                    ? "flush"
                    : "evict";
  return choice;
}

} // namespace kiln::autotune
