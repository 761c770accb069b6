#pragma once
// Outputs are written atomically: to a temporary file beside the target, flushed, then
// renamed over it, so a reader never sees a half-written report and a failure loses nothing.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace trainsim::reports {

/// Calls `write` with a stream to a temporary file in `path`'s directory and renames it to
/// `path` when `write` returns and the stream is good. Throws std::runtime_error naming the
/// path on any failure, leaving an existing file at `path` untouched.
void write_atomically(const std::filesystem::path& path,
                      const std::function<void(std::ostream&)>& write);

/// Throws std::runtime_error naming `path` if its directory does not exist, so a command can
/// refuse bad output paths before it spends time computing what it would write there.
void check_destination(const std::filesystem::path& path);

/// Convenience for text already in memory.
void write_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace trainsim::reports
