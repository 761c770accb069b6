// The meta backend's name cache (models/name_cache.hpp): every answer is the NameTable's own,
// whether the name comes again from the same address (a hit), from a buffer rewritten with
// another name of the same length (the address alone would be wrong), or from elsewhere; the
// table ends with the names in order of first use, as interning alone gives.

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>
#include <string_view>

#include "models/name_cache.hpp"
#include "models/program.hpp"

namespace trainsim {
namespace {

TEST_CASE("name cache: the same ids as the table, a reused buffer included") {
  program::NameTable cached_table;
  program::NameTable plain_table;
  NameCache cache(cached_table);
  std::array<char, 16> buffer{};
  const auto in_buffer = [&](const char* text) {
    std::strncpy(buffer.data(), text, buffer.size() - 1);
    return std::string_view(buffer.data(), std::strlen(text));
  };
  // Literals again and again (hits), one buffer holding names of one length in turn (same
  // address and size, other text), and an empty name; `true`: the text goes through the buffer.
  struct Use {
    const char* text;
    bool buffered;
  };
  const std::array<Use, 9> uses = {{{"attn.qkv", false},
                                    {"attn.qkv", false},
                                    {"layer.fc1", true},
                                    {"mlp.fc2", false},
                                    {"layer.fc2", true},
                                    {"attn.qkv", false},
                                    {"layer.fc1", true},
                                    {"", false},
                                    {"", true}}};
  for (const Use& use : uses) {
    const std::string_view name = use.buffered ? in_buffer(use.text) : std::string_view(use.text);
    CHECK(cache.intern(name) == plain_table.intern(name));
  }
  REQUIRE(cached_table.size() == plain_table.size());
  CHECK(cached_table.size() == 5);  // attn.qkv, layer.fc1, mlp.fc2, layer.fc2, ""
  for (std::size_t i = 0; i < cached_table.size(); ++i) {
    const auto id = static_cast<program::NameId>(i);
    CHECK(cached_table.name(id) == plain_table.name(id));
  }
}

TEST_CASE("name cache: a null view, the address and length of an empty slot, reaches the table") {
  program::NameTable table;
  NameCache cache(table);
  CHECK(cache.intern(std::string_view()) == 0);
  CHECK(table.size() == 1);
}

TEST_CASE("name cache: many distinct names through few slots stay exact") {
  program::NameTable cached_table;
  program::NameTable plain_table;
  NameCache cache(cached_table);
  // More names than slots, each built in one reused string (heap or inline buffer alike), in
  // three passes: every lookup, hit or miss, gives the table's id.
  std::string name;
  for (int pass = 0; pass < 3; ++pass) {
    for (int k = 0; k < 2000; ++k) {
      name = "layer." + std::to_string(k % 700) + (k % 2 == 0 ? ".fc1" : ".fc2");
      REQUIRE(cache.intern(name) == plain_table.intern(name));
    }
  }
  CHECK(cached_table.size() == plain_table.size());
}

}  // namespace
}  // namespace trainsim
