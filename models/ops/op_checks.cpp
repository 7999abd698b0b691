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

const char* layout_text(Layout3d l) {
  return l == Layout3d::ncdhw ? "[N, C, d, h, w]" : "[N, d, h, w, C]";
}

void expect_act(Op op, Act act) {
  if (act != Act::none && act != Act::relu && act != Act::gelu && act != Act::softplus &&
      act != Act::gelu_erf && act != Act::leaky_relu && act != Act::sigmoid)
    fail(op, "unknown activation " + text(static_cast<int>(act)));
}

void expect_eps(Op op, float eps) {
  if (!(eps >= 0.0f)) fail(op, "eps = " + std::to_string(eps) + " must be >= 0");
}

// Where an id outside the table sits: "id 11 at position 6 (item 1, token 2)".
std::string id_at(int32_t id, int64_t at, int64_t seq) {
  return "id " + text(id) + " at position " + text(at) + " (item " + text(at / seq) + ", token " +
         text(at % seq) + ")";
}

// The range upload_ids/write_ids recorded for i32 ids of any shape (of at least one id).
const IdRange& recorded_ids(Op op, const char* what, const Tensor& ids) {
  const std::optional<IdRange>& r = ids.storage()->ids;
  if (!r)
    fail(op,
         describe(what, ids) + " were not made by upload_ids or write_ids: their range is unknown");
  return *r;
}

// The min/max of a host range of ids, with their positions.
IdRange id_range(std::span<const int32_t> host) {
  IdRange r{host[0], host[0], 0, 0};
  for (size_t i = 1; i < host.size(); ++i) {
    if (host[i] < r.lo) {
      r.lo = host[i];
      r.lo_at = static_cast<int64_t>(i);
    }
    if (host[i] > r.hi) {
      r.hi = host[i];
      r.hi_at = static_cast<int64_t>(i);
    }
  }
  return r;
}

// Token ids [B, S] inside a table of `vocab` rows.
void expect_ids_inside(Op op, const Tensor& ids, int64_t vocab, int64_t seq) {
  const IdRange& r = recorded_ids(op, "ids", ids);
  if (r.lo < 0 || r.hi >= vocab) {
    const bool low = r.lo < 0;
    fail(op, id_at(low ? r.lo : r.hi, low ? r.lo_at : r.hi_at, seq) + " is outside the table's " +
                 text(vocab) + " rows");
  }
}

}  // namespace sb::checks
