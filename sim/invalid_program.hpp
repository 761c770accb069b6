#pragma once
// The error the replay throws for a Program it cannot run as written.

#include <stdexcept>

namespace trainsim::sim {

/// A Program that cannot be replayed as written (dependency out of range, collective on a
/// group the rank is not in, free of a buffer never allocated, ...). Deadlocks are not
/// errors: they are reported in SimulationResult::stuck.
class InvalidProgram : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trainsim::sim
