#pragma once
// Allocates, writes every page of, and frees `bytes` in a way the optimizer cannot remove.
#include <cstddef>
#include <cstring>
#include <memory>

namespace sb::testing {

inline void touch_fresh_memory(size_t bytes) {
  std::unique_ptr<char[]> block(new char[bytes]);
  std::memset(block.get(), 1, bytes);
  asm volatile("" : : "r"(block.get()) : "memory");
}

}  // namespace sb::testing
