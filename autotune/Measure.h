//===- Measure.h - Compile candidates, time them in a child -----*- C++ -*-===//
//
// Candidates compile in parallel, each a `kiln compile` child on the task's
// one-op module with the candidate as its schedule file, so that a
// candidate that breaks the compiler is a failed record, not a failed
// sweep. They run one at a time in a `kiln_measure` child (behind the
// runner prefix: `ssh board`, `qemu-aarch64 -L ...`), with a timeout; its
// output digest is checked against the default schedule's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_MEASURE_H
#define KILN_AUTOTUNE_MEASURE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::autotune {

struct MeasureOptions {
  std::string kiln;    // the kiln executable (compiles candidates)
  std::string measure; // kiln_measure, for the device's architecture
  /// Prepended to the kiln_measure command line (split on spaces).
  std::vector<std::string> runner;
  /// `kiln compile` options shared by every candidate (target, cpu, ...).
  std::vector<std::string> compileArgs;
  int threads = 1, warmup = 3, runs = 10;
  double minMs = 50;
  /// The cache state before each run (kiln_measure --cold): "flush" (the
  /// library's memory written back to DRAM), "evict" (the core's cache
  /// written over), or "" (back to back, warm).
  std::string cold = "flush";
  unsigned timeoutSeconds = 60;
  unsigned compileTimeoutSeconds = 300;
};

/// What kiln_measure printed for one output.
struct OutputDigest {
  int64_t count = 0;
  double sum = 0, absSum = 0;
  std::vector<double> samples;
};

struct Measurement {
  std::string status; // "ok", "crash", "timeout" (or "compile_error")
  double medianNs = 0;
  std::string device;
  std::vector<OutputDigest> outputs;
  std::string message; // why, when not ok
};

/// Compiles `moduleFile` with `scheduleFile` (none when empty) to
/// `library`, several at once: jobs[i] = {scheduleFile, library}. Returns
/// an empty string or the compiler's error per job.
std::vector<std::string>
compileCandidates(const MeasureOptions &options, llvm::StringRef moduleFile,
                  llvm::ArrayRef<std::pair<std::string, std::string>> jobs,
                  unsigned parallel);

/// Runs `argv` (the program found on PATH unless a path), its output and
/// errors in `out` and `err`; the exit code, or -1 with `why` set when it
/// could not run or passed `timeout` seconds (0: no limit).
int runCommand(const std::vector<std::string> &argv, unsigned timeout,
               std::string &out, std::string &err, std::string &why);

/// Runs kiln_measure on `library`.
Measurement measureLibrary(const MeasureOptions &options,
                           llvm::StringRef library);

/// The device line of kiln_measure run through the runner ("" on failure,
/// with `error` set).
std::string probeDevice(const MeasureOptions &options, std::string &error);

/// Empty if `got` matches `expected` (the default schedule's outputs) to
/// float32 reassociation error, else what differs.
std::string compareOutputs(llvm::ArrayRef<OutputDigest> expected,
                           llvm::ArrayRef<OutputDigest> got);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_MEASURE_H
