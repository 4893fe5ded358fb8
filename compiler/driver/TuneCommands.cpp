//===- TuneCommands.cpp - tune: sweeps, merges, reports -------------------===//
//
//   kiln tune MODEL --db tune.sqlite [--trials N] [--search model|random|grid]
//             [--shard I/N] [--runner "CMD"] [--cache STATE]
//             [target options as compile]
//   kiln tune merge A.sqlite B.sqlite ... -o C.sqlite
//   kiln tune --report tune.sqlite -o report.html
//
//===----------------------------------------------------------------------===//

#include "autotune/Report.h"
#include "autotune/Tuner.h"
#include "autotune/TuningDatabase.h"
#include "compiler/driver/Commands.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

namespace cl = llvm::cl;

namespace kiln::driver {

cl::SubCommand &getTuneSubCommand() {
  static cl::SubCommand sub(
      "tune", "Measure schedules per op and keep the best in a tuning "
              "database (`kiln compile --tuning-db` applies them)");
  return sub;
}

static cl::list<std::string> positional(cl::Positional,
                                        cl::desc("<model> | merge <db>... "),
                                        cl::sub(getTuneSubCommand()));
static cl::opt<std::string> dbPath("db", cl::value_desc("file.sqlite"),
                                   cl::sub(getTuneSubCommand()),
                                   cl::desc("Tuning database to add to "
                                            "(created if missing)"));
static cl::opt<std::string>
    outPath("o", cl::value_desc("file"), cl::sub(getTuneSubCommand()),
            cl::desc("Output of `merge` (a database) or `--report` (HTML)"));
static cl::opt<std::string>
    reportDb("report", cl::value_desc("file.sqlite"),
             cl::sub(getTuneSubCommand()),
             cl::desc("Write an HTML report of this database to -o"));
static cl::opt<int> trials("trials", cl::init(32), cl::value_desc("N"),
                           cl::sub(getTuneSubCommand()),
                           cl::desc("Candidates measured per op (default 32)"));
static cl::opt<std::string>
    search("search", cl::init("model"), cl::value_desc("name"),
           cl::sub(getTuneSubCommand()),
           cl::desc("model (XGBoost-guided, default), random or grid"));
static cl::opt<std::string>
    shard("shard", cl::value_desc("I/N"), cl::sub(getTuneSubCommand()),
          cl::desc("Tune only the I-th of N shares of the ops (0-based)"));
static cl::opt<std::string> runner(
    "runner", cl::value_desc("command"), cl::sub(getTuneSubCommand()),
    cl::desc("Run measurements through this command prefix "
             "(\"ssh board\", \"qemu-aarch64 -L /usr/aarch64-linux-gnu\")"));
static cl::opt<std::string> measureTool(
    "measure-tool", cl::value_desc("path"), cl::sub(getTuneSubCommand()),
    cl::desc("kiln_measure for the device (default: the one beside kiln)"));
static cl::opt<unsigned> jobs("jobs", cl::init(0), cl::value_desc("N"),
                              cl::sub(getTuneSubCommand()),
                              cl::desc("Candidates compiled at once (0: the "
                                       "number of CPUs)"));
static cl::opt<int> threads("threads", cl::init(1), cl::value_desc("N"),
                            cl::sub(getTuneSubCommand()),
                            cl::desc("Threads the library runs on while "
                                     "measured (default 1)"));
static cl::opt<int> runs("runs", cl::init(10), cl::value_desc("N"),
                         cl::sub(getTuneSubCommand()),
                         cl::desc("Timed runs per candidate (the median "
                                  "counts; at least 50 ms of them)"));
static cl::opt<std::string> cacheState(
    "cache", cl::init("auto"), cl::value_desc("auto|flush|evict|warm"),
    cl::sub(getTuneSubCommand()),
    cl::desc("The cache state candidates start from: the library's memory "
             "flushed to DRAM, the core's cache evicted, or warm (back to "
             "back). auto (default): flush if the whole model runs at most 7 % "
             "slower flushed than back to back (its data leave the caches "
             "between two uses anyway), else evict; flush where the model "
             "cannot be run here"));
static cl::opt<bool> warmCache("warm-cache", cl::init(false),
                               cl::sub(getTuneSubCommand()),
                               cl::desc("Same as --cache warm"));
static cl::opt<unsigned> timeout("timeout", cl::init(60), cl::value_desc("s"),
                                 cl::sub(getTuneSubCommand()),
                                 cl::desc("Seconds a measurement may take"));
static cl::opt<uint64_t> seed("seed", cl::init(1), cl::value_desc("N"),
                              cl::sub(getTuneSubCommand()),
                              cl::desc("Seed of the random choices"));
static cl::opt<bool> checkInModel(
    "check-in-model", cl::init(true), cl::sub(getTuneSubCommand()),
    cl::desc("After a local sweep, time the model with the chosen schedules "
             "per node and keep none that is slower there than the default "
             "(default on; =false to skip)"));
static cl::opt<std::string>
    workDir("work-dir", cl::value_desc("dir"), cl::sub(getTuneSubCommand()),
            cl::desc("Where task modules and candidates go (default: a "
                     "temporary directory)"));

static std::string siblingTool(llvm::StringRef name) {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable("kiln", &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, name);
  return std::string(path);
}

static int runMerge() {
  if (positional.size() < 3)
    return fail("tune merge needs at least two databases: kiln tune merge "
                "A.sqlite B.sqlite -o C.sqlite");
  if (outPath.empty())
    return fail("tune merge needs -o OUTPUT.sqlite");
  std::vector<std::string> inputs(positional.begin() + 1, positional.end());
  if (llvm::is_contained(inputs, outPath.getValue()))
    return fail("tune merge: -o must not be one of the inputs");
  if (auto err = autotune::TuningDatabase::merge(inputs, outPath))
    return fail(llvm::toString(std::move(err)));
  return 0;
}

static int runReport() {
  if (outPath.empty())
    return fail("--report needs -o REPORT.html");
  // Opening checks the format and gives the database's own errors.
  auto db = autotune::TuningDatabase::open(reportDb, /*create=*/false);
  if (!db)
    return fail(llvm::toString(db.takeError()));
  db->reset();
  std::string error;
  if (!autotune::writeTuningReport(reportDb, outPath, error))
    return fail(error);
  return 0;
}

static int runTune() {
  if (!reportDb.empty())
    return runReport();
  if (!positional.empty() && positional.front() == "merge")
    return runMerge();
  if (positional.size() != 1)
    return fail("tune needs one model (or `merge`, or `--report DB`); see "
                "kiln tune --help");
  if (dbPath.empty())
    return fail("tune needs --db FILE.sqlite (created if missing)");
  autotune::TuneOptions options;
  options.modelPath = positional.front();
  options.dbPath = dbPath;
  if (int rc = getTargetOptions(options.compile))
    return rc;
  if (trials < 0)
    return fail("--trials must be >= 0");
  options.trials = trials;
  options.search = search;
  if (!shard.empty()) {
    auto [index, count] = llvm::StringRef(shard).split('/');
    if (index.getAsInteger(10, options.shardIndex) ||
        count.getAsInteger(10, options.shardCount) || options.shardCount < 1 ||
        options.shardIndex < 0 || options.shardIndex >= options.shardCount)
      return fail("--shard needs I/N with 0 <= I < N, not '" + shard + "'");
  }
  options.jobs =
      jobs ? jobs : std::max(1u, std::thread::hardware_concurrency());
  options.seed = seed;
  options.checkInModel = checkInModel;
  autotune::MeasureOptions &m = options.measure;
  m.kiln = siblingTool("kiln");
  m.measure = measureTool.empty() ? siblingTool("kiln_measure")
                                  : measureTool.getValue();
  // Split as a shell would, so that quoted paths with spaces stay whole.
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char *> words;
  cl::TokenizeGNUCommandLine(runner, saver, words);
  m.runner.assign(words.begin(), words.end());
  m.threads = threads;
  m.runs = runs;
  std::string cache = warmCache ? "warm" : cacheState.getValue();
  if (cache != "auto" && cache != "flush" && cache != "evict" &&
      cache != "warm")
    return fail("--cache takes auto, flush, evict or warm, not '" + cache +
                "'");
  m.cold = cache == "warm" ? "" : cache == "evict" ? "evict" : "flush";
  options.chooseCacheState = cache == "auto";
  m.timeoutSeconds = timeout;
  const CompileOptions &c = options.compile;
  m.compileArgs = {"--target", c.target};
  if (!c.targetOptions.cpu.empty())
    m.compileArgs.insert(m.compileArgs.end(), {"--cpu", c.targetOptions.cpu});
  if (!c.targetOptions.features.empty())
    m.compileArgs.insert(m.compileArgs.end(),
                         {"--features", c.targetOptions.features});
  if (!c.convLayout.empty())
    m.compileArgs.insert(m.compileArgs.end(), {"--layout", c.convLayout});
  m.compileArgs.push_back("-O" + std::to_string(c.targetOptions.optLevel));
  // Task modules are already graph-optimized; the rest of the options
  // (`--schedule`) apply to every candidate as to the model.
  std::string scheduleText;
  for (const auto &[key, value] : c.targetOptions.schedule)
    scheduleText +=
        (scheduleText.empty() ? "" : ",") + key + "=" + std::to_string(value);
  if (!scheduleText.empty())
    m.compileArgs.insert(m.compileArgs.end(), {"--schedule", scheduleText});
  llvm::SmallString<128> dir;
  bool ownDir = workDir.empty();
  if (ownDir) {
    if (llvm::sys::fs::createUniqueDirectory("kiln-tune", dir))
      return fail("cannot create a temporary directory");
  } else {
    dir = workDir;
  }
  options.workDir = std::string(dir);
  options.terminal = llvm::sys::Process::StandardErrIsDisplayed();
  auto ctx = makeContext();
  auto module = loadModel(*ctx, options.modelPath);
  if (failed(module))
    return 1;
  llvm::Error err = autotune::tuneModel(**module, options);
  if (ownDir)
    llvm::sys::fs::remove_directories(dir);
  if (err)
    return fail(options.modelPath + ": " + llvm::toString(std::move(err)));
  return 0;
}

Command TuneCommand{getTuneSubCommand(), runTune};

} // namespace kiln::driver
