//===- CostModel.cpp - A learned ranking of candidate schedules -----------===//

#include "autotune/CostModel.h"

#include <cmath>
#include <xgboost/c_api.h>

namespace kiln::autotune {

Features getCandidateFeatures(const Features &task,
                              const llvm::json::Object &schedule) {
  Features f = task;
  std::vector<std::string> keys;
  for (const auto &entry : schedule)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    const llvm::json::Value &v = *schedule.get(key);
    if (auto n = v.getAsNumber()) {
      f.emplace_back("s_" + key, *n);
    } else if (auto s = v.getAsString()) {
      // FNV-1a folded small: the same number for a name in every run.
      uint32_t h = 2166136261u;
      for (char c : *s)
        h = (h ^ (uint8_t)c) * 16777619u;
      f.emplace_back("s_" + key, h % 1024);
    }
  }
  return f;
}

static llvm::Error xgbError(llvm::StringRef what) {
  return llvm::createStringError("XGBoost " + what + ": " + XGBGetLastError());
}

CostModel::~CostModel() {
  if (booster)
    XGBoosterFree(booster);
}

std::vector<float> CostModel::toMatrix(llvm::ArrayRef<Features> rows) {
  std::vector<float> data(rows.size() * columns.size(), NAN);
  for (size_t r = 0; r < rows.size(); ++r)
    for (const auto &[name, value] : rows[r]) {
      auto it = columns.find(name);
      if (it != columns.end())
        data[r * columns.size() + it->second] = (float)value;
    }
  return data;
}

llvm::Error CostModel::train(llvm::ArrayRef<Features> rows,
                             llvm::ArrayRef<float> score,
                             llvm::ArrayRef<unsigned> groups) {
  if (booster) {
    XGBoosterFree(booster);
    booster = nullptr;
  }
  columns.clear();
  for (const Features &row : rows)
    for (const auto &entry : row)
      columns.try_emplace(entry.first, columns.size());
  if (rows.empty() || columns.empty())
    return llvm::createStringError("no training data");
  std::vector<float> data = toMatrix(rows);
  DMatrixHandle matrix;
  if (XGDMatrixCreateFromMat(data.data(), rows.size(), columns.size(), NAN,
                             &matrix))
    return xgbError("matrix");
  std::vector<unsigned> groupSizes(groups.begin(), groups.end());
  if (XGDMatrixSetFloatInfo(matrix, "label", score.data(), score.size()) ||
      XGDMatrixSetUIntInfo(matrix, "group", groupSizes.data(),
                           groupSizes.size())) {
    XGDMatrixFree(matrix);
    return xgbError("labels");
  }
  BoosterHandle handle;
  if (XGBoosterCreate(&matrix, 1, &handle)) {
    XGDMatrixFree(matrix);
    return xgbError("booster");
  }
  // AutoTVM's XGBTuner settings, one thread so that a sweep is repeatable.
  const std::pair<const char *, const char *> params[] = {
      {"objective", "rank:pairwise"},
      {"max_depth", "6"},
      {"eta", "0.3"},
      {"gamma", "0.0001"},
      {"min_child_weight", "1"},
      {"subsample", "1.0"},
      {"lambda", "1.0"},
      {"alpha", "0"},
      {"nthread", "1"},
      {"seed", "1"},
      {"verbosity", "0"}};
  for (auto [key, value] : params)
    if (XGBoosterSetParam(handle, key, value)) {
      XGBoosterFree(handle);
      XGDMatrixFree(matrix);
      return xgbError("parameters");
    }
  for (int iter = 0; iter < 60; ++iter)
    if (XGBoosterUpdateOneIter(handle, iter, matrix)) {
      XGBoosterFree(handle);
      XGDMatrixFree(matrix);
      return xgbError("training");
    }
  XGDMatrixFree(matrix);
  booster = handle;
  return llvm::Error::success();
}

llvm::Expected<std::vector<float>>
CostModel::predict(llvm::ArrayRef<Features> rows) {
  if (!booster)
    return llvm::createStringError("the cost model is not trained");
  if (rows.empty())
    return std::vector<float>();
  std::vector<float> data = toMatrix(rows);
  DMatrixHandle matrix;
  if (XGDMatrixCreateFromMat(data.data(), rows.size(), columns.size(), NAN,
                             &matrix))
    return xgbError("matrix");
  bst_ulong length = 0;
  const float *out = nullptr;
  int rc = XGBoosterPredict(booster, matrix, 0, 0, 0, &length, &out);
  std::vector<float> scores;
  if (!rc)
    scores.assign(out, out + length);
  XGDMatrixFree(matrix);
  if (rc)
    return xgbError("prediction");
  return scores;
}

} // namespace kiln::autotune
