#pragma once
// Runs independent pieces of work (one recorded rank's Program, one rank's replay index) on
// the machine's cores. Results must not depend on which thread ran which piece: callers give
// each piece its own output slot and merge in index order afterwards.
//
// Calls nest (a layout search replays layouts in parallel, each replay indexes its ranks in
// parallel): a call inside a piece shares the threads its caller was given instead of asking
// for a core each, so `--threads N` means N threads at any depth, never N × cores.

#include <cstddef>
#include <functional>

namespace trainsim {

/// Calls `work(i)` for every i in [0, count), on up to `threads` threads (0: one per core, or,
/// inside another call's piece, the threads that piece was given). Rethrows the exception of
/// the lowest i that threw, the one a sequential loop would have thrown (the pieces after it
/// have run too).
void for_each_in_parallel(std::size_t count, const std::function<void(std::size_t)>& work,
                          unsigned threads = 0);

/// The threads a call with `threads` made here runs at most (given enough pieces).
unsigned parallel_width(unsigned threads = 0);

}  // namespace trainsim
