#pragma once
// Replays a recorded Program on a modelled cluster: one queue per stream per recorded rank,
// cross-stream dependencies, collectives matched by issue order per group and timed as flows
// on the topology, send/receive rendezvous, memory accounting, and where each GPU's time
// went. A deadlocked Program ends with its blocked ops listed in SimulationResult::stuck.

#include <memory>
#include <vector>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/invalid_program.hpp"
#include "sim/progress.hpp"
#include "sim/simulation_result.hpp"

namespace trainsim::sim {

class ReplayWorld;

struct ReplayOptions {
  /// Fill each RankTimeline's op timings and host spans (16 bytes per op); off for sweeps that
  /// read summaries. A timeline's rank and last end (`finished`) are filled either way.
  bool record_op_timings = true;
  /// Fill RankMemory::timeline (one point per instant the live total changed: 2.8 M points,
  /// 160 MB on a 3072-GPU pipeline); only a trace reads it, so it is recorded on request.
  /// Peaks, their times and breakdowns are exact either way.
  bool record_memory_timeline = false;
  /// Never free the replay's own state (its index of the Program, ~350 MB on the 3072-GPU
  /// row, the network, the queues): the process's exit drops it faster than destructors
  /// would, 0.03-0.06 s of that row's wall time. For a command's last replay only (the CLI's
  /// simulate); library code and tests leave it off.
  bool keep_state_until_exit = false;
  /// Told ("replay", ops finished, ops in all) about 200 times over the run, on the event
  /// loop's thread; empty (the default) costs one comparison per op.
  Progress progress;
  /// Fold a representative replay over many nodes onto one node of each role where the
  /// nodes are interchangeable (sim/node_fold.hpp): the same result, the network's work
  /// divided by the nodes folded. Off only to check that sameness.
  bool fold_nodes = true;
  /// Stragglers: one factor per world GPU by which its kernels take longer (empty: none);
  /// see apply_kernel_slowdowns.
  std::vector<double> kernel_slowdowns{};
};

/// One replay: owns the clock, the event queue, the topology and the link network, so
/// several can run in one process. The Program and profile must outlive the Simulation.
class Simulation {
 public:
  /// Validates and indexes the Program; throws InvalidProgram, or Infeasible when the
  /// profile lacks a peak rate for a GEMM's dtype.
  Simulation(const program::Program& program, const hw::HardwareProfile& hw,
             ReplayOptions options = {});
  /// The same on `world` (its profile, its topology, its groups where alike: a layout's
  /// reduced runs share one); the world must outlive the Simulation, used by one at a time.
  Simulation(const program::Program& program, ReplayWorld& world, ReplayOptions options = {});
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;

  /// Runs the iteration to completion (or deadlock) and returns the result; call once.
  SimulationResult run();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Replays `program` on `hw` (GPU index = rank; rank r sits in node r / gpus_per_node).
/// Representative replay (Program::records_every_rank() false): a collective on group g
/// also starts the flows of every unrecorded group of g's family, and a send also starts
/// the sends of the ranks its sender stands for, to the peer at the same rank offset.
SimulationResult replay(const program::Program& program, const hw::HardwareProfile& hw,
                        const ReplayOptions& options = {});
/// The same on `world` (sim/replay_world.hpp): what Programs over it share is built once.
/// Throws std::invalid_argument when the world's GPU count is not the Program's world size
/// (a Program of fewer than one GPU: InvalidProgram, as above). `keep_state_until_exit` does
/// not apply (the world outlives the replay).
SimulationResult replay(const program::Program& program, ReplayWorld& world,
                        const ReplayOptions& options = {});

}  // namespace trainsim::sim
