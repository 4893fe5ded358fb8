//===- Tuner.cpp - `kiln tune`: sweep the schedules of a model ------------===//
//
// Per task: the default schedule is measured first (its outputs are the
// reference every candidate must match), then candidates in the order the
// search proposes, in batches: a batch compiles in parallel and is measured
// one candidate at a time. Every result is a database record at once, and
// candidates with a record are not measured again, which is how a killed
// sweep resumes.
//
//===----------------------------------------------------------------------===//

#include "autotune/Tuner.h"

#include "autotune/CostModel.h"
#include "autotune/ModelCheck.h"
#include "autotune/Tasks.h"
#include "autotune/TuningDatabase.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>

namespace kiln::autotune {

namespace {

std::string toText(const llvm::json::Object &o) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(llvm::json::Object(o));
  return text;
}

std::string toText(const Features &features) {
  llvm::json::Object o;
  for (const auto &[name, value] : features)
    o[name] = value;
  return toText(o);
}

Features parseFeatures(llvm::StringRef text) {
  Features f;
  auto json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return f;
  }
  if (auto *o = json->getAsObject())
    for (const auto &[key, value] : *o)
      if (auto n = value.getAsNumber())
        f.emplace_back(key.str(), *n);
  llvm::sort(f);
  return f;
}

llvm::json::Object parseObject(llvm::StringRef text) {
  auto json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return {};
  }
  auto *o = json->getAsObject();
  return o ? std::move(*o) : llvm::json::Object();
}

uint64_t hashString(llvm::StringRef s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s)
    h = (h ^ (uint8_t)c) * 0x100000001b3ULL;
  return h;
}

std::string formatTime(double ns) {
  if (ns >= 1e6)
    return llvm::formatv("{0:f2} ms", ns / 1e6).str();
  return llvm::formatv("{0:f1} us", ns / 1e3).str();
}

std::string formatDuration(double seconds) {
  long s = std::lround(std::max(seconds, 0.0));
  if (s >= 3600)
    return llvm::formatv("{0}h{1:d2}m", s / 3600, s / 60 % 60).str();
  return llvm::formatv("{0}m{1:d2}s", s / 60, s % 60).str();
}

/// Progress on stderr: one redrawn line on a terminal, a line per task
/// and per rejected candidate otherwise.
class Progress {
public:
  Progress(bool terminal, size_t tasks, int trials)
      : terminal(terminal), tasks(tasks), totalTrials(tasks * trials),
        start(std::chrono::steady_clock::now()) {}
  void update(size_t task, llvm::StringRef name, int trial, int trials,
              std::optional<double> best, std::optional<double> def) {
    ++done;
    if (!terminal)
      return;
    double elapsed = seconds();
    double eta = done ? elapsed / done * (totalTrials - done) : 0;
    std::string line = llvm::formatv("[{0}/{1}] {2} trial {3}/{4}", task + 1,
                                     tasks, name, trial, trials);
    if (best && def)
      line +=
          llvm::formatv(" best {0} ({1:f2}x)", formatTime(*best), *def / *best);
    line += " ETA " + formatDuration(eta);
    llvm::errs() << "\r\x1b[K" << line;
    llvm::errs().flush();
  }
  void skip(int trials) {
    totalTrials -= std::min<size_t>(trials, totalTrials);
  }
  /// A whole line, kept above the redrawn one.
  void line(const llvm::Twine &text) {
    if (terminal)
      llvm::errs() << "\r\x1b[K";
    llvm::errs() << "kiln tune: " << text << "\n";
  }

private:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
  bool terminal;
  size_t tasks, totalTrials, done = 0;
  std::chrono::steady_clock::time_point start;
};

/// Trains the cost model on every record of the target and device.
llvm::Error trainModel(const TuningDatabase &db, llvm::StringRef target,
                       llvm::StringRef device, CostModel &model, size_t &rows) {
  llvm::StringMap<Features> taskFeatures;
  for (const TaskRow &t : db.getTasks())
    if (t.target == target && t.device == device)
      taskFeatures[t.signature] = parseFeatures(t.features);
  std::vector<Record> records = db.getRecords(target, device);
  llvm::StringMap<double> defaults;
  for (const Record &r : records)
    if (r.search == "default" && r.status == "ok" && r.timeNs)
      defaults[r.signature] = *r.timeNs;
  std::vector<Features> x;
  std::vector<float> y;
  std::vector<unsigned> groups;
  std::string current;
  for (const Record &r : records) {
    if (r.search == "default" || !taskFeatures.count(r.signature) ||
        !defaults.count(r.signature))
      continue;
    if (r.signature != current) {
      groups.push_back(0);
      current = r.signature;
    }
    ++groups.back();
    x.push_back(getCandidateFeatures(taskFeatures[r.signature],
                                     parseObject(r.schedule)));
    // Failed candidates rank below every working one.
    y.push_back(r.status == "ok" && r.timeNs
                    ? (float)(defaults[r.signature] / *r.timeNs)
                    : 0.0f);
  }
  rows = x.size();
  return model.train(x, y, groups);
}

struct Candidate {
  std::vector<int64_t> knobs;
  std::string schedule; // canonical JSON text
};

} // namespace

llvm::Error tuneModel(mlir::ModuleOp module, const TuneOptions &given) {
  TuneOptions options = given; // measure.cold may be chosen below
  if (options.search != "random" && options.search != "grid" &&
      options.search != "model")
    return llvm::createStringError("unknown search '" + options.search +
                                   "' (known: random, grid, model)");
  std::unique_ptr<TargetBackend> target = createTarget(options.compile.target);
  if (!target)
    return llvm::createStringError("unknown target '" + options.compile.target +
                                   "'");
  const TargetOptions &targetOptions = options.compile.targetOptions;
  std::string targetKey = target->getTuningTarget(targetOptions);
  auto db = TuningDatabase::open(options.dbPath, /*create=*/true);
  if (!db)
    return db.takeError();
  std::string error;
  std::string device = probeDevice(options.measure, error);
  if (device.empty())
    return llvm::createStringError(error);
  auto allTasks = extractTasks(module, options.compile);
  if (!allTasks)
    return allTasks.takeError();
  std::vector<Task> tasks;
  for (size_t i = 0; i < allTasks->size(); ++i)
    if ((int)(i % options.shardCount) == options.shardIndex)
      tasks.push_back(std::move((*allTasks)[i]));
  Progress progress(options.terminal, tasks.size(), options.trials);
  progress.line(llvm::formatv("{0} tasks ({1} in this shard) for {2} on {3}",
                              allTasks->size(), tasks.size(), targetKey,
                              device));
  if (options.chooseCacheState && options.measure.runner.empty() &&
      !tasks.empty()) {
    auto choice = chooseCacheState(options);
    if (choice) {
      options.measure.cold = choice->cold;
      progress.line(llvm::formatv(
          "cache: the model takes {0} flushed, {1} back to back ({2:f2}x): "
          "candidates start from {3}",
          formatTime(choice->flushedNs), formatTime(choice->backToBackNs),
          choice->flushedNs / choice->backToBackNs,
          choice->cold == "flush" ? "their memory flushed"
                                  : "the core's cache evicted"));
    } else {
      progress.line("cache: candidates start from their memory flushed; " +
                    llvm::toString(choice.takeError()));
    }
  }
  std::string modelName = llvm::sys::path::filename(options.modelPath).str();
  CostModel model;

  for (auto [taskIndex, task] : llvm::enumerate(tasks)) {
    const std::string &sig = task.op.signature;
    std::string name = (task.op.node.empty() ? "" : task.op.node + "#") + sig;
    llvm::SmallString<128> dir(options.workDir);
    llvm::sys::path::append(dir, sig);
    if (auto ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError("cannot create '" + dir.str().str() +
                                     "': " + ec.message());
    auto file = [&](const llvm::Twine &leaf) {
      llvm::SmallString<128> p(dir);
      llvm::sys::path::append(p, leaf);
      return std::string(p);
    };
    std::string moduleFile = file("task.mlir");
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(moduleFile, ec);
      if (ec)
        return llvm::createStringError("cannot write '" + moduleFile +
                                       "': " + ec.message());
      os << task.module;
    }
    if (auto err = (*db)->addTask(
            {sig, targetKey, device, task.op.kind, task.op.node, modelName,
             toText(task.features), toText(task.op.defaultSchedule)}))
      return err;

    // The default schedule: the time to beat and the reference outputs.
    // A signature's candidates are timed from the cache state its default
    // was (a resumed sweep or another model's may have chosen another).
    Record key{sig, targetKey, device, "default", "{}"};
    std::optional<Record> defaultRecord = (*db)->getRecord(key);
    MeasureOptions measure = options.measure;
    llvm::StringRef recorded = defaultRecord && defaultRecord->status == "ok"
                                   ? llvm::StringRef(defaultRecord->message)
                                   : "";
    if (recorded.consume_front("cache "))
      measure.cold = recorded == "warm" ? "" : recorded.str();
    std::string defaultLib = file("default.so");
    std::vector<std::string> compileErrors =
        compileCandidates(measure, moduleFile, {{"", defaultLib}}, 1);
    Measurement reference;
    if (compileErrors[0].empty())
      reference = measureLibrary(measure, defaultLib);
    else
      reference.status = "compile_error", reference.message = compileErrors[0];
    if (!defaultRecord) {
      Record r = key;
      r.status = reference.status;
      r.message = reference.message;
      if (reference.status == "ok") {
        r.timeNs = reference.medianNs;
        r.message = "cache " + (measure.cold.empty() ? "warm" : measure.cold);
      }
      if (auto err = (*db)->addRecord(r))
        return err;
      defaultRecord = r;
    }
    if (reference.status != "ok") {
      progress.line(llvm::formatv("[{0}/{1}] {2}: the default schedule fails "
                                  "({3}: {4}); task skipped",
                                  taskIndex + 1, tasks.size(), name,
                                  reference.status, reference.message));
      progress.skip(options.trials);
      continue;
    }
    double defaultNs = defaultRecord->timeNs.value_or(reference.medianNs);

    SearchSpace space =
        target->getSearchSpace(task.op, targetOptions, options.measure.threads);
    std::vector<Candidate> candidates;
    {
      llvm::StringSet<> seen;
      for (std::vector<int64_t> &knobs : space.enumerate()) {
        std::string text = toText(space.toSchedule(knobs));
        if (seen.insert(text).second)
          candidates.push_back({std::move(knobs), text});
      }
    }
    // Already measured in this search (a resumed sweep).
    llvm::StringSet<> tried;
    std::optional<double> best;
    int trial = 0;
    for (const Record &r : (*db)->getRecords(targetKey, device))
      if (r.signature == sig && r.search == options.search) {
        tried.insert(r.schedule);
        ++trial;
        if (r.status == "ok" && r.timeNs && (!best || *r.timeNs < *best))
          best = r.timeNs;
      }
    int budget = std::min<int>(options.trials, candidates.size());
    progress.skip(std::min(trial, budget));
    std::vector<size_t> order(candidates.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::mt19937_64 rng(hashString(sig) ^ options.seed);
    if (options.search == "grid" && budget > 0) {
      // Evenly spaced through the space first, then the rest in order.
      std::vector<size_t> first, rest;
      std::vector<bool> picked(order.size(), false);
      for (int i = 0; i < budget; ++i) {
        size_t at = (size_t)((i + 0.5) * order.size() / budget);
        picked[at] = true;
        first.push_back(at);
      }
      for (size_t i = 0; i < order.size(); ++i)
        if (!picked[i])
          rest.push_back(i);
      order = first;
      order.insert(order.end(), rest.begin(), rest.end());
    } else {
      std::shuffle(order.begin(), order.end(), rng);
    }
    size_t cursor = 0;
    const int batchSize = std::max<int>(options.jobs, 8);
    int rejected = 0;
    while (trial < budget) {
      int want = std::min(batchSize, budget - trial);
      std::vector<size_t> batch;
      auto takeInOrder = [&](int n) {
        while ((int)batch.size() < n && cursor < order.size()) {
          size_t c = order[cursor++];
          if (!tried.count(candidates[c].schedule) &&
              !llvm::is_contained(batch, c))
            batch.push_back(c);
        }
      };
      if (options.search == "model") {
        size_t rows = 0;
        llvm::Error err = trainModel(**db, targetKey, device, model, rows);
        bool useModel = !err && rows >= 8;
        llvm::consumeError(std::move(err));
        if (useModel) {
          // Rank the untried candidates (a sample of a large space); keep
          // some random picks to explore where the model is unsure.
          std::vector<size_t> pool;
          for (size_t c = 0; c < candidates.size(); ++c)
            if (!tried.count(candidates[c].schedule))
              pool.push_back(c);
          if (pool.size() > 20000) {
            std::shuffle(pool.begin(), pool.end(), rng);
            pool.resize(20000);
          }
          std::vector<Features> rows;
          for (size_t c : pool)
            rows.push_back(getCandidateFeatures(
                task.features, space.toSchedule(candidates[c].knobs)));
          auto scores = model.predict(rows);
          if (scores) {
            std::vector<size_t> rank(pool.size());
            for (size_t i = 0; i < rank.size(); ++i)
              rank[i] = i;
            std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) {
              return (*scores)[a] > (*scores)[b];
            });
            int explore = want >= 4 ? std::max(1, want / 8) : 0;
            for (size_t i = 0;
                 i < rank.size() && (int)batch.size() < want - explore; ++i)
              batch.push_back(pool[rank[i]]);
          } else {
            llvm::consumeError(scores.takeError());
          }
        }
      }
      takeInOrder(want);
      if (batch.empty())
        break; // the whole space is measured
      std::vector<std::pair<std::string, std::string>> jobs;
      for (size_t i = 0; i < batch.size(); ++i) {
        std::string schedule = file("candidate" + llvm::Twine(i) + ".json");
        std::string library = file("candidate" + llvm::Twine(i) + ".so");
        std::error_code ec;
        llvm::raw_fd_ostream os(schedule, ec);
        if (ec)
          return llvm::createStringError("cannot write '" + schedule +
                                         "': " + ec.message());
        // The schedule file applies to every op of the signature.
        os << "{\"" << sig << "\": " << candidates[batch[i]].schedule << "}\n";
        jobs.emplace_back(schedule, library);
      }
      compileErrors =
          compileCandidates(options.measure, moduleFile, jobs, options.jobs);
      for (size_t i = 0; i < batch.size(); ++i) {
        const Candidate &c = candidates[batch[i]];
        Record r{sig, targetKey, device, options.search, c.schedule, trial};
        if (!compileErrors[i].empty()) {
          r.status = "compile_error";
          r.message = compileErrors[i];
        } else {
          Measurement m = measureLibrary(measure, jobs[i].second);
          r.status = m.status;
          r.message = m.message;
          if (m.status == "ok") {
            std::string wrong = compareOutputs(reference.outputs, m.outputs);
            if (!wrong.empty()) {
              r.status = "wrong";
              r.message = wrong;
            } else {
              r.timeNs = m.medianNs;
            }
          }
        }
        if (r.status != "ok") {
          ++rejected;
          progress.line(llvm::formatv("{0}: candidate {1} rejected ({2}: {3})",
                                      name, c.schedule, r.status, r.message));
        } else if (!best || *r.timeNs < *best) {
          best = r.timeNs;
        }
        if (auto err = (*db)->addRecord(r))
          return err;
        tried.insert(c.schedule);
        ++trial;
        progress.update(taskIndex, name, trial, budget, best, defaultNs);
      }
      for (const auto &[schedule, library] : jobs) {
        llvm::sys::fs::remove(schedule);
        llvm::sys::fs::remove(library);
      }
    }
    llvm::sys::fs::remove(defaultLib);
    std::string line =
        llvm::formatv("[{0}/{1}] {2} ({3}, x{4}): {5} trials, default {6}",
                      taskIndex + 1, tasks.size(), name, task.op.kind,
                      task.occurrences, trial, formatTime(defaultNs));
    if (best)
      line += llvm::formatv(", best {0} ({1:f2}x)", formatTime(*best),
                            defaultNs / *best);
    if (rejected)
      line += llvm::formatv(", {0} rejected", rejected);
    progress.line(line);
  }
  // Only where the model runs here, and only for a whole sweep: the check
  // compiles and times the model with every task's choice.
  if (!options.checkInModel || !options.measure.runner.empty() ||
      options.shardCount != 1)
    return llvm::Error::success();
  auto checked = checkInModel(
      options, tasks, **db, targetKey, device, [&](const llvm::Twine &text) {
        progress.line("slower in the model, not applied: " + text);
      });
  // The sweep's records stand without the check (a model with symbolic
  // dims has no seeded input to profile with, for one).
  if (!checked) {
    progress.line("in the model: not checked: " +
                  llvm::toString(checked.takeError()));
    return llvm::Error::success();
  }
  progress.line(llvm::formatv(
      "in the model: {0} of {1} tuned schedules kept ({2} round{3})",
      checked->checked - checked->rejected, checked->checked, checked->rounds,
      checked->rounds == 1 ? "" : "s"));
  return llvm::Error::success();
}

} // namespace kiln::autotune
