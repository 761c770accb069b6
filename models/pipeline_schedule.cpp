#include "models/pipeline_schedule.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace trainsim {

namespace {

using Kind = PipelineStep::Kind;

bool is_forward(Kind k) {
  return k == Kind::forward || k == Kind::send_forward || k == Kind::recv_forward;
}

// Megatron's interleaved order (§7.4, N = p): the virtual micro batch k of the forward runs
// micro batch table[k].first through chunk table[k].second; backward k runs the same micro
// batch through chunk v - 1 - table[k].second.
std::vector<std::pair<std::int64_t, std::int64_t>> interleaved_table(const PipelineShape& s) {
  std::vector<std::pair<std::int64_t, std::int64_t>> table;
  const std::int64_t group = s.stages;
  for (std::int64_t g0 = 0; g0 < s.micro_batches; g0 += group) {
    const std::int64_t end = std::min(g0 + group, s.micro_batches);
    for (std::int64_t c = 0; c < s.chunks; ++c) {
      for (std::int64_t mb = g0; mb < end; ++mb)
        table.emplace_back(mb, c);
    }
  }
  return table;
}

// One message between virtual stages: the activation of (micro batch, from) forward, or the
// gradient of (micro batch, from)'s input backward.
struct Message {
  bool forward = true;
  std::int64_t micro_batch = 0;
  std::int64_t from = 0;  // virtual stage that produces it
  auto key() const { return std::make_tuple(forward, micro_batch, from); }
  bool operator<(const Message& o) const { return key() < o.key(); }
  bool operator==(const Message& o) const { return key() == o.key(); }
};

// The message a pass needs and the one it produces (nullopt at the ends of the pipeline).
std::optional<Message> input_of(const PipelineShape& s, std::int64_t stage,
                                const PipelineStep& pass) {
  const std::int64_t vs = virtual_stage(s, stage, pass.chunk);
  const std::int64_t last = s.stages * s.chunks - 1;
  if (pass.kind == Kind::forward)
    return vs == 0 ? std::nullopt : std::optional<Message>({true, pass.micro_batch, vs - 1});
  return vs == last ? std::nullopt : std::optional<Message>({false, pass.micro_batch, vs + 1});
}

// Megatron's interleaved warm-up: 2(p - s - 1) + (v - 1)p forwards, at most all m·v.
std::int64_t interleaved_warmup(const PipelineShape& s, std::int64_t stage) {
  return std::min(2 * (s.stages - stage - 1) + (s.chunks - 1) * s.stages,
                  s.micro_batches * s.chunks);
}

std::optional<Message> output_of(const PipelineShape& s, std::int64_t stage,
                                 const PipelineStep& pass) {
  const std::int64_t vs = virtual_stage(s, stage, pass.chunk);
  const std::int64_t last = s.stages * s.chunks - 1;
  if (pass.kind == Kind::forward)
    return vs == last ? std::nullopt : std::optional<Message>({true, pass.micro_batch, vs});
  return vs == 0 ? std::nullopt : std::optional<Message>({false, pass.micro_batch, vs});
}

}  // namespace

std::string to_string(const PipelineStep& step) {
  const char* prefix = "";
  switch (step.kind) {
    case Kind::forward:
    case Kind::backward:
      break;
    case Kind::send_forward:
    case Kind::send_backward:
      prefix = "send ";
      break;
    case Kind::recv_forward:
    case Kind::recv_backward:
      prefix = "recv ";
      break;
  }
  std::string out =
      fmt::format("{}{}{}", prefix, is_forward(step.kind) ? 'F' : 'B', step.micro_batch);
  if (step.chunk > 0) out += fmt::format(".c{}", step.chunk);
  return out;
}

TransferOrder transfer_order(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::gpipe:
    case PipelineSchedule::one_f_one_b:
    case PipelineSchedule::interleaved:
      return TransferOrder::batched;
    case PipelineSchedule::breadth_first:
    case PipelineSchedule::layered:
      return TransferOrder::asynchronous;
  }
  return TransferOrder::batched;
}

std::string_view to_string(TransferOrder order) {
  switch (order) {
    case TransferOrder::asynchronous:
      return "asynchronous";
    case TransferOrder::batched:
      return "batched";
  }
  return "?";
}

std::optional<std::string> pipeline_problem(const PipelineShape& s) {
  if (s.stages < 1 || s.micro_batches < 1 || s.chunks < 1) {
    return fmt::format("stages {}, micro batches {} and chunks {} must be >= 1", s.stages,
                       s.micro_batches, s.chunks);
  }
  switch (s.schedule) {
    case PipelineSchedule::gpipe:
    case PipelineSchedule::one_f_one_b:
      if (s.chunks != 1) {
        return fmt::format(
            "schedule {} runs one model chunk per stage (chunks {}); use "
            "chunks: 1 or schedule interleaved",
            to_string(s.schedule), s.chunks);
      }
      return std::nullopt;
    case PipelineSchedule::interleaved:
      if (s.chunks < 2) {
        return fmt::format(
            "schedule interleaved needs chunks >= 2 (got {}); with one chunk "
            "use 1f1b",
            s.chunks);
      }
      if (s.micro_batches % s.stages != 0) {
        return fmt::format(
            "schedule interleaved needs the micro batches per replica ({}) to be "
            "a multiple of pipeline.size {} (Megatron's rule); use a "
            "global_batch giving a multiple of {}",
            s.micro_batches, s.stages, s.stages);
      }
      return std::nullopt;
    case PipelineSchedule::breadth_first:
      if (s.chunks < 2) {
        return fmt::format(
            "schedule breadth-first needs chunks >= 2 (got {}); with one chunk "
            "per stage it is gpipe",
            s.chunks);
      }
      return std::nullopt;
    case PipelineSchedule::layered:
      // One layer per chunk (checked against the model by the loader and build_program).
      return std::nullopt;
  }
  return "unknown schedule";
}

std::vector<PipelineStep> pipeline_passes(const PipelineShape& s, std::int64_t stage) {
  if (const auto problem = pipeline_problem(s)) throw std::invalid_argument(*problem);
  if (stage < 0 || stage >= s.stages) throw std::invalid_argument("pipeline: stage out of range");
  const std::int64_t m = s.micro_batches;
  std::vector<PipelineStep> out;
  const auto f = [&](std::int64_t mb, std::int64_t c) { out.push_back({Kind::forward, mb, c}); };
  const auto b = [&](std::int64_t mb, std::int64_t c) { out.push_back({Kind::backward, mb, c}); };
  switch (s.schedule) {
    case PipelineSchedule::gpipe:
      for (std::int64_t i = 0; i < m; ++i)
        f(i, 0);
      for (std::int64_t i = 0; i < m; ++i)
        b(i, 0);
      break;
    case PipelineSchedule::one_f_one_b: {
      const std::int64_t warmup = std::min(s.stages - stage - 1, m);
      for (std::int64_t i = 0; i < warmup; ++i)
        f(i, 0);
      for (std::int64_t i = 0; i < m - warmup; ++i) {
        f(i + warmup, 0);
        b(i, 0);
      }
      for (std::int64_t i = m - warmup; i < m; ++i)
        b(i, 0);
      break;
    }
    case PipelineSchedule::interleaved: {
      const auto table = interleaved_table(s);
      const auto total = static_cast<std::int64_t>(table.size());
      const std::int64_t warmup = interleaved_warmup(s, stage);
      const auto fwd = [&](std::int64_t k) {
        f(table[static_cast<std::size_t>(k)].first, table[static_cast<std::size_t>(k)].second);
      };
      const auto bwd = [&](std::int64_t k) {
        b(table[static_cast<std::size_t>(k)].first,
          s.chunks - 1 - table[static_cast<std::size_t>(k)].second);
      };
      for (std::int64_t k = 0; k < warmup; ++k)
        fwd(k);
      for (std::int64_t k = 0; k < total - warmup; ++k) {
        fwd(k + warmup);
        bwd(k);
      }
      for (std::int64_t k = total - warmup; k < total; ++k)
        bwd(k);
      break;
    }
    case PipelineSchedule::breadth_first:
    case PipelineSchedule::layered:
      // §7.5 / §7.6: every micro batch through one chunk before the next, chunks ascending
      // in forward and descending in backward. Breadth-first runs the backward micro batches
      // in reverse (PyTorch's ScheduleLoopedBFS: the last stage starts the backward of m - 1
      // right after its forward); layered in order (Lamy-Poirier's LGA pseudo-code).
      for (std::int64_t c = 0; c < s.chunks; ++c) {
        for (std::int64_t i = 0; i < m; ++i)
          f(i, c);
      }
      for (std::int64_t c = s.chunks - 1; c >= 0; --c) {
        for (std::int64_t i = 0; i < m; ++i)
          b(s.schedule == PipelineSchedule::breadth_first ? m - 1 - i : i, c);
      }
      break;
  }
  return out;
}

namespace {

// Megatron's forward_backward_pipelining_without_interleaving (and GPipe, all forwards then
// all backwards) with its transfers: warm-up receive, forward, send; one more receive before
// the steady state; there the output's send goes with the receive of the gradient
// (send_forward_recv_backward) and the input gradient's send with the next input's receive
// (send_backward_recv_forward); each pair gradient first, as on the other side of the channel.
std::vector<PipelineStep> megatron_steps(const PipelineShape& s, std::int64_t stage) {
  const bool first = stage == 0;
  const bool last = stage == s.stages - 1;
  const std::int64_t m = s.micro_batches;
  std::vector<PipelineStep> out;
  const auto add = [&](Kind kind, std::int64_t mb) {
    const bool to_previous = kind == Kind::send_backward || kind == Kind::recv_forward;
    const bool transfer = kind != Kind::forward && kind != Kind::backward;
    if (transfer && (to_previous ? first : last)) return;
    out.push_back({kind, mb, 0});
  };
  const std::int64_t warmup =
      s.schedule == PipelineSchedule::gpipe ? m : std::min(s.stages - stage - 1, m);
  for (std::int64_t i = 0; i < warmup; ++i) {
    add(Kind::recv_forward, i);
    add(Kind::forward, i);
    add(Kind::send_forward, i);
  }
  const std::int64_t remaining = m - warmup;
  if (remaining > 0) add(Kind::recv_forward, warmup);
  for (std::int64_t i = 0; i < remaining; ++i) {
    add(Kind::forward, i + warmup);
    add(Kind::recv_backward, i);
    add(Kind::send_forward, i + warmup);
    add(Kind::backward, i);
    add(Kind::send_backward, i);
    if (i + 1 < remaining) add(Kind::recv_forward, i + warmup + 1);
  }
  for (std::int64_t i = remaining; i < m; ++i) {
    add(Kind::recv_backward, i);
    add(Kind::backward, i);
    add(Kind::send_backward, i);
  }
  return out;
}

}  // namespace

namespace {

// `stage`'s passes with its transfers placed, given every stage's passes (two or more stages).
// A unit-time run of every stage's passes (forward 1, backward 2, transfers free) gives
// each message the time it is produced; ordering all messages by that time gives one global
// order in which every stage meets its transfers, so transfers matched in issue order per
// channel never wait on each other in a cycle.
std::vector<PipelineStep> placed_steps(const PipelineShape& s,
                                       const std::vector<std::vector<PipelineStep>>& passes,
                                       std::int64_t stage) {
  const std::int64_t p = s.stages;
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> free_at(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> ends;  // this stage's pass ends, in order
  // message -> production time
  std::vector<std::pair<Message, std::int64_t>> produced;
  std::map<Message, std::int64_t> time_of;
  const auto produced_at = [&](const Message& m) -> std::optional<std::int64_t> {
    const auto it = time_of.find(m);
    if (it == time_of.end()) return std::nullopt;
    return it->second;
  };
  std::size_t remaining = 0;
  for (const auto& list : passes)
    remaining += list.size();
  while (remaining > 0) {
    bool progressed = false;
    for (std::int64_t r = 0; r < p; ++r) {
      auto& i = next[static_cast<std::size_t>(r)];
      while (i < passes[static_cast<std::size_t>(r)].size()) {
        const PipelineStep& pass = passes[static_cast<std::size_t>(r)][i];
        std::int64_t start = free_at[static_cast<std::size_t>(r)];
        if (const auto in = input_of(s, r, pass)) {
          const auto t = produced_at(*in);
          if (!t) break;
          start = std::max(start, *t);
        }
        const std::int64_t end = start + (pass.kind == Kind::forward ? 1 : 2);
        free_at[static_cast<std::size_t>(r)] = end;
        if (r == stage) ends.push_back(end);
        if (const auto out = output_of(s, r, pass)) {
          produced.emplace_back(*out, end);
          time_of.emplace(*out, end);
        }
        ++i;
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline: the schedule's passes deadlock");
  }
  // Global order: by production time; at a tie gradients first (a stage then receives the
  // gradient before sending the activation the other stage needs only after that gradient's
  // backward: Megatron's send_forward_recv_backward), then by producer.
  std::stable_sort(produced.begin(), produced.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.second, a.first.forward, a.first.from, a.first.micro_batch) <
           std::make_tuple(b.second, b.first.forward, b.first.from, b.first.micro_batch);
  });

  // This stage's transfers in that order.
  const auto rank_of = [&](std::int64_t vs) { return vs % p; };
  const auto chunk_of = [&](std::int64_t vs) { return vs / p; };
  struct Transfer {
    PipelineStep step;
    Message message;
  };
  std::vector<Transfer> transfers;
  for (const auto& [msg, time] : produced) {
    const std::int64_t to = msg.forward ? msg.from + 1 : msg.from - 1;
    if (rank_of(msg.from) == stage) {
      transfers.push_back({{msg.forward ? Kind::send_forward : Kind::send_backward, msg.micro_batch,
                            chunk_of(msg.from)},
                           msg});
    }
    // A receive is labelled with the pass that consumes it.
    if (rank_of(to) == stage) {
      transfers.push_back(
          {{msg.forward ? Kind::recv_forward : Kind::recv_backward, msg.micro_batch, chunk_of(to)},
           msg});
    }
  }
  std::vector<PipelineStep> out;
  std::size_t t = 0;
  std::set<Message> done;      // messages this stage produced so far
  std::set<Message> received;  // receives issued so far
  const auto is_recv = [](const Transfer& tr) {
    return tr.step.kind == Kind::recv_forward || tr.step.kind == Kind::recv_backward;
  };
  const auto emit = [&] {
    const Transfer& tr = transfers[t++];
    out.push_back(tr.step);
    if (is_recv(tr)) received.insert(tr.message);
  };
  // After a pass: every transfer that can go at `now` (sends of tensors that exist, receives
  // of tensors already produced), in the global order.
  const auto emit_ready = [&](std::int64_t now) {
    while (t < transfers.size()) {
      const Transfer& tr = transfers[t];
      const bool ready = is_recv(tr) ? time_of.at(tr.message) <= now : done.count(tr.message) > 0;
      if (!ready) break;
      emit();
    }
  };
  const auto& mine = passes[static_cast<std::size_t>(stage)];
  emit_ready(0);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const PipelineStep& pass = mine[i];
    if (const auto in = input_of(s, stage, pass); in && received.count(*in) == 0) {
      // Everything up to and including this pass's input.
      while (received.count(*in) == 0)
        emit();
    }
    out.push_back(pass);
    if (const auto o = output_of(s, stage, pass)) done.insert(*o);
    emit_ready(ends[i]);
  }
  for (; t < transfers.size(); ++t)
    out.push_back(transfers[t].step);
  return out;
}

}  // namespace

namespace {

// Megatron-LM's forward_backward_pipelining_with_interleaving without overlap_p2p_comm (its
// default, and these papers' runs), on this rank's passes (pipeline_passes: W warm-up forwards,
// then forward k + W and backward k, then the cool-down backwards). Each p2p call is one
// batch_isend_irecv; in the list it is the transfers between two passes, sends before
// receives, forward before backward on each side. The calls:
//   start      recv_forward (the input of forward 0; rank 0 chunk 0 has none);
//   warm-up    forward k, send_forward_recv_forward (k's output; the input of the next
//              forward), the last warm-up step with a steady state after it
//              send_forward_backward_recv_forward_backward with no gradient to send (it also
//              receives backward 0's output gradient);
//   steady     forward k + W, backward k, send_forward_backward_recv_forward_backward (the
//              forward's output is sent only now, with backward k's input gradient);
//   cool-down  (no steady state: recv_backward first) backward k, send_backward_recv_backward.
// Whether a call receives is Megatron's rule (recv_prev / recv_next), including its look-back
// of p - 1 on the first and last rank in the steady state; which tensor a receive brings is
// the next one on its channel, as NCCL matches a peer pair's operations in order (the peer
// sends its outputs in its own pass order). Forward only (inference): every pass is warm-up.
std::vector<PipelineStep> interleaved_steps(const PipelineShape& s, std::int64_t stage,
                                            bool forward_only) {
  const std::int64_t p = s.stages;
  const std::int64_t v = s.chunks;
  const bool first = stage == 0;
  const bool last = stage == p - 1;
  std::vector<PipelineStep> forwards;
  std::vector<PipelineStep> backwards;
  for (const PipelineStep& pass : pipeline_passes(s, stage)) {
    if (pass.kind == Kind::forward) {
      forwards.push_back(pass);
    } else if (!forward_only) {
      backwards.push_back(pass);
    }
  }
  const auto total = static_cast<std::int64_t>(forwards.size());
  const std::int64_t warmup = forward_only ? total : interleaved_warmup(s, stage);
  const std::int64_t remaining = total - warmup;
  // Megatron's get_model_chunk_id, with Python's modulo for the look-back below zero.
  const auto chunk_id = [&](std::int64_t k, bool forward) {
    const std::int64_t in_group = ((k % (p * v)) + p * v) % (p * v);
    return forward ? in_group / p : v - 1 - in_group / p;
  };
  // The receives this rank will make, in the order its passes need them (the channel's order).
  std::vector<PipelineStep> forward_inputs;
  std::vector<PipelineStep> backward_inputs;
  for (const PipelineStep& f : forwards) {
    if (input_of(s, stage, f))
      forward_inputs.push_back({Kind::recv_forward, f.micro_batch, f.chunk});
  }
  for (const PipelineStep& b : backwards) {
    if (input_of(s, stage, b))
      backward_inputs.push_back({Kind::recv_backward, b.micro_batch, b.chunk});
  }
  std::size_t next_forward_input = 0;
  std::size_t next_backward_input = 0;
  std::vector<PipelineStep> out;
  std::set<std::pair<std::int64_t, std::int64_t>> received;  // (kind forward?, key)
  const auto key = [&](const PipelineStep& step) { return step.micro_batch * v + step.chunk; };
  const auto pass = [&](const PipelineStep& step) {
    if (input_of(s, stage, step) &&
        received.count({step.kind == Kind::forward ? 1 : 0, key(step)}) == 0) {
      throw std::logic_error(
          fmt::format("pipeline: interleaved stage {} runs {} before receiving its input", stage,
                      to_string(step)));
    }
    out.push_back(step);
  };
  // One call: the sends (of passes that have an output to send) and the receives asked for.
  const auto call = [&](const PipelineStep* forward_sent, const PipelineStep* backward_sent,
                        bool recv_prev, bool recv_next) {
    if (forward_sent && output_of(s, stage, *forward_sent))
      out.push_back({Kind::send_forward, forward_sent->micro_batch, forward_sent->chunk});
    if (backward_sent && output_of(s, stage, *backward_sent))
      out.push_back({Kind::send_backward, backward_sent->micro_batch, backward_sent->chunk});
    if (recv_prev) {
      if (next_forward_input == forward_inputs.size())
        throw std::logic_error("pipeline: interleaved receives more inputs than it needs");
      out.push_back(forward_inputs[next_forward_input++]);
      received.insert({1, key(out.back())});
    }
    if (recv_next) {
      if (next_backward_input == backward_inputs.size())
        throw std::logic_error("pipeline: interleaved receives more gradients than it needs");
      out.push_back(backward_inputs[next_backward_input++]);
      received.insert({0, key(out.back())});
    }
  };
  const auto at = [](const std::vector<PipelineStep>& list, std::int64_t k) {
    return &list[static_cast<std::size_t>(k)];
  };
  call(nullptr, nullptr, !first, false);
  for (std::int64_t k = 0; k < warmup; ++k) {
    pass(*at(forwards, k));
    const bool recv_prev = !(first && chunk_id(k + 1, true) == 0) && k != total - 1;
    const bool recv_next = k == warmup - 1 && !forward_only && remaining > 0 && !last;
    call(at(forwards, k), nullptr, recv_prev, recv_next);
  }
  for (std::int64_t k = 0; k < remaining; ++k) {
    const std::int64_t forward_k = k + warmup;
    pass(*at(forwards, forward_k));
    pass(*at(backwards, k));
    // The first stage is ahead of the last by p - 1 (and the last of the first).
    const bool recv_prev =
        !(first && chunk_id(forward_k - (p - 1), true) == v - 1) && k != remaining - 1;
    const bool recv_next = !(last && chunk_id(k - (p - 1), false) == 0);
    call(at(forwards, forward_k), at(backwards, k), recv_prev, recv_next);
  }
  if (!forward_only && remaining == 0) call(nullptr, nullptr, false, !last);
  for (std::int64_t k = remaining; k < static_cast<std::int64_t>(backwards.size()); ++k) {
    pass(*at(backwards, k));
    const bool recv_next = !(last && chunk_id(k + 1, false) == v - 1) && k != total - 1;
    call(nullptr, at(backwards, k), false, recv_next);
  }
  if (next_forward_input != forward_inputs.size() ||
      next_backward_input != backward_inputs.size()) {
    throw std::logic_error(
        fmt::format("pipeline: interleaved stage {} leaves inputs unreceived", stage));
  }
  return out;
}

}  // namespace

std::vector<PipelineStep> pipeline_steps(const PipelineShape& s, std::int64_t stage) {
  if (s.schedule == PipelineSchedule::gpipe || s.schedule == PipelineSchedule::one_f_one_b) {
    if (const auto problem = pipeline_problem(s)) throw std::invalid_argument(*problem);
    return megatron_steps(s, stage);
  }
  // One stage (layered gradient accumulation without a pipeline): no transfers, each chunk's
  // output and input gradient stay on the rank.
  if (s.stages == 1) return pipeline_passes(s, stage);
  if (s.schedule == PipelineSchedule::interleaved) return interleaved_steps(s, stage, false);
  std::vector<std::vector<PipelineStep>> passes;
  for (std::int64_t r = 0; r < s.stages; ++r)
    passes.push_back(pipeline_passes(s, r));
  return placed_steps(s, passes, stage);
}

std::vector<PipelineStep> inference_steps(const PipelineShape& s, std::int64_t stage) {
  std::vector<std::vector<PipelineStep>> passes(static_cast<std::size_t>(s.stages));
  for (std::int64_t r = 0; r < s.stages; ++r) {
    for (const PipelineStep& pass : pipeline_passes(s, r)) {
      if (pass.kind == Kind::forward) passes[static_cast<std::size_t>(r)].push_back(pass);
    }
  }
  // One stage: each chunk's output stays on the rank.
  if (s.stages == 1) return passes.front();
  if (s.schedule == PipelineSchedule::interleaved) return interleaved_steps(s, stage, true);
  return placed_steps(s, passes, stage);
}

}  // namespace trainsim
