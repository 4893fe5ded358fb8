//===- Measure.cpp - Compile candidates, time them in a child -------------===//

#include "autotune/Measure.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cmath>
#include <cstdlib>

namespace kiln::autotune {

namespace {
/// A temporary file removed on scope exit.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(llvm::StringRef prefix) {
    if (llvm::sys::fs::createTemporaryFile(prefix, "txt", path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  std::string read() const {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
};

std::vector<llvm::StringRef> refs(const std::vector<std::string> &args) {
  return std::vector<llvm::StringRef>(args.begin(), args.end());
}

/// The last non-empty line of `text` (a tool's error), trimmed.
std::string lastLine(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, false);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!it->trim().empty())
      return it->trim().str();
  return "";
}

/// Runs the measure command for `arguments` through the runner.
int runMeasureTool(const MeasureOptions &options,
                   const std::vector<std::string> &arguments, unsigned timeout,
                   std::string &out, std::string &err, std::string &why) {
  std::vector<std::string> argv = options.runner;
  argv.push_back(options.measure);
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return runCommand(argv, timeout, out, err, why);
}
} // namespace

int runCommand(const std::vector<std::string> &argv, unsigned timeout,
               std::string &out, std::string &err, std::string &why) {
  auto program = llvm::sys::findProgramByName(argv.front());
  if (!program) {
    why = "cannot find '" + argv.front() + "'";
    return -1;
  }
  TempFile stdoutFile("kiln-measure-out"), stderrFile("kiln-measure-err");
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(stdoutFile.path),
      llvm::StringRef(stderrFile.path)};
  int rc = llvm::sys::ExecuteAndWait(*program, refs(argv), std::nullopt,
                                     redirects, timeout, 0, &why);
  out = stdoutFile.read();
  err = stderrFile.read();
  return rc;
}

std::vector<std::string>
compileCandidates(const MeasureOptions &options, llvm::StringRef moduleFile,
                  llvm::ArrayRef<std::pair<std::string, std::string>> jobs,
                  unsigned parallel) {
  std::vector<std::string> errors(jobs.size());
  struct Running {
    llvm::sys::ProcessInfo info;
    size_t job;
    std::unique_ptr<TempFile> log;
  };
  std::vector<Running> running;
  size_t next = 0;
  auto finish = [&](Running &r, bool wait) {
    std::string why;
    llvm::sys::ProcessInfo done = llvm::sys::Wait(
        r.info,
        wait ? std::optional<unsigned>(options.compileTimeoutSeconds)
             : std::optional<unsigned>(0),
        &why);
    if (done.Pid == 0)
      return false; // still running
    if (done.ReturnCode != 0) {
      std::string log = lastLine(r.log->read());
      errors[r.job] = !log.empty()   ? log
                      : !why.empty() ? why
                                     : "kiln compile exited with " +
                                           std::to_string(done.ReturnCode);
    }
    return true;
  };
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < std::max(parallel, 1u)) {
      const auto &[schedule, library] = jobs[next];
      std::vector<std::string> argv = {options.kiln, "compile",
                                       moduleFile.str(), "-o", library};
      argv.insert(argv.end(), options.compileArgs.begin(),
                  options.compileArgs.end());
      if (!schedule.empty())
        argv.insert(argv.end(), {"--schedule-file", schedule});
      auto log = std::make_unique<TempFile>("kiln-compile");
      std::optional<llvm::StringRef> redirects[] = {
          std::nullopt, llvm::StringRef(log->path), llvm::StringRef(log->path)};
      std::string why;
      llvm::sys::ProcessInfo info = llvm::sys::ExecuteNoWait(
          options.kiln, refs(argv), std::nullopt, redirects, 0, &why);
      if (info.Pid == 0)
        errors[next] = "cannot run kiln: " + why;
      else
        running.push_back({info, next, std::move(log)});
      ++next;
    }
    // Wait for the oldest; the others are polled.
    if (!running.empty()) {
      finish(running.front(), /*wait=*/true);
      running.erase(running.begin());
    }
    for (size_t i = 0; i < running.size();)
      if (finish(running[i], /*wait=*/false))
        running.erase(running.begin() + i);
      else
        ++i;
  }
  return errors;
}

Measurement measureLibrary(const MeasureOptions &options,
                           llvm::StringRef library) {
  Measurement m;
  std::vector<std::string> args = {library.str(),
                                   "--threads",
                                   std::to_string(options.threads),
                                   "--warmup",
                                   std::to_string(options.warmup),
                                   "--runs",
                                   std::to_string(options.runs),
                                   "--min-ms",
                                   std::to_string(options.minMs)};
  if (!options.cold.empty())
    args.insert(args.end(), {"--cold", options.cold});
  std::string out, err, why;
  int rc = runMeasureTool(options, args, options.timeoutSeconds, out, err, why);
  if (rc != 0) {
    bool timedOut = llvm::StringRef(why).contains("timed out");
    m.status = timedOut ? "timeout" : "crash";
    m.message = timedOut ? "no result within " +
                               std::to_string(options.timeoutSeconds) + " s"
                : !lastLine(err).empty() ? lastLine(err)
                : !why.empty()           ? why
                                         : "exit code " + std::to_string(rc);
    return m;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(out).split(lines, '\n', -1, false);
  bool timed = false;
  for (llvm::StringRef line : lines) {
    auto [key, rest] = line.split(' ');
    if (key == "device") {
      m.device = rest.trim().str();
    } else if (key == "median_ns") {
      timed = !rest.split(' ').first.getAsDouble(m.medianNs);
    } else if (key == "output" || key == "sample") {
      llvm::SmallVector<llvm::StringRef> fields;
      rest.split(fields, ' ', -1, false);
      size_t index;
      if (fields.empty() || fields[0].getAsInteger(10, index))
        continue;
      if (m.outputs.size() <= index)
        m.outputs.resize(index + 1);
      OutputDigest &d = m.outputs[index];
      auto number = [](llvm::StringRef s) {
        return std::strtod(s.str().c_str(), nullptr);
      };
      if (key == "output" && fields.size() == 4) {
        d.count = (int64_t)number(fields[1]);
        d.sum = number(fields[2]);
        d.absSum = number(fields[3]);
      } else if (key == "sample") {
        for (llvm::StringRef f : llvm::ArrayRef(fields).drop_front())
          d.samples.push_back(number(f));
      }
    }
  }
  if (!timed) {
    m.status = "crash";
    m.message = "kiln_measure printed no time";
    return m;
  }
  m.status = "ok";
  return m;
}

std::string probeDevice(const MeasureOptions &options, std::string &error) {
  std::string out, err, why;
  int rc = runMeasureTool(options, {"--device"}, options.timeoutSeconds, out,
                          err, why);
  llvm::StringRef rest = llvm::StringRef(out).trim();
  if (rc != 0 || !rest.consume_front("device ")) {
    error = "the runner cannot run kiln_measure (" + options.measure +
            "): " + (!lastLine(err).empty() ? lastLine(err) : why);
    return "";
  }
  return rest.split('\n').first.trim().str();
}

std::string compareOutputs(llvm::ArrayRef<OutputDigest> expected,
                           llvm::ArrayRef<OutputDigest> got) {
  if (expected.size() != got.size())
    return std::to_string(got.size()) + " outputs, not " +
           std::to_string(expected.size());
  for (size_t o = 0; o < expected.size(); ++o) {
    const OutputDigest &e = expected[o], &g = got[o];
    if (e.count != g.count || e.samples.size() != g.samples.size())
      return "output " + std::to_string(o) + " has another size";
    // Reassociated float32 sums differ by a few ulps of their magnitude;
    // a wrong kernel (a missed tile, a stale accumulator) by far more.
    double scale = e.count ? e.absSum / e.count : 0;
    double tolerance = 1e-3 * scale + 1e-30;
    for (size_t i = 0; i < e.samples.size(); ++i)
      if (!(std::fabs(e.samples[i] - g.samples[i]) <=
            tolerance + 1e-3 * std::fabs(e.samples[i])))
        return "output " + std::to_string(o) + " differs at sample " +
               std::to_string(i) + ": " + std::to_string(g.samples[i]) +
               " instead of " + std::to_string(e.samples[i]);
    if (!(std::fabs(e.sum - g.sum) <= 1e-4 * e.absSum + 1e-30))
      return "output " + std::to_string(o) + " sums to " +
             std::to_string(g.sum) + " instead of " + std::to_string(e.sum);
  }
  return "";
}

} // namespace kiln::autotune
