//===- Report.h - A tuning database as one HTML page ------------*- C++ -*-===//
//
// Turns a tuning database into a single self-contained HTML file (inline CSS
// and SVG, no external resources) that shows, per task, how fast each search
// strategy found its best schedule and how much it beat the default. Free of
// LLVM so that small tools and tests can link it with only sqlite3.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_REPORT_H
#define KILN_AUTOTUNE_REPORT_H

#include <string>

namespace kiln::autotune {

/// Reads the tuning database at `dbPath` (opened read-only) and writes the
/// report to `htmlPath`. Returns false and sets `error` to one line if the
/// file is not a kiln tuning database, cannot be read, or the page cannot be
/// written.
bool writeTuningReport(const std::string &dbPath, const std::string &htmlPath,
                       std::string &error);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_REPORT_H
