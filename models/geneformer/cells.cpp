#include "models/geneformer/cells.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace sb::geneformer {

int64_t Cells::length(int64_t cell) const {
  int64_t n = 0;
  for (int64_t t = 0; t < tokens; ++t) n += mask[cell * tokens + t] > 0.5f;
  return n;
}

int64_t synthetic_length(int64_t tokens, uint64_t seed, int64_t cell) {
  if (cell == 0) return tokens;
  // (cell + seed) * 2^64 / golden ratio, mod 2^64: a fraction in [0, 1) scaled to the range
  const uint64_t weyl = (static_cast<uint64_t>(cell) + seed) * 0x9E3779B97F4A7C15ull;
  const int64_t shortest = tokens / 2;
  const auto range = static_cast<uint64_t>(tokens - shortest + 1);  // < 2^32
  // weyl * range / 2^64 in two 32-bit halves, without a 128-bit type
  const uint64_t scaled = ((weyl >> 32) * range + (((weyl & 0xFFFFFFFFull) * range) >> 32)) >> 32;
  return shortest + static_cast<int64_t>(scaled);
}

Cells synthetic_cells(const Config& c, int64_t batch, uint64_t seed) {
  if (c.vocab - 2 < c.tokens)
    throw std::invalid_argument("geneformer: vocabulary too small for distinct genes per cell");
  std::mt19937_64 rng(seed);
  Cells out{batch, c.tokens, std::vector<int32_t>(static_cast<size_t>(batch * c.tokens), kPadId),
            std::vector<float>(static_cast<size_t>(batch * c.tokens), 0.f)};
  std::vector<int32_t> genes(static_cast<size_t>(c.vocab - 2));
  std::iota(genes.begin(), genes.end(), 2);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = synthetic_length(c.tokens, seed, b);
    for (int64_t t = 0; t < n; ++t) {  // partial Fisher-Yates: n distinct genes in rank order
      std::uniform_int_distribution<size_t> pick(static_cast<size_t>(t), genes.size() - 1);
      std::swap(genes[static_cast<size_t>(t)], genes[pick(rng)]);
      out.ids[b * c.tokens + t] = genes[static_cast<size_t>(t)];
      out.mask[b * c.tokens + t] = 1.f;
    }
  }
  return out;
}

Cells cells_from_ids(std::vector<int32_t> ids, std::vector<float> mask, int64_t batch,
                     int64_t tokens, int64_t vocab) {
  // No cell, or cells of no token, leave nothing to compute: the run printed a shape of 0 and
  // wrote empty outputs.
  if (batch < 1 || tokens < 1)
    throw std::invalid_argument("geneformer: " + std::to_string(batch) + " cells of " +
                                std::to_string(tokens) +
                                " tokens: there must be at least one cell of at least one token");
  const size_t count = static_cast<size_t>(batch * tokens);
  if (ids.size() != count)
    throw std::invalid_argument("geneformer: " + std::to_string(ids.size()) +
                                " token ids are not batch x tokens = " + std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab)
      throw std::invalid_argument("geneformer: token id " + std::to_string(ids[i]) + " at cell " +
                                  std::to_string(i / tokens) + ", position " +
                                  std::to_string(i % tokens) + " is outside the vocabulary [0, " +
                                  std::to_string(vocab) + ")");
  }
  if (mask.empty()) {
    mask.resize(count);
    for (size_t i = 0; i < count; ++i) mask[i] = ids[i] == kPadId ? 0.f : 1.f;
  } else if (mask.size() != count) {
    throw std::invalid_argument("geneformer: attention mask of " + std::to_string(mask.size()) +
                                " values does not match the " + std::to_string(count) +
                                " token ids");
  }
  for (size_t i = 0; i < count; ++i) {
    if (mask[i] != 0.f && mask[i] != 1.f)
      throw std::invalid_argument("geneformer: attention mask value " + std::to_string(mask[i]) +
                                  " at cell " + std::to_string(i / tokens) + ", position " +
                                  std::to_string(i % tokens) + " is not 0 or 1");
  }
  // A cell of padding only has no gene to attend to or to pool: its embedding came out all
  // zeros, which no model computes. Refused, naming the cell.
  for (int64_t cell = 0; cell < batch; ++cell) {
    const auto first = mask.begin() + cell * tokens;
    if (std::find(first, first + tokens, 1.f) == first + tokens)
      throw std::invalid_argument(
          "geneformer: cell " + std::to_string(cell) + " is all padding (" +
          std::to_string(tokens) +
          " tokens, none a gene: id 0 or attention mask 0); each cell needs a gene token");
  }
  return {batch, tokens, std::move(ids), std::move(mask)};
}

Cells delete_gene(const Cells& c, int64_t cell, int64_t position) {
  if (cell < 0 || cell >= c.batch || position < 0 || position >= c.length(cell))
    throw std::out_of_range("geneformer: no gene at cell " + std::to_string(cell) + ", position " +
                            std::to_string(position));
  Cells out{1, c.tokens, {}, {}};
  const auto* ids = c.ids.data() + cell * c.tokens;
  const auto* mask = c.mask.data() + cell * c.tokens;
  for (int64_t t = 0; t < c.tokens; ++t) {
    if (t == position) continue;
    out.ids.push_back(ids[t]);
    out.mask.push_back(mask[t]);
  }
  out.ids.push_back(kPadId);
  out.mask.push_back(0.f);
  return out;
}

Cells select(const Cells& c, int64_t cell) {
  if (cell < 0 || cell >= c.batch)
    throw std::out_of_range("geneformer: no cell " + std::to_string(cell));
  const auto first = cell * c.tokens, last = (cell + 1) * c.tokens;
  return {1,
          c.tokens,
          {c.ids.begin() + first, c.ids.begin() + last},
          {c.mask.begin() + first, c.mask.begin() + last}};
}

Cells stack(const std::vector<Cells>& parts) {
  Cells out;
  if (parts.empty()) return out;
  out.tokens = parts.front().tokens;
  for (const auto& p : parts) {
    if (p.tokens != out.tokens) throw std::invalid_argument("geneformer: stacking unequal lengths");
    out.batch += p.batch;
    out.ids.insert(out.ids.end(), p.ids.begin(), p.ids.end());
    out.mask.insert(out.mask.end(), p.mask.begin(), p.mask.end());
  }
  return out;
}

DeviceCells upload(Backend& be, const Cells& c) {
  std::vector<float> bias(c.mask.size());
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = c.mask[i] > 0.5f ? 0.f : kMaskedLogit;
  return {be.upload_ids(c.ids, {c.batch, c.tokens}), be.upload(bias, {c.batch, c.tokens}),
          be.upload(c.mask, {c.batch, c.tokens})};
}

}  // namespace sb::geneformer
