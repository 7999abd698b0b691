// Seed 004's table (reports/frames_table.h): changes over the last row with a claim, claimed
// changes from the cumulative claims of the same rows, and nothing for runs without inference.
#include <gtest/gtest.h>

#include "reports/frames_table.h"

namespace sb {
namespace {

StageRow row(int index, const std::string& id, double train, double infer, double claim,
             double infer_claim, double bytes) {
  StageRow s;
  s.index = index, s.id = id, s.items_per_s = train, s.item_name = "volumes";
  s.train.infer_fps = infer, s.claim_speedup = claim, s.train.infer_claim = infer_claim;
  s.device_peak_bytes = bytes;
  return s;
}

RunSummary seed_like_run() {
  RunSummary run;
  run.mode = "train";
  run.stages = {row(0, "baseline", 2.0, 8.0, 1.0, 1.0, 18e9),
                row(1, "bf16-mixed", NAN, NAN, 1.5, 1.5, NAN),  // skipped: no row
                row(2, "channels-last", 4.0, 12.0, 1.8, 1.8, 14e9),
                row(5, "gradient-checkpointing", 3.0, 12.0, NAN, NAN, 7e9),
                row(7, "dataloader", 4.4, 13.2, 2.7, 2.7, 14e9)};
  return run;
}

TEST(FramesTable, ChangesOverTheLastRowWithAClaim) {
  const auto rows = frames_table_rows(seed_like_run());
  ASSERT_EQ(rows.size(), 4u);  // the skipped stage has no row
  EXPECT_EQ(rows[0], (std::vector<std::string>{"0", "baseline", "2.00", "", "8.00", "", "18000"}));
  // Over the baseline, measured and claimed alike (the skipped stage's claim folds in).
  EXPECT_EQ(rows[1][2], "4.00 (+100%)");
  EXPECT_EQ(rows[1][3], "+80%");
  EXPECT_EQ(rows[1][4], "12.0 (+50%)");
  // Checkpointing has no claim: compared with the row before it, and not a base itself.
  EXPECT_EQ(rows[2][2], "3.00 (-25%)");
  EXPECT_EQ(rows[2][3], "");
  EXPECT_EQ(rows[3][2], "4.40 (+10%)");
  EXPECT_EQ(rows[3][3], "+50%");
  EXPECT_EQ(rows[3][6], "14000");
  EXPECT_EQ(frames_table_header(seed_like_run())[2], "training volumes/s");
  EXPECT_NE(frames_table_text(seed_like_run()).find("#### Training and inference"),
            std::string::npos);
}

TEST(FramesTable, NoneWithoutInferenceFigures) {
  RunSummary run;
  run.stages = {row(0, "baseline", 2.0, NAN, 1.0, NAN, 1e9)};
  EXPECT_TRUE(frames_table_rows(run).empty());
  EXPECT_EQ(frames_table_text(run), "");
}

}  // namespace
}  // namespace sb
