#include "models/byte_codec.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trainsim {

void ByteWriter::put_string(std::string_view text) {
  put(text.size());
  bytes_.append(text);
}

std::string ByteReader::get_string() {
  const auto n = get<std::size_t>();
  return {take(n), n};
}

const char* ByteReader::take(std::size_t n) {
  if (n > bytes_.size() - at_) {
    throw std::runtime_error(fmt::format(
        "decoding a result exchanged between processes: {} bytes wanted at byte {} of {} (the "
        "writer and reader disagree: a bug in trainsim)",
        n, at_, bytes_.size()));
  }
  const char* at = bytes_.data() + at_;
  at_ += n;
  return at;
}

}  // namespace trainsim
