//===- Einsum.cpp - ONNX Einsum equations ---------------------------------===//

#include "dialects/graph/Einsum.h"
#include "dialects/graph/ShapeInference.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;

namespace kiln::graph {

namespace {
/// One side of an equation term: its letters, and where "..." stands.
struct Term {
  std::string letters;
  int ellipsisAt = -1; // position among the letters, -1 if none
};

FailureOr<Term> parseTerm(std::optional<Location> loc, StringRef s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i).starts_with("...")) {
      if (t.ellipsisAt >= 0)
        return emitOptionalError(loc, "more than one '...' in a term");
      t.ellipsisAt = int(t.letters.size());
      i += 2;
      continue;
    }
    if (!llvm::isAlpha(s[i]))
      return emitOptionalError(loc, "unexpected '", std::string(1, s[i]),
                               "' in the equation");
    t.letters.push_back(s[i]);
  }
  return t;
}
} // namespace

FailureOr<EinsumSpec> parseEinsum(std::optional<Location> loc,
                                  StringRef equation, ArrayRef<int64_t> ranks) {
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq.push_back(c);
  StringRef lhs = eq, rhs;
  bool explicitOutput = false;
  if (size_t arrow = lhs.find("->"); arrow != StringRef::npos) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    explicitOutput = true;
  }
  SmallVector<StringRef> parts;
  lhs.split(parts, ',');
  if (parts.size() != ranks.size())
    return emitOptionalError(loc, "the equation has ", parts.size(),
                             " input terms for ", ranks.size(), " inputs");
  SmallVector<Term> terms;
  int64_t ellipsisRank = 0;
  for (auto [part, rank] : llvm::zip(parts, ranks)) {
    FailureOr<Term> t = parseTerm(loc, part);
    if (failed(t))
      return failure();
    int64_t e = rank - int64_t(t->letters.size());
    if (e < 0 || (e > 0 && t->ellipsisAt < 0))
      return emitOptionalError(loc, "term '", part, "' does not fit rank ",
                               rank);
    ellipsisRank = std::max(ellipsisRank, e);
    terms.push_back(*t);
  }

  // Labels: the ellipsis dims first, then letters in alphabetical order.
  EinsumSpec spec;
  std::map<char, int> letterCount;
  for (const Term &t : terms)
    for (char c : t.letters)
      ++letterCount[c];
  std::map<char, unsigned> label;
  unsigned next = unsigned(ellipsisRank);
  for (auto &[c, n] : letterCount)
    label[c] = next++;
  spec.numLabels = next;

  for (auto [t, rank] : llvm::zip(terms, ranks)) {
    int64_t e = rank - int64_t(t.letters.size());
    SmallVector<unsigned> dims;
    for (int i = 0, n = int(t.letters.size()); i <= n; ++i) {
      if (i == t.ellipsisAt)
        for (int64_t k = ellipsisRank - e; k < ellipsisRank; ++k)
          dims.push_back(unsigned(k));
      if (i < n)
        dims.push_back(label[t.letters[i]]);
    }
    spec.inputs.push_back(dims);
  }

  if (!explicitOutput) {
    for (int64_t k = 0; k < ellipsisRank; ++k)
      spec.output.push_back(unsigned(k));
    for (auto &[c, n] : letterCount)
      if (n == 1)
        spec.output.push_back(label[c]);
    return spec;
  }
  FailureOr<Term> out = parseTerm(loc, rhs);
  if (failed(out))
    return failure();
  std::string seen;
  for (int i = 0, n = int(out->letters.size()); i <= n; ++i) {
    if (i == out->ellipsisAt)
      for (int64_t k = 0; k < ellipsisRank; ++k)
        spec.output.push_back(unsigned(k));
    if (i == n)
      break;
    char c = out->letters[i];
    if (!label.count(c))
      return emitOptionalError(loc, "output label '", std::string(1, c),
                               "' is not in any input");
    if (seen.find(c) != std::string::npos)
      return emitOptionalError(loc, "output label '", std::string(1, c),
                               "' repeats");
    seen.push_back(c);
    spec.output.push_back(label[c]);
  }
  if (out->ellipsisAt < 0 && ellipsisRank > 0)
    return emitOptionalError(loc, "inputs have '...' dims but the output "
                                  "does not");
  return spec;
}

FailureOr<SmallVector<int64_t>>
getEinsumExtents(Loc loc, ValueRange operands,
                 ArrayRef<SmallVector<unsigned>> inputs, unsigned numLabels) {
  constexpr int64_t kUnset = -2;
  SmallVector<int64_t> extent(numLabels, kUnset);
  for (auto [v, dims] : llvm::zip(operands, inputs)) {
    auto t = cast<RankedTensorType>(v.getType());
    for (auto [i, l] : llvm::enumerate(dims)) {
      int64_t d = t.getDimSize(i);
      int64_t &e = extent[l];
      if (e == kUnset || e == 1 || (ShapedType::isDynamic(e) && d != 1))
        e = d;
      else if (d != 1 && !ShapedType::isDynamic(d) && d != e)
        return emitOptionalError(loc, "einsum label extents ", e, " and ", d,
                                 " differ");
    }
  }
  for (int64_t &e : extent)
    if (e == kUnset)
      e = 1;
  return extent;
}

LogicalResult inferEinsum(Loc loc, EinsumOp::Adaptor op, Types &types) {
  ValueRange inputs = op.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "Einsum needs at least one input");
  Type elt = getElementTypeOrSelf(inputs[0].getType());
  SmallVector<int64_t> ranks;
  for (Value v : inputs) {
    auto t = rankedOrNull(v);
    if (!t) {
      types.push_back(UnrankedTensorType::get(elt));
      return success();
    }
    if (getElementTypeOrSelf(v.getType()) != elt)
      return emitOptionalError(loc, "Einsum inputs must share a type");
    ranks.push_back(t.getRank());
  }
  FailureOr<EinsumSpec> spec = parseEinsum(loc, op.getEquation(), ranks);
  if (failed(spec))
    return failure();
  auto extent = getEinsumExtents(loc, inputs, spec->inputs, spec->numLabels);
  if (failed(extent))
    return failure();
  SmallVector<int64_t> shape;
  for (unsigned l : spec->output)
    shape.push_back((*extent)[l]);
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

} // namespace kiln::graph
