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
      return TransferOrder::batched;
    case PipelineSchedule::interleaved:
      return TransferOrder::in_order;
    case PipelineSchedule::breadth_first:
    case PipelineSchedule::layered:
      return TransferOrder::asynchronous;
  }
  return TransferOrder::in_order;
}

std::string_view to_string(TransferOrder order) {
  switch (order) {
    case TransferOrder::asynchronous:
      return "asynchronous";
    case TransferOrder::batched:
      return "batched";
    case TransferOrder::in_order:
      return "in order";
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
      const std::int64_t warmup =
          std::min(2 * (s.stages - stage - 1) + (s.chunks - 1) * s.stages, total);
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

std::vector<PipelineStep> pipeline_steps(const PipelineShape& s, std::int64_t stage) {
  if (s.schedule == PipelineSchedule::gpipe || s.schedule == PipelineSchedule::one_f_one_b) {
    if (const auto problem = pipeline_problem(s)) throw std::invalid_argument(*problem);
    return megatron_steps(s, stage);
  }
  // One stage (layered gradient accumulation without a pipeline): no transfers, each chunk's
  // output and input gradient stay on the rank.
  if (s.stages == 1) return pipeline_passes(s, stage);
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
  return placed_steps(s, passes, stage);
}

}  // namespace trainsim
