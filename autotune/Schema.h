//===- Schema.h - The tuning database's tables ------------------*- C++ -*-===//
//
// One SQLite file per sweep (or merged sweeps). `meta` says what the file is
// (format 'kiln-tuning-db', schema '1'), so that a foreign or newer file is
// refused with a clear error. A task is one tunable op signature on one
// target and device; a record is one measured candidate schedule of it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_SCHEMA_H
#define KILN_AUTOTUNE_SCHEMA_H

namespace kiln::autotune {

inline constexpr const char *kFormatName = "kiln-tuning-db";
inline constexpr int kSchemaVersion = 1;

inline constexpr const char *kSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(
  signature TEXT NOT NULL,        -- the op's fingerprint (kind, types, attributes)
  target TEXT NOT NULL,           -- 'x86_64:znver5', target and resolved CPU
  device TEXT NOT NULL,           -- device fingerprint, from the runner
  kind TEXT NOT NULL,             -- 'conv', 'contraction', 'depthwise', ...
  node TEXT NOT NULL,             -- the first ONNX node it was found at
  model TEXT NOT NULL,            -- the model it was found in
  features TEXT NOT NULL,         -- JSON object: loop ranges and derived sizes
  default_schedule TEXT NOT NULL, -- JSON object: the heuristic's schedule
  PRIMARY KEY(signature, target, device));
CREATE TABLE IF NOT EXISTS records(
  signature TEXT NOT NULL,
  target TEXT NOT NULL,
  device TEXT NOT NULL,
  search TEXT NOT NULL,           -- 'default', 'random', 'grid', 'model'
  schedule TEXT NOT NULL,         -- JSON object of schedule fields
  trial INTEGER NOT NULL,         -- 0-based order within (task, search)
  status TEXT NOT NULL,           -- 'ok', 'wrong', 'compile_error', 'crash', 'timeout'
  time_ns REAL,                   -- median run time; NULL unless status = 'ok'
  message TEXT NOT NULL DEFAULT '',
  kiln_version TEXT NOT NULL,
  created TEXT NOT NULL,          -- ISO 8601 UTC
  PRIMARY KEY(signature, target, device, search, schedule));
)sql";

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_SCHEMA_H
