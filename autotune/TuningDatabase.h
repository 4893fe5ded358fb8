//===- TuningDatabase.h - Measured schedules in SQLite ----------*- C++ -*-===//
//
// `kiln tune` writes every measured candidate here as it goes (one
// transaction per record, so a killed sweep loses at most the candidate in
// flight and resumes from the rest); `kiln compile --tuning-db` reads the
// best schedule per op signature back. Schema: Schema.h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_TUNINGDATABASE_H
#define KILN_AUTOTUNE_TUNINGDATABASE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace kiln::autotune {

struct TaskRow {
  std::string signature, target, device, kind, node, model;
  std::string features;        // JSON object
  std::string defaultSchedule; // JSON object
};

struct Record {
  std::string signature, target, device;
  std::string search;   // "default", "random", "grid", "model"
  std::string schedule; // JSON object, keys sorted
  int64_t trial = 0;
  std::string status; // "ok", "wrong", "compile_error", "crash", "timeout"
  std::optional<double> timeNs;
  std::string message;
};

/// How much faster than the default a tuned schedule must have been timed
/// to replace it (`kiln compile --tuning-db`, and the in-model check of
/// what that would apply): below it is noise.
constexpr double kMinTunedSpeedup = 1.03;

class TuningDatabase {
public:
  /// Opens `path`, creating it when `create` is set and it does not exist.
  /// A file that is not SQLite, or SQLite that is not a kiln tuning
  /// database of this schema, is an error naming the file.
  static llvm::Expected<std::unique_ptr<TuningDatabase>>
  open(llvm::StringRef path, bool create);
  ~TuningDatabase();

  llvm::Error addTask(const TaskRow &task);
  llvm::Error addRecord(const Record &record);
  std::optional<Record> getRecord(const Record &key) const;
  std::vector<TaskRow> getTasks() const;
  /// The records of `target` and `device`, ordered by signature, search and
  /// trial.
  std::vector<Record> getRecords(llvm::StringRef target,
                                 llvm::StringRef device) const;

  /// Best schedule per signature for `target`: from `device`'s records, or
  /// when empty, the device with the most records. Only schedules at least
  /// `minSpeedup` times as fast as the default's record are returned (so
  /// noise does not replace a default), and none that an in-model verdict
  /// ('slower_in_model', 'unchecked_in_model') rejects (ModelCheck.h). Sets
  /// `chosenDevice`.
  std::map<std::string, std::string>
  getBestSchedules(llvm::StringRef target, llvm::StringRef device,
                   double minSpeedup, std::string *chosenDevice) const;

  /// Copies the tasks and records of `inputs` into `output` (created if
  /// missing); records present in several inputs are kept once.
  static llvm::Error merge(llvm::ArrayRef<std::string> inputs,
                           llvm::StringRef output);

  const std::string &getPath() const { return path; }

private:
  TuningDatabase(sqlite3 *db, std::string path) : db(db), path(path) {}
  llvm::Error exec(llvm::StringRef sql) const;
  llvm::Error error(llvm::StringRef what) const;

  sqlite3 *db;
  std::string path;
};

/// The kiln version records are written with.
llvm::StringRef getKilnVersion();

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_TUNINGDATABASE_H
