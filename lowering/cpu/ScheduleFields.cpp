//===- ScheduleFields.cpp - Editable CPU schedules and block sizes --------===//

#include "lowering/cpu/ScheduleFields.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln::cpu {

LogicalResult parseSchedules(StringRef text, StringRef path,
                             ScheduleOverrides &overrides, std::string &error) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error = path.str() + " is not JSON: " + llvm::toString(json.takeError());
    return failure();
  }
  llvm::json::Object *ops = json->getAsObject();
  if (!ops) {
    error = path.str() + " must hold an object keyed by op (node name, "
                         "node#fingerprint or fingerprint)";
    return failure();
  }
  for (auto &[key, value] : *ops) {
    llvm::json::Object *fields = value.getAsObject();
    if (!fields) {
      error = path.str() + ": entry '" + key.str() +
              "' must be an object of schedule fields";
      return failure();
    }
    for (auto &entry : *fields) {
      StringRef name = entry.first;
      const llvm::json::Value &field = entry.second;
      bool known = name == "strategy" ||
                   llvm::any_of(ScheduleFields::integers(),
                                [&](auto f) { return f.first == name; });
      if (!known) {
        std::string names = "strategy";
        for (auto f : ScheduleFields::integers())
          names += ", " + f.first.str();
        error = path.str() + ": entry '" + key.str() + "': unknown key '" +
                name.str() + "' (known: " + names + ")";
        return failure();
      }
      if (name == "strategy" ? !field.getAsString() : !field.getAsInteger()) {
        error = path.str() + ": entry '" + key.str() + "': '" + name.str() +
                "' must be " + (name == "strategy" ? "a string" : "an integer");
        return failure();
      }
    }
    // A later source's entry for the same op adds to an earlier one's.
    for (auto &entry : *fields)
      overrides[key][entry.first] = std::move(entry.second);
  }
  return success();
}

void applyOverride(ScheduleFields &f, const llvm::json::Object &entry) {
  for (auto &[name, value] : entry) {
    if (name == "strategy") {
      f.strategy = value.getAsString()->str();
      continue;
    }
    for (auto [key, field] : ScheduleFields::integers())
      if (key == name.str())
        f.*field = *value.getAsInteger();
  }
}

int64_t evenRowBlocks(int64_t m, int64_t n, const ScheduleFields &f) {
  if (m <= f.tileM || f.regM <= 0)
    return f.tileM;
  int64_t columns = std::max<int64_t>(n / std::max<int64_t>(f.tileN, 1), 1);
  auto cost = [&](int64_t tile) {
    int64_t whole = m / tile, rest = m - whole * tile, total = 0;
    for (int64_t t : {2, 4})
      total += llvm::divideCeil(whole * columns, t) * tile +
               llvm::divideCeil(columns, t) * rest;
    return total;
  };
  int64_t best = f.tileM, bestCost = cost(f.tileM);
  for (int64_t tile = f.tileM - f.regM; tile >= 8 * f.regM; tile -= f.regM)
    if (int64_t c = cost(tile); 20 * c <= 19 * bestCost) {
      best = tile;
      bestCost = c;
    }
  return best;
}

int64_t wholeBlockTile(int64_t size, int64_t tile, int64_t reg, int64_t least) {
  if (size <= tile || reg <= 0)
    return tile;
  // As many blocks, of equal size (192 rows: two of 96).
  int64_t blocks = llvm::divideCeil(size, tile);
  int64_t equal = llvm::alignTo(llvm::divideCeil(size, blocks), reg);
  if (size % equal == 0)
    return equal;
  int64_t tiles = size / reg;
  for (int64_t j = tile / reg; j >= std::max<int64_t>(least, 2); --j)
    if (tiles % j == 0)
      return j * reg;
  return tile;
}

} // namespace kiln::cpu
