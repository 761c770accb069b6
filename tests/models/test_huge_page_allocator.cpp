#include "models/huge_page_allocator.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>

using trainsim::BigVector;
using trainsim::HugePageAllocator;
using trainsim::kHugePageBytes;
using trainsim::kHugePageMinimumRequest;

namespace {

bool huge_page_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes == 0;
}

}  // namespace

TEST_CASE("a large request is aligned to a huge page where madvise exists") {
  HugePageAllocator<std::int32_t> a;
  const std::size_t n = kHugePageMinimumRequest / sizeof(std::int32_t) + 3;
  std::int32_t* p = a.allocate(n);
#if defined(MADV_HUGEPAGE)
  CHECK(huge_page_aligned(p));
#endif
  p[0] = 1;
  p[n - 1] = 2;  // the whole request is usable
  CHECK(p[0] + p[n - 1] == 3);
  a.deallocate(p, n);
}

TEST_CASE("a vector keeps its elements while it grows past the huge-page threshold") {
  BigVector<std::int64_t> v;
  const std::size_t n = 2 * kHugePageMinimumRequest / sizeof(std::int64_t);
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(static_cast<std::int64_t>(i));
  REQUIRE(v.size() == n);
  std::int64_t expected = 0;
  for (std::size_t i = 0; i < n; ++i)
    expected += static_cast<std::int64_t>(i);
  CHECK(std::accumulate(v.begin(), v.end(), std::int64_t{0}) == expected);
#if defined(MADV_HUGEPAGE)
  CHECK(huge_page_aligned(v.data()));
#endif

  // Small vectors take std::allocator's path and behave as usual.
  BigVector<std::int64_t> small{1, 2, 3};
  BigVector<std::int64_t> moved = std::move(v);
  CHECK(moved.size() == n);
  small.swap(moved);
  CHECK(small.size() == n);
  CHECK(moved == BigVector<std::int64_t>{1, 2, 3});
}

TEST_CASE("a request too large to round up is refused") {
  HugePageAllocator<std::int64_t> a;
  CHECK_THROWS_AS((void)a.allocate(static_cast<std::size_t>(-1) / sizeof(std::int64_t)),
                  std::bad_array_new_length);
}
