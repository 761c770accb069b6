#include "documents/gzip.hpp"

#include <zlib.h>

#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>

namespace trainsim::documents {

namespace {

// Deflates what is written through it into `sink`, in the same steps as gzip() below.
class DeflateBuffer : public std::streambuf {
 public:
  DeflateBuffer(std::ostream& sink, int level)
      : sink_(sink), in_(1 << 20, '\0'), out_(1 << 20, '\0') {
    if (deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("gzip: zlib's deflateInit2 failed");
    setp(in_.data(), in_.data() + in_.size());
  }
  ~DeflateBuffer() override { deflateEnd(&z_); }
  DeflateBuffer(const DeflateBuffer&) = delete;
  DeflateBuffer& operator=(const DeflateBuffer&) = delete;

  /// Deflates what is left and ends the gzip stream.
  void finish() { pump(Z_FINISH); }

 protected:
  int_type overflow(int_type c) override {
    pump(Z_NO_FLUSH);
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

 private:
  // Deflates the put area into the sink; Z_FINISH also ends the stream.
  void pump(int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(pbase());
    z_.avail_in = static_cast<uInt>(pptr() - pbase());
    int status = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      status = deflate(&z_, flush);
      if (status == Z_STREAM_ERROR) throw std::runtime_error("gzip: zlib's deflate failed");
      sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z_.avail_out));
    } while (z_.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    setp(in_.data(), in_.data() + in_.size());
  }

  std::ostream& sink_;
  z_stream z_{};
  std::string in_;
  std::string out_;
};

}  // namespace

void write_gzip(std::ostream& sink, const std::function<void(std::ostream&)>& write, int level) {
  DeflateBuffer buffer(sink, level);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  buffer.finish();
}

std::string gzip(std::string_view text, int level) {
  std::ostringstream packed;
  write_gzip(
      packed, [text](std::ostream& out) { out << text; }, level);
  return packed.str();
}

bool is_gzip_path(std::string_view path) {
  return path.size() >= 3 && path.substr(path.size() - 3) == ".gz";
}

}  // namespace trainsim::documents
