#include "reports/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace trainsim::reports {

std::string gzip(std::string_view text, int level) {
  z_stream s{};
  // windowBits 15 + 16: a gzip wrapper; zlib's default header has mtime 0 and no name.
  if (deflateInit2(&s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip: zlib's deflateInit2 failed");
  std::string out;
  std::string chunk(1 << 20, '\0');
  std::size_t offset = 0;
  int status = Z_OK;
  do {
    // deflate takes at most 4 GiB per call (uInt): feed the text in slices.
    const std::size_t slice =
        std::min<std::size_t>(text.size() - offset, std::numeric_limits<uInt>::max());
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + offset));
    s.avail_in = static_cast<uInt>(slice);
    offset += slice;
    const int flush = offset == text.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      s.next_out = reinterpret_cast<Bytef*>(chunk.data());
      s.avail_out = static_cast<uInt>(chunk.size());
      status = deflate(&s, flush);
      if (status == Z_STREAM_ERROR) {
        deflateEnd(&s);
        throw std::runtime_error("gzip: zlib's deflate failed");
      }
      out.append(chunk.data(), chunk.size() - s.avail_out);
    } while (s.avail_out == 0);
  } while (offset < text.size());
  deflateEnd(&s);
  if (status != Z_STREAM_END) throw std::runtime_error("gzip: the stream did not end");
  return out;
}

bool is_gzip_path(std::string_view path) {
  return path.size() >= 3 && path.substr(path.size() - 3) == ".gz";
}

}  // namespace trainsim::reports
