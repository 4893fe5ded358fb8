//===- TuningDatabase.cpp - Measured schedules in SQLite ------------------===//

#include "autotune/TuningDatabase.h"
#include "autotune/Schema.h"

#include "llvm/Support/FileSystem.h"

#include <ctime>
#include <sqlite3.h>

namespace kiln::autotune {

llvm::StringRef getKilnVersion() { return KILN_VERSION; }

namespace {
/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql) {
    if (sqlite3_prepare_v2(db, sql.data(), sql.size(), &stmt, nullptr) !=
        SQLITE_OK)
      stmt = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt); }
  explicit operator bool() const { return stmt != nullptr; }
  Statement &bind(llvm::StringRef text) {
    sqlite3_bind_text(stmt, ++index, text.data(), text.size(),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int64_t value) {
    sqlite3_bind_int64(stmt, ++index, value);
    return *this;
  }
  Statement &bind(std::optional<double> value) {
    if (value)
      sqlite3_bind_double(stmt, ++index, *value);
    else
      sqlite3_bind_null(stmt, ++index);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return stmt ? sqlite3_step(stmt) : SQLITE_ERROR; }
  std::string text(int column) const {
    const unsigned char *t = sqlite3_column_text(stmt, column);
    return t ? reinterpret_cast<const char *>(t) : "";
  }
  int64_t integer(int column) const {
    return sqlite3_column_int64(stmt, column);
  }
  std::optional<double> real(int column) const {
    if (sqlite3_column_type(stmt, column) == SQLITE_NULL)
      return std::nullopt;
    return sqlite3_column_double(stmt, column);
  }

private:
  sqlite3_stmt *stmt = nullptr;
  int index = 0;
};

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Record readRecord(const Statement &s) {
  Record r;
  r.signature = s.text(0);
  r.target = s.text(1);
  r.device = s.text(2);
  r.search = s.text(3);
  r.schedule = s.text(4);
  r.trial = s.integer(5);
  r.status = s.text(6);
  r.timeNs = s.real(7);
  r.message = s.text(8);
  return r;
}

constexpr const char *kRecordColumns =
    "signature, target, device, search, schedule, trial, status, time_ns, "
    "message";
} // namespace

llvm::Error TuningDatabase::error(llvm::StringRef what) const {
  return llvm::createStringError("tuning database '" + path + "': " + what +
                                 ": " + sqlite3_errmsg(db));
}

llvm::Error TuningDatabase::exec(llvm::StringRef sql) const {
  char *message = nullptr;
  if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message) ==
      SQLITE_OK)
    return llvm::Error::success();
  std::string text = message ? message : "unknown error";
  sqlite3_free(message);
  return llvm::createStringError("tuning database '" + path + "': " + text);
}

llvm::Expected<std::unique_ptr<TuningDatabase>>
TuningDatabase::open(llvm::StringRef path, bool create) {
  bool exists = llvm::sys::fs::exists(path);
  if (!exists && !create)
    return llvm::createStringError("tuning database '" + path.str() +
                                   "' does not exist");
  sqlite3 *raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.str().c_str(), &raw, flags, nullptr) != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close(raw);
    return llvm::createStringError("cannot open tuning database '" +
                                   path.str() + "': " + msg);
  }
  std::unique_ptr<TuningDatabase> db(new TuningDatabase(raw, path.str()));
  sqlite3_busy_timeout(raw, 10000);
  // What the file holds: nothing yet, a kiln database, or something else.
  Statement tables(raw, "SELECT count(*) FROM sqlite_master");
  if (tables.step() != SQLITE_ROW)
    return llvm::createStringError("'" + path.str() +
                                   "' is not a kiln tuning database (" +
                                   sqlite3_errmsg(raw) + ")");
  if (tables.integer(0) == 0) {
    if (auto err = db->exec(kSchemaSql))
      return std::move(err);
    Statement meta(raw, "INSERT INTO meta(key, value) VALUES "
                        "('format', ?), ('schema', ?), ('created_by', ?)");
    meta.bind(kFormatName)
        .bind(std::to_string(kSchemaVersion))
        .bind(("kiln " + getKilnVersion()).str());
    if (meta.step() != SQLITE_DONE)
      return db->error("cannot initialize");
    return db;
  }
  Statement format(raw, "SELECT value FROM meta WHERE key = 'format'");
  if (!format || format.step() != SQLITE_ROW || format.text(0) != kFormatName)
    return llvm::createStringError("'" + path.str() +
                                   "' is not a kiln tuning database (it is an "
                                   "SQLite file without kiln's tables)");
  Statement schema(raw, "SELECT value FROM meta WHERE key = 'schema'");
  std::string version = schema.step() == SQLITE_ROW ? schema.text(0) : "?";
  if (version != std::to_string(kSchemaVersion))
    return llvm::createStringError(
        "tuning database '" + path.str() + "' has schema " + version +
        "; this kiln reads schema " + std::to_string(kSchemaVersion));
  return db;
}

TuningDatabase::~TuningDatabase() { sqlite3_close(db); }

llvm::Error TuningDatabase::addTask(const TaskRow &t) {
  Statement s(db, "INSERT OR IGNORE INTO tasks(signature, target, device, "
                  "kind, node, model, features, default_schedule) VALUES "
                  "(?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(t.signature)
      .bind(t.target)
      .bind(t.device)
      .bind(t.kind)
      .bind(t.node)
      .bind(t.model)
      .bind(t.features)
      .bind(t.defaultSchedule);
  if (s.step() != SQLITE_DONE)
    return error("cannot add a task");
  return llvm::Error::success();
}

llvm::Error TuningDatabase::addRecord(const Record &r) {
  Statement s(db, "INSERT OR REPLACE INTO records(signature, target, device, "
                  "search, schedule, trial, status, time_ns, message, "
                  "kiln_version, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?)");
  s.bind(r.signature)
      .bind(r.target)
      .bind(r.device)
      .bind(r.search)
      .bind(r.schedule)
      .bind(r.trial)
      .bind(r.status)
      .bind(r.timeNs)
      .bind(r.message)
      .bind(getKilnVersion())
      .bind(nowUtc());
  if (s.step() != SQLITE_DONE)
    return error("cannot add a record");
  return llvm::Error::success();
}

std::optional<Record> TuningDatabase::getRecord(const Record &key) const {
  Statement s(db, std::string("SELECT ") + kRecordColumns +
                      " FROM records WHERE signature = ? AND target = ? AND "
                      "device = ? AND search = ? AND schedule = ?");
  s.bind(key.signature)
      .bind(key.target)
      .bind(key.device)
      .bind(key.search)
      .bind(key.schedule);
  if (s.step() != SQLITE_ROW)
    return std::nullopt;
  return readRecord(s);
}

std::vector<TaskRow> TuningDatabase::getTasks() const {
  Statement s(db, "SELECT signature, target, device, kind, node, model, "
                  "features, default_schedule FROM tasks ORDER BY signature, "
                  "target, device");
  std::vector<TaskRow> tasks;
  while (s.step() == SQLITE_ROW)
    tasks.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.text(4),
                     s.text(5), s.text(6), s.text(7)});
  return tasks;
}

std::vector<Record> TuningDatabase::getRecords(llvm::StringRef target,
                                               llvm::StringRef device) const {
  Statement s(db, std::string("SELECT ") + kRecordColumns +
                      " FROM records WHERE target = ? AND device = ? ORDER BY "
                      "signature, search, trial");
  s.bind(target).bind(device);
  std::vector<Record> records;
  while (s.step() == SQLITE_ROW)
    records.push_back(readRecord(s));
  return records;
}

std::map<std::string, std::string>
TuningDatabase::getBestSchedules(llvm::StringRef target, llvm::StringRef device,
                                 double minSpeedup,
                                 std::string *chosenDevice) const {
  std::string dev = device.str();
  if (dev.empty()) {
    Statement s(db, "SELECT device FROM records WHERE target = ? AND status = "
                    "'ok' GROUP BY device ORDER BY count(*) DESC, device "
                    "LIMIT 1");
    s.bind(target);
    if (s.step() == SQLITE_ROW)
      dev = s.text(0);
  }
  if (chosenDevice)
    *chosenDevice = dev;
  // The fastest ok record per signature, against its default's time.
  Statement s(db, "SELECT r.signature, r.schedule, r.time_ns, d.time_ns "
                  "FROM records r JOIN records d ON d.signature = r.signature "
                  "AND d.target = r.target AND d.device = r.device AND "
                  "d.search = 'default' AND d.status = 'ok' "
                  "WHERE r.target = ? AND r.device = ? AND r.status = 'ok' "
                  "AND r.search != 'default' AND NOT EXISTS (SELECT 1 FROM "
                  "records x WHERE x.signature = r.signature AND x.target = "
                  "r.target AND x.device = r.device AND x.schedule = "
                  "r.schedule AND x.status IN ('slower_in_model', "
                  "'unchecked_in_model')) "
                  "ORDER BY r.signature, r.time_ns, r.schedule");
  s.bind(target).bind(dev);
  std::map<std::string, std::string> best;
  while (s.step() == SQLITE_ROW) {
    std::string signature = s.text(0);
    if (best.count(signature))
      continue;
    best[signature] = ""; // the fastest; later rows of it are slower
    std::optional<double> time = s.real(2), defaultTime = s.real(3);
    if (time && defaultTime && *time * minSpeedup <= *defaultTime)
      best[signature] = s.text(1);
  }
  for (auto it = best.begin(); it != best.end();)
    it = it->second.empty() ? best.erase(it) : std::next(it);
  return best;
}

llvm::Error TuningDatabase::merge(llvm::ArrayRef<std::string> inputs,
                                  llvm::StringRef output) {
  auto out = open(output, /*create=*/true);
  if (!out)
    return out.takeError();
  for (const std::string &input : inputs) {
    // Opening checks the format first.
    auto in = open(input, /*create=*/false);
    if (!in)
      return in.takeError();
    in->reset();
    std::string quoted;
    for (char c : input)
      quoted += c == '\'' ? std::string("''") : std::string(1, c);
    if (auto err = (*out)->exec("ATTACH DATABASE '" + quoted + "' AS src"))
      return err;
    llvm::Error err = (*out)->exec(
        "BEGIN; INSERT OR IGNORE INTO tasks SELECT * FROM src.tasks; "
        "INSERT OR IGNORE INTO records SELECT * FROM src.records; COMMIT;");
    if (err) {
      llvm::consumeError((*out)->exec("ROLLBACK"));
      return err;
    }
    if (auto err = (*out)->exec("DETACH DATABASE src"))
      return err;
  }
  return llvm::Error::success();
}

} // namespace kiln::autotune
