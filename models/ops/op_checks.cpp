#include "models/ops/op_checks.h"

#include <stdexcept>

namespace sb::checks {

void fail(Op op, const std::string& what) {
  throw std::invalid_argument(std::string(op_name(op)) + ": " + what);
}

std::string describe(const char* what, const Tensor& t) {
  return std::string(what) + " " + (t.defined() ? t.shape_string() : "<undefined>");
}

void expect_dtype(Op op, const char* what, const Tensor& t, DType dtype) {
  if (!t.defined()) fail(op, std::string(what) + " is undefined");
  if (t.dtype() != dtype)
    fail(op,
         describe(what, t) + " must be " + dtype_name(dtype) + ", got " + dtype_name(t.dtype()));
}

void expect_f32_numel(Op op, const char* what, const Tensor& t, int64_t numel,
                      const char* expected) {
  expect_f32(op, what, t);
  if (t.numel() != numel)
    fail(op,
         describe(what, t) + " is not " + expected + " (" + std::to_string(numel) + " elements)");
}

void expect_f32_rank(Op op, const char* what, const Tensor& t, int rank, const char* expected) {
  expect_f32(op, what, t);
  if (t.rank() != rank) fail(op, describe(what, t) + " is not " + expected);
}

int64_t expect_channels(Op op, const char* what, const Tensor& t) {
  if (t.rank() < 1) fail(op, describe(what, t) + " has no last dimension");
  return t.dim(-1);
}

void expect_distinct(Op op, const char* out_what, const Tensor& out, const char* in_what,
                     const Tensor& in) {
  if (out.storage() != nullptr && out.storage() == in.storage())
    fail(op, std::string(out_what) + " must not be " + in_what);
}

int64_t leading_rows(const Tensor& t) {
  int64_t rows = 1;
  for (int i = 0; i + 1 < t.rank(); ++i) rows *= t.dim(i);
  return rows;
}

void expect_weight_gradients(Op op, const Tensor& x, const Tensor& dy, const Tensor& dw,
                             const Tensor* dbias, int64_t out_channels) {
  expect_distinct(op, "dw", dw, "the input", x);
  expect_distinct(op, "dw", dw, "dy", dy);
  if (dbias == nullptr) return;
  expect_f32_numel(op, "dbias", *dbias, out_channels, "[out]");
  expect_distinct(op, "dbias", *dbias, "the input", x);
  expect_distinct(op, "dbias", *dbias, "dy", dy);
  expect_distinct(op, "dbias", *dbias, "dw", dw);
}

}  // namespace sb::checks
