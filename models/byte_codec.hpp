#pragma once
// Results as bytes, for the processes of a sweep to exchange (models/spread.hpp): values are
// copied bit for bit (a double arrives as the same double), so that results computed on
// another process print exactly as if computed here. Not a file format: both ends are the
// same build.

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace trainsim {

class ByteWriter {
 public:
  /// A value of a trivially copyable type (numbers, enums, Time, Bytes, plain structs).
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void put_string(std::string_view text);
  template <class T>
  void put_vector(const std::vector<T>& values) {
    put(values.size());
    for (const T& v : values)
      put(v);
  }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

/// Reads what a ByteWriter wrote, in the same order; throws std::runtime_error when the bytes
/// run out (a writer and reader that disagree: a bug, said as such).
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    std::array<char, sizeof(T)> raw;
    std::memcpy(raw.data(), take(sizeof(T)), sizeof(T));
    return std::bit_cast<T>(raw);  // no default constructor needed
  }
  std::string get_string();
  template <class T>
  std::vector<T> get_vector() {
    std::vector<T> values(get<std::size_t>());
    for (T& v : values)
      v = get<T>();
    return values;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  const char* take(std::size_t n);
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace trainsim
