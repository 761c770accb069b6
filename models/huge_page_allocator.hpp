#pragma once
// An allocator for the few arrays that grow to hundreds of megabytes (a rank's op list, the
// replay index's per-op arrays on a 3072-GPU row): a request of at least
// kHugePageMinimumRequest bytes is aligned to 2 MiB and marked MADV_HUGEPAGE, so that the
// kernel backs it with transparent huge pages where it runs them in `madvise` mode (the
// usual default). Each first touch then maps 2 MiB instead of 4 KiB (512x fewer page
// faults) and the replay's scattered reads miss the TLB less. Smaller requests, and every
// request where madvise is not available, behave as std::allocator's.
//
// Stateless: every instance is equal, so containers move and swap storage freely.

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace trainsim {

/// Alignment of a transparent huge page on x86-64 and most AArch64 kernels.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
/// Below this, the rounding up to whole huge pages wastes too large a share and the page
/// faults saved are few.
inline constexpr std::size_t kHugePageMinimumRequest = std::size_t{8} << 20;

template <class T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() noexcept = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (!is_large(n)) return std::allocator<T>{}.allocate(n);
    if (n > static_cast<std::size_t>(-1) / sizeof(T) - kHugePageBytes) {
      throw std::bad_array_new_length();
    }
    const std::size_t bytes = rounded_bytes(n);
    void* p = ::operator new (bytes, std::align_val_t{kHugePageBytes});
#if defined(MADV_HUGEPAGE)
    // Advice only: a kernel without THP (or with it off) refuses it, and the memory stays
    // ordinary pages.
    ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (!is_large(n)) {
      std::allocator<T>{}.deallocate(p, n);
      return;
    }
    ::operator delete (p, rounded_bytes(n), std::align_val_t{kHugePageBytes});
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) noexcept {
    return true;
  }

 private:
  // Decided from the element count alone, so deallocate takes the path allocate took.
  static bool is_large(std::size_t n) noexcept {
#if defined(MADV_HUGEPAGE)
    return n >= kHugePageMinimumRequest / sizeof(T);
#else
    (void)n;
    return false;
#endif
  }
  static std::size_t rounded_bytes(std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
};

/// A vector that may grow to hundreds of megabytes.
template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace trainsim
