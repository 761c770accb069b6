#pragma once
// gzip compression of text already in memory (zlib's deflate with a gzip wrapper), for the
// compact `.json.gz` traces. Deterministic: the header carries no time or file name, so the
// same text gives the same bytes.

#include <string>
#include <string_view>

namespace trainsim::reports {

/// The gzip file of `text` at zlib's compression `level` (1 fastest … 9 smallest).
std::string gzip(std::string_view text, int level = 6);

/// Whether `path` names a gzip file by its extension (.gz).
bool is_gzip_path(std::string_view path);

}  // namespace trainsim::reports
