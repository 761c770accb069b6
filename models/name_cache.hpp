#pragma once
// The meta backend interns an op's name for each of the ~10^7 ops of a large Program, and the
// NameTable's lookup (hash the text, find the bucket, compare) was a sixth of recording one.
// Nearly every name comes from a handful of call sites, as a literal or a string built in the
// same stack slot each layer, so the same (address, length) recurs: this direct-mapped cache
// answers those from the address, confirming the text, and asks the table otherwise. The
// confirmation makes it exact: a slot reused for another name of the same length misses.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "models/program.hpp"

namespace trainsim {

class NameCache {
 public:
  explicit NameCache(program::NameTable& names) : names_(names) {}

  /// names.intern(name), usually without hashing it.
  program::NameId intern(std::string_view name) {
    Entry& e = entries_[slot(name)];
    if (e.data == name.data() && e.size == name.size() && e.id >= 0 && names_.name(e.id) == name) {
      return e.id;
    }
    e = {name.data(), name.size(), names_.intern(name)};
    return e.id;
  }

 private:
  static constexpr std::size_t kSlots = 512;
  struct Entry {
    const char* data = nullptr;
    std::size_t size = 0;
    program::NameId id = -1;
  };
  static std::size_t slot(std::string_view name) {
    const auto address = std::bit_cast<std::uintptr_t>(name.data());
    // Literals and stack buffers are at least byte-aligned and a few bytes apart: mix the
    // address's low bits with the length.
    return static_cast<std::size_t>((address ^ (address >> 9) ^ (name.size() * 0x9e37)) % kSlots);
  }

  program::NameTable& names_;
  std::array<Entry, kSlots> entries_{};
};

}  // namespace trainsim
