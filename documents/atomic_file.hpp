#pragma once
// Outputs are written atomically: into an unnamed file in the target's directory (O_TMPFILE;
// a named ".NAME.tmp.PID" where the filesystem has none), flushed, then linked under that name
// and renamed over the target, so a reader never sees a half-written file, a failure loses
// nothing, and a writer killed while writing leaves nothing behind. Temporaries of writers
// that died between link and rename (or mid-write without O_TMPFILE) are removed by the next
// write of the same target.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace trainsim::documents {

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

}  // namespace trainsim::documents
