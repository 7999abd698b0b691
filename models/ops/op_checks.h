#pragma once
// The checks the op fronts (backend.cpp) are written with. Each throws std::invalid_argument
// "<op>: <what>" naming the shapes; none builds a message unless it fails, so a valid call
// costs a few comparisons.
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "models/ops/op_names.h"
#include "models/ops/op_types.h"
#include "models/ops/tensor.h"

namespace sb::checks {

[[noreturn]] void fail(Op op, const std::string& what);

// A number as the messages write it.
inline std::string text(int64_t v) {
  return std::to_string(v);
}

// An optional operand with its name, for checks that loop over several.
using Named = std::pair<const char*, const Tensor*>;

// "what [2,3]", or "what <undefined>".
std::string describe(const char* what, const Tensor& t);

// Defined, of dtype `dtype`.
void expect_dtype(Op op, const char* what, const Tensor& t, DType dtype);
inline void expect_f32(Op op, const char* what, const Tensor& t) {
  expect_dtype(op, what, t, DType::f32);
}
// f32 with exactly `numel` elements ("<what> [..] is not <expected>" on failure).
void expect_f32_numel(Op op, const char* what, const Tensor& t, int64_t numel,
                      const char* expected);
// f32 of rank `rank` ("<what> [..] is not <expected>" on failure).
void expect_f32_rank(Op op, const char* what, const Tensor& t, int rank, const char* expected);
// At least one dimension; returns the last ("channels").
int64_t expect_channels(Op op, const char* what, const Tensor& t);
// The two tensors do not share storage.
void expect_distinct(Op op, const char* out_what, const Tensor& out, const char* in_what,
                     const Tensor& in);
// The product of every dimension but the last (the rows of a [rows, C] view).
int64_t leading_rows(const Tensor& t);

// The weight gradients of a convolution's backward: dw and dbias ([out], or null) written
// from x and dy, so neither may share storage with them or with each other.
void expect_weight_gradients(Op op, const Tensor& x, const Tensor& dy, const Tensor& dw,
                             const Tensor* dbias, int64_t out_channels);

// A known activation; eps >= 0.
// A 3-D layout as its dimension order, for messages: "[N, C, d, h, w]".
const char* layout_text(Layout3d l);

void expect_act(Op op, Act act);
void expect_eps(Op op, float eps);
// Where an id outside the table sits: "id 11 at position 6 (item 1, token 2)".
std::string id_at(int32_t id, int64_t at, int64_t seq);
// The range upload_ids/write_ids recorded for i32 ids of any shape (of at least one id).
const IdRange& recorded_ids(Op op, const char* what, const Tensor& ids);
// The min/max of a host range of ids (at least one), with their positions.
IdRange id_range(std::span<const int32_t> host);
// Token ids [B, S] inside a table of `vocab` rows.
void expect_ids_inside(Op op, const Tensor& ids, int64_t vocab, int64_t seq);

}  // namespace sb::checks
