//===- Report.cpp - A tuning database as one HTML page -------------------===//
//
// The whole database is read into memory first (a sweep holds thousands of
// records, not millions), then the page is printed top to bottom. Numbers go
// through std::to_chars so that a process locale with a decimal comma cannot
// break SVG coordinates. Times are shown in microseconds.
//
//===----------------------------------------------------------------------===//

#include "autotune/Report.h"
#include "autotune/Schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <locale>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln::autotune {
namespace {

struct Trial {
  long long trial;
  bool ok;
  double ns;
};

struct Task {
  std::string signature, target, device, kind, node, model;
  std::map<std::string, std::vector<Trial>> bySearch = {}; // sorted by trial
  double defaultNs = NAN; // search 'default', trial 0, when it ran ok
  double bestNs = NAN;    // over the ok records of every search
  int rejected = 0;       // records with status != 'ok'
};

/// Owns a prepared statement; remembers the last step's result so that a
/// query failing halfway is told apart from one that ran out of rows.
class Stmt {
public:
  Stmt(sqlite3 *db, const char *sql) {
    rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt); }
  bool step() { return stmt && (rc = sqlite3_step(stmt)) == SQLITE_ROW; }
  bool failed() const { return rc != SQLITE_OK && rc != SQLITE_DONE; }
  std::string text(int col) const {
    const unsigned char *p = sqlite3_column_text(stmt, col);
    return p ? reinterpret_cast<const char *>(p) : "";
  }
  bool isNull(int col) const {
    return sqlite3_column_type(stmt, col) == SQLITE_NULL;
  }
  long long integer(int col) const { return sqlite3_column_int64(stmt, col); }
  double real(int col) const { return sqlite3_column_double(stmt, col); }

private:
  sqlite3_stmt *stmt = nullptr;
  int rc;
};

std::string esc(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string num(double v, int precision,
                std::chars_format fmt = std::chars_format::fixed) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, fmt, precision);
  return std::string(buf, res.ptr);
}

/// Three or so significant digits, "-" for a missing time.
std::string us(double ns) {
  if (std::isnan(ns))
    return "-";
  double u = ns / 1000.0;
  return num(u, u >= 100 ? 1 : u >= 1 ? 2 : 3);
}

constexpr const char *kMicro = "&#181;s";

int searchRank(const std::string &s) {
  return s == "default"  ? 0
         : s == "random" ? 1
         : s == "grid"   ? 2
         : s == "model"  ? 3
                         : 4;
}

// Fixed per strategy so that plots can be compared at a glance.
const char *searchColour(const std::string &s) {
  if (s == "model")
    return "#d62728";
  if (s == "random")
    return "#1f77b4";
  if (s == "grid")
    return "#2ca02c";
  static const char *others[] = {"#9467bd", "#8c564b", "#e377c2", "#17becf"};
  return others[std::hash<std::string>()(s) % 4];
}

bool searchLess(const std::string &a, const std::string &b) {
  return std::make_pair(searchRank(a), a) < std::make_pair(searchRank(b), b);
}

/// The searches of `t` other than 'default', in display order.
std::vector<std::string> tunedSearches(const Task &t) {
  std::vector<std::string> out;
  for (const auto &entry : t.bySearch)
    if (entry.first != "default")
      out.push_back(entry.first);
  std::sort(out.begin(), out.end(), searchLess);
  return out;
}

/// (trial + 1, best ok time so far) for every trial from the first ok one.
std::vector<std::pair<double, double>>
bestSoFar(const std::vector<Trial> &trials) {
  std::vector<std::pair<double, double>> pts;
  double best = NAN;
  for (const Trial &tr : trials) {
    if (tr.ok && !(tr.ns >= best))
      best = tr.ns;
    if (!std::isnan(best))
      pts.emplace_back(double(tr.trial + 1), best);
  }
  return pts;
}

struct Axis {
  double lo, hi, step;
  double frac(double v) const { return (v - lo) / (hi - lo); }
};

/// An axis over [lo, hi] widened to multiples of a 1-2-5 step.
Axis niceAxis(double lo, double hi, int ticks) {
  if (!(hi > lo)) {
    double pad = lo != 0 ? std::fabs(lo) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  double raw = (hi - lo) / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

/// Tick values of `a`; the epsilon keeps the last tick despite rounding.
std::vector<double> ticksOf(const Axis &a) {
  std::vector<double> out;
  for (double v = a.lo; v <= a.hi + a.step * 1e-6; v += a.step)
    out.push_back(std::fabs(v) < a.step * 1e-9 ? 0 : v);
  return out;
}

/// "Best time so far against trial", one step line per tuned search.
void trialPlot(std::ostream &os, const Task &t, int id) {
  const double W = 780, H = 300, L = 70, R = 600, T = 16, B = 256;
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>
      series;
  double maxX = 2, lo = INFINITY, hi = -INFINITY;
  for (const std::string &s : tunedSearches(t)) {
    const std::vector<Trial> &trials = t.bySearch.at(s);
    maxX = std::max(maxX, double(trials.back().trial + 1));
    series.emplace_back(s, bestSoFar(trials));
    for (const auto &p : series.back().second) {
      lo = std::min(lo, p.second);
      hi = std::max(hi, p.second);
    }
  }
  if (!std::isnan(t.defaultNs)) {
    lo = std::min(lo, t.defaultNs);
    hi = std::max(hi, t.defaultNs);
  }
  os << "<svg class=\"plot\" width=\"" << W << "\" height=\"" << H
     << "\" viewBox=\"0 0 " << W << ' ' << H
     << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  if (!(hi >= lo)) {
    os << "<text x=\"" << L << "\" y=\"" << H / 2
       << "\">no successful measurement</text></svg>\n";
    return;
  }
  // A few very slow early candidates would flatten everything near the best;
  // cap the axis at twice the default (or best) and clip what is above.
  double ref = std::isnan(t.defaultNs) ? lo : t.defaultNs;
  bool capped = hi > 2 * ref;
  // Pad below so that a line at the minimum does not hide in the x axis.
  double top = std::min(hi, 2 * ref);
  Axis ay = niceAxis((lo - 0.05 * (top - lo)) / 1000, top / 1000, 5);
  ay.lo = std::max(ay.lo, 0.0);
  auto sy = [&](double ns) { return num(B - ay.frac(ns / 1000) * (B - T), 1); };
  auto sx = [&](double x) {
    return num(L + (x - 1) / (maxX - 1) * (R - L), 1);
  };
  os << "<defs><clipPath id=\"clip" << id << "\"><rect x=\"" << L << "\" y=\""
     << T - 2 << "\" width=\"" << R - L + 5 << "\" height=\"" << B - T + 4
     << "\"/></clipPath></defs>\n";
  for (double v : ticksOf(ay)) {
    std::string y = num(B - ay.frac(v) * (B - T), 1);
    os << "<line x1=\"" << L << "\" x2=\"" << R << "\" y1=\"" << y << "\" y2=\""
       << y << "\" class=\"grid\"/><text x=\"" << L - 6 << "\" y=\"" << y
       << "\" dy=\"4\" text-anchor=\"end\">"
       << num(v, 6, std::chars_format::general) << "</text>\n";
  }
  // Integer trial ticks: 1, then multiples of a 1-2-5 step.
  long long step = std::max(1.0, std::ceil(niceAxis(1, maxX, 8).step));
  for (long long x = 1; x <= (long long)maxX;
       x = x == 1 && step > 1 ? step : x + step)
    os << "<line x1=\"" << sx(x) << "\" x2=\"" << sx(x) << "\" y1=\"" << B
       << "\" y2=\"" << B + 5 << "\" class=\"axis\"/><text x=\"" << sx(x)
       << "\" y=\"" << B + 18 << "\" text-anchor=\"middle\">" << x
       << "</text>\n";
  os << "<path d=\"M" << L << ' ' << T << "V" << B << "H" << R
     << "\" class=\"axis\" fill=\"none\"/>\n"
     << "<text x=\"" << (L + R) / 2 << "\" y=\"" << H - 8
     << "\" text-anchor=\"middle\">trial</text>\n"
     << "<text transform=\"translate(16 " << (T + B) / 2
     << ") rotate(-90)\" text-anchor=\"middle\">best time so far (" << kMicro
     << ")</text>\n";
  if (capped)
    os << "<text x=\"" << R << "\" y=\"" << T - 4
       << "\" text-anchor=\"end\" class=\"note\">y axis capped at 2&#215; the "
       << (std::isnan(t.defaultNs) ? "best" : "default") << "</text>\n";
  os << "<g clip-path=\"url(#clip" << id << ")\">\n";
  if (!std::isnan(t.defaultNs))
    os << "<line x1=\"" << L << "\" x2=\"" << R << "\" y1=\"" << sy(t.defaultNs)
       << "\" y2=\"" << sy(t.defaultNs)
       << "\" stroke=\"#444\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\">"
       << "<title>default " << us(t.defaultNs) << ' ' << kMicro
       << "</title></line>\n";
  for (const auto &[search, pts] : series) {
    if (pts.empty())
      continue;
    // Steps, not diagonals: the best so far holds until the next improvement.
    os << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\""
       << searchColour(search) << "\" points=\"";
    for (size_t i = 0; i < pts.size(); ++i) {
      if (i)
        os << sx(pts[i].first) << ',' << sy(pts[i - 1].second) << ' ';
      os << sx(pts[i].first) << ',' << sy(pts[i].second) << ' ';
    }
    os << "\"><title>" << esc(search) << "</title></polyline>\n"
       << "<circle r=\"3.5\" cx=\"" << sx(pts.back().first) << "\" cy=\""
       << sy(pts.back().second) << "\" fill=\"" << searchColour(search)
       << "\"/>\n";
  }
  os << "</g>\n";
  // The legend sits right of the plot: curves start high on the left and
  // end low on the right, so any corner inside would hide some of them.
  double y = T + 10;
  auto entry = [&](const std::string &name, const char *colour,
                   const char *what, const char *dash, double ns) {
    os << "<line x1=\"" << R + 16 << "\" x2=\"" << R + 40 << "\" y1=\"" << y
       << "\" y2=\"" << y << "\" stroke=\"" << colour << "\" stroke-width=\"2\""
       << dash << "/><text x=\"" << R + 46 << "\" y=\"" << y + 4 << "\">"
       << esc(name) << "</text><text class=\"note\" x=\"" << R + 46 << "\" y=\""
       << y + 18 << "\">" << what << us(ns) << ' ' << kMicro << "</text>\n";
    y += 38;
  };
  if (!std::isnan(t.defaultNs))
    entry("default", "#444", "", " stroke-dasharray=\"6 4\"", t.defaultNs);
  for (const auto &[search, pts] : series)
    entry(search, searchColour(search), "best ", "",
          pts.empty() ? NAN : pts.back().second);
  os << "</svg>\n";
}

/// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string truncated(const std::string &s, size_t n) {
  if (s.size() <= n)
    return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
    --n;
  return s.substr(0, n) + "...";
}

/// Horizontal bars, so that long node names fit as labels.
void speedupChart(std::ostream &os, const std::vector<Task> &tasks) {
  std::vector<std::pair<int, double>> rows;
  double maxS = 1;
  for (size_t i = 0; i < tasks.size(); ++i) {
    double s = tasks[i].defaultNs / tasks[i].bestNs;
    if (!std::isnan(s)) {
      rows.emplace_back(int(i), s);
      maxS = std::max(maxS, s);
    }
  }
  const double W = 780, L = 270, R = 700, T = 10, rowH = 22;
  const double B = T + std::max<size_t>(rows.size(), 1) * rowH, H = B + 44;
  os << "<svg class=\"plot\" width=\"" << W << "\" height=\"" << H
     << "\" viewBox=\"0 0 " << W << ' ' << H
     << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  if (rows.empty()) {
    os << "<text x=\"" << L << "\" y=\"" << T + 14
       << "\">no task has both a default and a best time</text></svg>\n";
    return;
  }
  Axis ax = niceAxis(0, maxS * 1.05, 6);
  ax.lo = 0;
  auto sx = [&](double v) { return num(L + ax.frac(v) * (R - L), 1); };
  for (double v : ticksOf(ax))
    os << "<line x1=\"" << sx(v) << "\" x2=\"" << sx(v) << "\" y1=\"" << T
       << "\" y2=\"" << B << "\" class=\"grid\"/><text x=\"" << sx(v)
       << "\" y=\"" << B + 16 << "\" text-anchor=\"middle\">"
       << num(v, 6, std::chars_format::general) << "</text>\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    const Task &t = tasks[rows[r].first];
    double s = rows[r].second, y = T + r * rowH;
    os << "<g><title>" << esc(t.signature) << "</title><text x=\"" << L - 6
       << "\" y=\"" << y + rowH / 2 + 4 << "\" text-anchor=\"end\">T"
       << rows[r].first + 1 << ' ' << esc(truncated(t.node, 32))
       << "</text><rect x=\"" << L << "\" y=\"" << y + 3 << "\" width=\""
       << num(ax.frac(s) * (R - L), 1) << "\" height=\"" << rowH - 6
       << "\" fill=\"" << (s > 1.0 ? "#2ca02c" : "#999") << "\"/><text x=\""
       << sx(s) << "\" dx=\"4\" y=\"" << y + rowH / 2 + 4 << "\">" << num(s, 2)
       << "&#215;</text></g>\n";
  }
  os << "<path d=\"M" << L << ' ' << T << "V" << B << "H" << R
     << "\" class=\"axis\" fill=\"none\"/>\n<line x1=\"" << sx(1) << "\" x2=\""
     << sx(1) << "\" y1=\"" << T - 4 << "\" y2=\"" << B
     << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\">"
     << "<title>1.0: as fast as the default</title></line>\n<text x=\""
     << (L + R) / 2 << "\" y=\"" << H - 6
     << "\" text-anchor=\"middle\">speed-up over the default (&#215;)</text>"
     << "\n</svg>\n";
}

/// First trial + 1 at which `trials` came within `limit`; 0 if never.
long long trialsToReach(const std::vector<Trial> &trials, double limit) {
  for (const auto &p : bestSoFar(trials))
    if (p.second <= limit)
      return (long long)p.first;
  return 0;
}

const char *kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1200px;
 padding:0 16px;color:#222}
h1{margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd}
h3{margin:24px 0 2px;font-size:15px}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top}
th{background:#f4f4f4;text-align:left}
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
/* Signatures and node names can be long without a space to break at. */
.sig,.w{overflow-wrap:anywhere}td.w{min-width:10em}
.sig{font-family:ui-monospace,monospace;font-size:12px}
td.sig{min-width:18em;max-width:30em}
.muted,.note{color:#777;fill:#777;font-size:11px}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 16px}
dt{font-weight:600}dd{margin:0}
svg.plot{display:block;font-size:12px}svg text{fill:#222}
svg text.note{fill:#777}
.grid{stroke:#e6e6e6}.axis{stroke:#444}
)css";

} // namespace

bool writeTuningReport(const std::string &dbPath, const std::string &htmlPath,
                       std::string &error) {
  sqlite3 *raw = nullptr;
  int rc = sqlite3_open_v2(dbPath.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3 *)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK) {
    error = "cannot open '" + dbPath +
            "': " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    return false;
  }
  // A foreign SQLite file (no `meta`) and a non-SQLite file both fail here.
  std::map<std::string, std::string> meta;
  {
    Stmt q(raw, "SELECT key, value FROM meta");
    while (q.step())
      meta[q.text(0)] = q.text(1);
    if (q.failed() || meta["format"] != kFormatName) {
      error = "'" + dbPath + "' is not a kiln tuning database";
      return false;
    }
  }
  if (std::atoi(meta["schema"].c_str()) > kSchemaVersion) {
    error = "'" + dbPath + "' has tuning database schema " + meta["schema"] +
            "; this kiln reads schema " + std::to_string(kSchemaVersion);
    return false;
  }
  auto readError = [&] {
    error = "cannot read '" + dbPath + "': " + sqlite3_errmsg(raw);
    return false;
  };

  std::vector<Task> tasks;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  {
    Stmt q(raw, "SELECT signature, target, device, kind, node, model FROM "
                "tasks ORDER BY rowid");
    while (q.step()) {
      Task t{q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5)};
      index[{t.signature, t.target, t.device}] = tasks.size();
      tasks.push_back(std::move(t));
    }
    if (q.failed())
      return readError();
  }
  std::map<std::string, int> statusCount;
  std::set<std::string> versions, searches, targets, devices;
  long long recordCount = 0;
  {
    // In-model checks are verdicts on candidates, not trials of a search.
    Stmt q(raw, "SELECT signature, target, device, search, trial, status, "
                "time_ns, kiln_version FROM records WHERE search != "
                "'in_model' ORDER BY trial");
    while (q.step()) {
      std::tuple<std::string, std::string, std::string> key{
          q.text(0), q.text(1), q.text(2)};
      auto it = index.find(key);
      if (it == index.end()) { // an orphan record still gets shown
        it = index.emplace(key, tasks.size()).first;
        tasks.push_back(Task{q.text(0), q.text(1), q.text(2), "?", "?", "?"});
      }
      Task &t = tasks[it->second];
      std::string search = q.text(3), status = q.text(5);
      bool ok = status == "ok" && !q.isNull(6);
      Trial tr{q.integer(4), ok, ok ? q.real(6) : NAN};
      t.bySearch[search].push_back(tr);
      if (ok && !(tr.ns >= t.bestNs))
        t.bestNs = tr.ns;
      if (ok && search == "default" && tr.trial == 0)
        t.defaultNs = tr.ns;
      t.rejected += status != "ok";
      ++statusCount[status];
      versions.insert(q.text(7));
      searches.insert(search);
      ++recordCount;
    }
    if (q.failed())
      return readError();
  }
  for (const Task &t : tasks) {
    targets.insert(t.target);
    devices.insert(t.device);
  }
  std::vector<std::string> tuned;
  for (const std::string &s : searches)
    if (s != "default")
      tuned.push_back(s);
  std::sort(tuned.begin(), tuned.end(), searchLess);

  auto joined = [](const std::set<std::string> &items) {
    std::string out;
    for (const std::string &s : items)
      out += (out.empty() ? "" : ", ") + esc(s);
    return out.empty() ? std::string("-") : out;
  };
  std::ostringstream os;
  os.imbue(std::locale::classic()); // no digit grouping in SVG coordinates
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
     << "<title>kiln tuning report</title>\n<style>" << kStyle
     << "</style></head>\n<body>\n<h1>kiln tuning report</h1>\n<dl>"
     << "<dt>database</dt><dd class=\"sig\">" << esc(dbPath) << "</dd>"
     << "<dt>targets</dt><dd>" << joined(targets) << "</dd>"
     << "<dt>devices</dt><dd>" << joined(devices) << "</dd>"
     << "<dt>kiln versions</dt><dd>" << joined(versions) << "</dd>"
     << "<dt>schema</dt><dd>" << esc(meta["schema"]) << "</dd>"
     << "<dt>tasks</dt><dd>" << tasks.size() << "</dd>"
     << "<dt>records</dt><dd>" << recordCount << "</dd><dt>by status</dt><dd>";
  // Known statuses first, in the order a candidate can fail.
  std::vector<std::string> statuses = {"ok", "wrong", "compile_error", "crash",
                                       "timeout"};
  for (const auto &entry : statusCount)
    if (std::find(statuses.begin(), statuses.end(), entry.first) ==
        statuses.end())
      statuses.push_back(entry.first);
  bool first = true;
  for (const std::string &s : statuses)
    if (statusCount.count(s)) {
      os << (first ? "" : " &#183; ") << esc(s) << ' ' << statusCount[s];
      first = false;
    }
  os << (first ? "-" : "") << "</dd></dl>\n";

  // The place a task was tuned for only needs a column when it varies.
  bool showPlace = targets.size() > 1 || devices.size() > 1;
  os << "<h2>Tasks</h2>\n<table><tr><th>#</th><th>signature</th><th>kind</th>"
     << "<th>node</th><th>model</th>"
     << (showPlace ? "<th>target / device</th>" : "") << "<th>default ("
     << kMicro << ")</th><th>best (" << kMicro << ")</th><th>speed-up</th>";
  for (const std::string &s : tuned)
    os << "<th>" << esc(s) << " trials</th>";
  os << "<th>rejected</th></tr>\n";
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task &t = tasks[i];
    double speedup = t.defaultNs / t.bestNs;
    os << "<tr><td class=\"n\"><a href=\"#task-" << i + 1 << "\">T" << i + 1
       << "</a></td><td class=\"sig\">" << esc(t.signature) << "</td><td>"
       << esc(t.kind) << "</td><td class=\"w\">" << esc(t.node)
       << "</td><td class=\"w\">" << esc(t.model) << "</td>";
    if (showPlace)
      os << "<td class=\"w\">" << esc(t.target) << " / " << esc(t.device)
         << "</td>";
    os << "<td class=\"n\">" << us(t.defaultNs) << "</td><td class=\"n\">"
       << us(t.bestNs) << "</td><td class=\"n\">"
       << (std::isnan(speedup) ? "-" : num(speedup, 2) + "&#215;") << "</td>";
    for (const std::string &s : tuned) {
      auto it = t.bySearch.find(s);
      os << "<td class=\"n\">"
         << (it == t.bySearch.end() ? 0 : it->second.size()) << "</td>";
    }
    os << "<td class=\"n\">" << t.rejected << "</td></tr>\n";
  }
  os << "</table>\n<h2>Speed-up over the default</h2>\n";
  speedupChart(os, tasks);

  // Only meaningful when the model-guided search has a baseline to beat.
  bool compare = std::any_of(tasks.begin(), tasks.end(), [](const Task &t) {
    return t.bySearch.count("model") && t.bySearch.count("random");
  });
  if (compare) {
    os << "<h2>Trials to come within 5 % of the best found</h2>\n<p "
       << "class=\"muted\">The first trial at which the best so far is at "
       << "most 1.05&#215; the task's best over all searches; - if never, "
       << "blank if the search did not run.</p>\n<table><tr><th>#</th>"
       << "<th>kind</th><th>node</th>";
    for (const std::string &s : tuned)
      os << "<th>" << esc(s) << "</th>";
    os << "</tr>\n";
    std::map<std::string, std::pair<int, int>> reached; // (reached, ran)
    for (size_t i = 0; i < tasks.size(); ++i) {
      const Task &t = tasks[i];
      os << "<tr><td class=\"n\">T" << i + 1 << "</td><td>" << esc(t.kind)
         << "</td><td class=\"w\">" << esc(t.node) << "</td>";
      for (const std::string &s : tuned) {
        auto it = t.bySearch.find(s);
        os << "<td class=\"n\">";
        if (it != t.bySearch.end()) {
          long long n = trialsToReach(it->second, 1.05 * t.bestNs);
          os << (n ? std::to_string(n) : "-");
          reached[s].first += n > 0;
          ++reached[s].second;
        }
        os << "</td>";
      }
      os << "</tr>\n";
    }
    os << "<tr><th colspan=\"3\">tasks that got there</th>";
    for (const std::string &s : tuned)
      os << "<th>" << reached[s].first << " / " << reached[s].second << "</th>";
    os << "</tr></table>\n";
  }

  os << "<h2>Best time so far against trial</h2>\n";
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task &t = tasks[i];
    os << "<section id=\"task-" << i + 1 << "\"><h3>T" << i + 1 << " &#183; "
       << esc(t.kind) << " &#183; " << esc(t.node) << " <span class=\"muted\">"
       << esc(t.model) << " &#183; " << esc(t.target) << " &#183; "
       << esc(t.device) << "</span></h3>\n<div class=\"sig\">"
       << esc(t.signature) << "</div>\n";
    trialPlot(os, t, int(i + 1));
    os << "</section>\n";
  }
  // Lets a headless browser test see that the page was parsed and drawn.
  os << "<script>document.body.dataset.rendered = "
        "document.querySelectorAll('svg').length;</script>\n</body></html>\n";

  std::ofstream out(htmlPath, std::ios::binary | std::ios::trunc);
  out << os.str();
  out.close();
  if (!out) {
    error = "cannot write '" + htmlPath + "'";
    return false;
  }
  return true;
}

} // namespace kiln::autotune
