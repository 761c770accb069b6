#pragma once
// Pipeline schedules as per-rank step lists (parallelism-reference §7): which forward and
// backward passes a stage runs in which order (GPipe §7.2, Megatron's 1F1B §7.3, Megatron's
// interleaved 1F1B §7.4, breadth-first §7.5, layered §7.6), and where its point-to-point sends and
// receives fall between them. A pure function of (schedule, p, stage, m, v), so that both backends
// run the same order and tests can check the orders' properties (bubble, micro batches in flight,
// no deadlock) without running a model.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/parallel_plan.hpp"

namespace trainsim {

/// One step of a stage. Compute steps run a model chunk's pass of one micro batch; transfer
/// steps move a stage-boundary tensor of one micro batch to or from a neighbouring stage
/// (activations forward to the next stage, their gradients backward to the previous one).
struct PipelineStep {
  enum class Kind : std::uint8_t {
    forward,        ///< forward pass of (micro_batch, chunk)
    backward,       ///< backward pass of (micro_batch, chunk)
    send_forward,   ///< the pass's output activation to the next stage
    recv_forward,   ///< the pass's input activation from the previous stage
    send_backward,  ///< the gradient of the pass's input to the previous stage
    recv_backward   ///< the gradient of the pass's output from the next stage
  };
  Kind kind = Kind::forward;
  std::int64_t micro_batch = 0;
  std::int64_t chunk = 0;  ///< model chunk on this rank (0 with one chunk per stage)

  bool operator==(const PipelineStep&) const = default;
};

/// "F3", "B3" (chunk c > 0: "F3.c1"), "send F3", "recv B3", ...
std::string to_string(const PipelineStep& step);

/// Shape of a pipeline: p stages, m micro batches per replica, v chunks per stage.
struct PipelineShape {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t stages = 1;         ///< p
  std::int64_t micro_batches = 1;  ///< m
  std::int64_t chunks = 1;         ///< v
};

/// Why this schedule cannot run (m, p, v combination), or nullopt. Interleaved needs v > 1
/// and m divisible by p (Megatron's rule); breadth-first v > 1 and any m (m < p stalls every
/// loop, §7.5, which is allowed); layered any v (one layer per chunk: the caller checks
/// layers = p·v); GPipe and 1F1B run one chunk per stage and any m >= 1 (with m < p some
/// stages idle longer, which is allowed, as in Megatron).
std::optional<std::string> pipeline_problem(const PipelineShape& shape);

/// The compute passes of `stage` in order (§7.2-7.4 pseudo-code). Throws std::invalid_argument
/// when pipeline_problem reports a problem.
std::vector<PipelineStep> pipeline_passes(const PipelineShape& shape, std::int64_t stage);

/// The passes of `stage` with its transfers placed. GPipe, 1F1B and interleaved as Megatron
/// issues them, one p2p call between two passes. GPipe and 1F1B: a pass's input is received
/// just before it and its output sent right after, except that in 1F1B's steady state the
/// output's send goes with the receive of the next gradient (send_forward_recv_backward) and
/// the input gradient's send with the next input's receive (send_backward_recv_forward), each
/// pair gradient first on both sides of the channel. Interleaved as
/// forward_backward_pipelining_with_interleaving without overlap_p2p_comm: recv_forward before
/// the warm-up, after each warm-up forward send_forward_recv_forward (the last one, with a
/// steady state after it, also receives the first backward's gradient), after each steady
/// forward-backward pair one send_forward_backward_recv_forward_backward (the forward's output
/// sent only then), after each cool-down backward send_backward_recv_backward; within a call
/// sends before receives, forward before backward. Breadth-first and layered: every transfer in
/// the order in which a unit-time run (forward 1, backward 2) produces its tensor, gradients
/// first at a tie, issued as soon as the tensor exists and before the pass that needs it (one
/// stage: no transfers). Transfers matched in issue order per channel cannot deadlock, whether
/// a GPU runs all its steps in this order on one stream (batched: each call as one group) or,
/// as the Program does, its sends and its receives each in this order on a stream of their own
/// (tested for every shape up to p = 8, m = 12).
std::vector<PipelineStep> pipeline_steps(const PipelineShape& shape, std::int64_t stage);

/// Inference (forward passes only): every schedule degenerates to "receive, forward, send"
/// per pass, the passes being the schedule's forward passes in its order (with one chunk per
/// stage: micro batch after micro batch), each input received before its pass and each output
/// sent after it, the transfers in the global order of a unit-time run as pipeline_steps
/// places them (so they cannot deadlock); interleaved as Megatron's forward-only run (every
/// pass a warm-up pass: recv_forward, then forward and send_forward_recv_forward). One stage:
/// no transfers.
std::vector<PipelineStep> inference_steps(const PipelineShape& shape, std::int64_t stage);

/// What a schedule's runtime lets its transfers overlap with, i.e. what the Program's pp_send
/// and pp_recv streams and the passes wait for (sends and receives always match in issue order
/// per (sender, receiver) channel, as NCCL matches a peer pair's point-to-point operations).
enum class TransferOrder : std::uint8_t {
  /// Breadth-first and layered, as PyTorch's pipelining runtime (_PipelineScheduleRuntime) and
  /// Fast-LLM: receives are posted ahead and a pass waits only for the receive of its input;
  /// sends are waited for at the end of the step. Sends and receives progress concurrently.
  asynchronous,
  /// GPipe, 1F1B and interleaved, whose step lists copy Megatron's p2p calls (the transfers
  /// between two passes are one call): each call batches its transfers in one
  /// batch_isend_irecv (an NCCL group: its sends and receives progress concurrently), waits for
  /// every request and synchronizes the device, so the next pass waits for all of them.
  batched
};

TransferOrder transfer_order(PipelineSchedule schedule);
std::string_view to_string(TransferOrder order);

/// Global (virtual) stage of `chunk` on `stage`: chunk·p + stage.
constexpr std::int64_t virtual_stage(const PipelineShape& shape, std::int64_t stage,
                                     std::int64_t chunk) {
  return chunk * shape.stages + stage;
}

}  // namespace trainsim
