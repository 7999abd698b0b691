#include <gtest/gtest.h>

#include <thread>

#include "collectors/wall_clock.h"

namespace sb {
namespace {

TEST(WallClock, TimesASleep) {
  WallClock wall;
  wall.begin_stage({});
  EXPECT_EQ(wall.last_ns(), 0u);
  wall.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  wall.stop();
  EXPECT_GE(wall.last_ns(), 20'000'000u);
  wall.start();
  wall.stop();
  ASSERT_EQ(wall.samples_ns().size(), 2u);
  EXPECT_EQ(wall.samples_ns().back(), wall.last_ns());
  wall.begin_stage({});
  EXPECT_TRUE(wall.samples_ns().empty());
}

}  // namespace
}  // namespace sb
