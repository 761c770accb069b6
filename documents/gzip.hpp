#pragma once
// gzip compression of text already in memory (zlib's deflate with a gzip wrapper), for the
// compact `.json.gz` traces. Deterministic: the header carries no time or file name, so the
// same text gives the same bytes.

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace trainsim::documents {

/// The gzip file of `text` at zlib's compression `level` (1 fastest … 9 smallest).
std::string gzip(std::string_view text, int level = 6);

/// Calls `write` with a stream whose text reaches `sink` gzip-compressed as it is written (the
/// text is never held whole: a large trace costs its compressed size, not its text's); the
/// same bytes as gzip(text, level).
void write_gzip(std::ostream& sink, const std::function<void(std::ostream&)>& write, int level = 6);

/// Whether `path` names a gzip file by its extension (.gz).
bool is_gzip_path(std::string_view path);

}  // namespace trainsim::documents
