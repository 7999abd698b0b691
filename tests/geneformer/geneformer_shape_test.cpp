// Geneformer's sizes, parameter and FLOP counts against docs/models.md, and the cells it reads.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "models/geneformer/cells.h"
#include "models/geneformer/counts.h"
#include "models/geneformer/ladder.h"
#include "models/geneformer/params.h"

namespace sb::geneformer {
namespace {

TEST(GeneformerShape, ParametersAndFlopsMatchModelsMd) {
  EXPECT_NEAR(Params::random(config_for("tiny"), 1).count() / 1e6, 0.15, 0.005);
  const Config full = config_for("full", 1);
  int64_t n = 0;
  for (const auto& s : param_specs(full)) {
    int64_t c = 1;
    for (int64_t d : s.shape) c *= d;
    n += c;
  }
  EXPECT_NEAR(n / 1e6, 10.2, 0.05);
  // 38.7 GFLOPs per cell at 2,048 tokens, two thirds of it attention.
  EXPECT_NEAR(layer_flops(full) * 6 / 1e9, 38.7, 0.05);
  const Config small = config_for("small");
  EXPECT_EQ(small.batch, 4);
  EXPECT_NEAR(layer_flops(small) * 6 / 1e9, 19.3, 0.05);
  EXPECT_NEAR(layer_flops(config_for("tiny")) * 2 / 1e9, 0.05, 0.005);
  EXPECT_EQ(full.embedding_layer(), 5);
  EXPECT_EQ(config_for("full", 64).batch, 64);
  EXPECT_THROW(config_for("huge"), std::invalid_argument);
}

TEST(GeneformerShape, CountsFollowTheStage) {
  const Config c = config_for("small");
  const WorkCounts eager = forward_counts(c, switches_for(kEager, Precision::bf16, false), 6);
  const WorkCounts engine = forward_counts(c, switches_for(kEngineFp32, Precision::bf16, false), 5);
  EXPECT_DOUBLE_EQ(engine.flops * 6, eager.flops * 5);
  EXPECT_LT(engine.bytes, eager.bytes);  // no materialized scores
  EXPECT_EQ(eager.items, 4);
  EXPECT_EQ(eager.item_name, "cells");
}

TEST(GeneformerCells, SyntheticCellsArePaddedRankLists) {
  const Config c = config_for("tiny");
  const Cells cells = synthetic_cells(c, 3, 7);
  ASSERT_EQ(cells.ids.size(), 3u * 128);
  EXPECT_EQ(cells.length(0), 128);  // the first cell is full
  int64_t padded = 0;
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t len = cells.length(b);
    EXPECT_GE(len, 64);
    std::set<int32_t> genes;
    for (int64_t t = 0; t < 128; ++t) {
      const int32_t id = cells.ids[b * 128 + t];
      if (t < len) {
        EXPECT_GE(id, 2);
        EXPECT_LT(id, c.vocab);
        genes.insert(id);
      } else {
        EXPECT_EQ(id, kPadId);
        EXPECT_EQ(cells.mask[b * 128 + t], 0.f);
      }
    }
    EXPECT_EQ(static_cast<int64_t>(genes.size()), len) << "genes repeat in a cell";
    padded += 128 - len;
  }
  EXPECT_GT(padded, 0);
  EXPECT_EQ(synthetic_cells(c, 3, 7).ids, cells.ids);  // seeded
}

// scripts/reference/test_synthetic_cells.py pins the same values for PyTorch's peer, which must
// pad its cells exactly as the run does.
TEST(GeneformerCells, SyntheticLengthsAreThePeersLengths) {
  const std::vector<int64_t> pinned_2048_seed2{1899, 1507, 1116, 1749};
  const std::vector<int64_t> pinned_512_seed7{498, 400, 302, 461};
  for (int64_t cell = 1; cell <= 4; ++cell) {
    EXPECT_EQ(synthetic_length(2048, 2, cell), pinned_2048_seed2[static_cast<size_t>(cell - 1)]);
    EXPECT_EQ(synthetic_length(512, 7, cell), pinned_512_seed7[static_cast<size_t>(cell - 1)]);
  }
  EXPECT_EQ(synthetic_length(2048, 2, 0), 2048);
  const Cells cells = synthetic_cells(config_for("tiny"), 5, 7);
  for (int64_t cell = 0; cell < 5; ++cell)
    EXPECT_EQ(cells.length(cell), synthetic_length(128, 7, cell));
}

TEST(GeneformerCells, DeletionShiftsTheRankList) {
  const Cells cells = synthetic_cells(config_for("tiny"), 2, 3);
  const Cells d = delete_gene(cells, 0, 5);
  ASSERT_EQ(d.batch, 1);
  EXPECT_EQ(d.length(0), cells.length(0) - 1);
  EXPECT_EQ(d.ids[4], cells.ids[4]);
  EXPECT_EQ(d.ids[5], cells.ids[6]);
  EXPECT_EQ(d.ids.back(), kPadId);
  EXPECT_THROW(delete_gene(cells, 0, 500), std::out_of_range);
  EXPECT_EQ(stack({d, select(cells, 1)}).batch, 2);
}

TEST(GeneformerCells, BadIdsAndMasksAreNamed) {
  try {
    cells_from_ids({5, 2000, 0, 0}, {}, 2, 2, 1024);
    FAIL() << "an id outside the vocabulary was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cell 0, position 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cells_from_ids({5, 6, 7}, {}, 2, 2, 1024), std::invalid_argument);
  EXPECT_THROW(cells_from_ids({5, 6, 7, 0}, {1, 1, 0.5f, 0}, 2, 2, 1024), std::invalid_argument);
  const Cells ok = cells_from_ids({5, 6, 7, 0}, {}, 2, 2, 1024);
  EXPECT_EQ(ok.length(1), 1);  // id 0 is padding without a mask
}

// A cell of zero tokens or of padding only ran, and its embedding came out all zeros (issue 29).
TEST(GeneformerCells, EmptyAndAllPaddingCellsAreRefused) {
  const auto message = [](std::vector<int32_t> ids, std::vector<float> mask, int64_t batch,
                          int64_t tokens) -> std::string {
    try {
      cells_from_ids(std::move(ids), std::move(mask), batch, tokens, 1024);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message({}, {}, 1, 0).find("1 cells of 0 tokens: there must be at least one cell"),
            std::string::npos);
  EXPECT_NE(message({}, {}, 0, 8).find("0 cells of 8 tokens"), std::string::npos);
  EXPECT_NE(message({5, 6, 0, 0}, {}, 2, 2).find("cell 1 is all padding"), std::string::npos)
      << message({5, 6, 0, 0}, {}, 2, 2);
  EXPECT_NE(message({5, 6, 7, 8}, {0, 0, 1, 1}, 2, 2).find("cell 0 is all padding"),
            std::string::npos)
      << "a mask of zeros pads genes too";
  EXPECT_EQ(message({5, 0, 0, 7}, {}, 2, 2), "accepted");
}

}  // namespace
}  // namespace sb::geneformer
