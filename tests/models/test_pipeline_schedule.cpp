// Pipeline schedules as step lists (parallelism-reference §7): the per-rank orders of the
// pseudo-code, micro batches in flight, the bubble of a unit-time run, and that the transfers
// placed between the passes never deadlock when matched in issue order per channel, whether a
// GPU runs its steps on one stream or its sends and receives on streams of their own, for
// training and for inference (forward passes only).
#include <doctest/doctest.h>

#include <string>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "models/pipeline_schedule.hpp"

using namespace trainsim;
using Kind = PipelineStep::Kind;

namespace {

bool is_pass(Kind k) {
  return k == Kind::forward || k == Kind::backward;
}

// Largest number of (micro batch, chunk) forwards done whose backward is not.
std::int64_t peak_in_flight(const std::vector<PipelineStep>& passes) {
  std::int64_t live = 0;
  std::int64_t peak = 0;
  for (const PipelineStep& s : passes) {
    live += s.kind == Kind::forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return peak;
}

// The other side of a transfer step: its kind, and whether it goes to the next virtual stage.
Kind partner_of(Kind k) {
  switch (k) {
    case Kind::send_forward:
      return Kind::recv_forward;
    case Kind::recv_forward:
      return Kind::send_forward;
    case Kind::send_backward:
      return Kind::recv_backward;
    default:
      return Kind::send_backward;
  }
}

// Replays every stage's steps with sends and receives matched in issue order per (sender,
// receiver) channel (the k-th send meets the k-th receive, which must name the same tensor),
// everything on one stream per GPU, the strictest order: each transfer a rendezvous at the
// heads of both stages' lists, except that for a batched schedule (TransferOrder::batched) the
// transfers between two passes are one call (one batch_isend_irecv, an NCCL group), which goes
// once every partner's call has been reached. Each pass takes `unit` x (1 forward, 2 backward)
// per chunk; a receive ends no earlier than its send is reached. Returns the makespan, or
// nullopt on a deadlock or mismatch. Transfers cost nothing. `inference`: inference_steps.
std::optional<double> replay(const PipelineShape& shape, bool inference = false) {
  const std::int64_t p = shape.stages;
  const bool grouped = transfer_order(shape.schedule) == TransferOrder::batched;
  std::vector<std::vector<PipelineStep>> steps;
  for (std::int64_t r = 0; r < p; ++r)
    steps.push_back(inference ? inference_steps(shape, r) : pipeline_steps(shape, r));
  const auto peer_of = [&](std::int64_t r, const PipelineStep& s) {
    const std::int64_t vs = s.chunk * p + r;
    const bool to_next = s.kind == Kind::send_forward || s.kind == Kind::recv_backward;
    const std::int64_t other = to_next ? vs + 1 : vs - 1;
    return other % p;
  };
  const auto sending = [](Kind k) { return k == Kind::send_forward || k == Kind::send_backward; };
  // Each transfer's call (the index of its first step) and its partner (stage, step index).
  using Where = std::pair<std::int64_t, std::size_t>;
  std::vector<std::vector<std::size_t>> call_of(static_cast<std::size_t>(p));
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Where>> sent;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Where>> received;
  for (std::int64_t r = 0; r < p; ++r) {
    const auto& list = steps[static_cast<std::size_t>(r)];
    auto& calls = call_of[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bool starts = !grouped || i == 0 || is_pass(list[i - 1].kind);
      calls.push_back(starts ? i : calls.back());
      if (is_pass(list[i].kind)) continue;
      const std::int64_t q = peer_of(r, list[i]);
      if (sending(list[i].kind)) {
        sent[{r, q}].push_back({r, i});
      } else {
        received[{q, r}].push_back({r, i});
      }
    }
  }
  std::map<Where, Where> partner;
  for (const auto& [channel, sends] : sent) {
    const auto& recvs = received[channel];
    if (recvs.size() != sends.size()) return std::nullopt;
    for (std::size_t k = 0; k < sends.size(); ++k) {
      const PipelineStep& a = steps[static_cast<std::size_t>(sends[k].first)][sends[k].second];
      const PipelineStep& b = steps[static_cast<std::size_t>(recvs[k].first)][recvs[k].second];
      if (partner_of(a.kind) != b.kind || a.micro_batch != b.micro_batch) return std::nullopt;
      partner[sends[k]] = recvs[k];
      partner[recvs[k]] = sends[k];
    }
  }
  std::size_t transfers = 0;
  for (const auto& list : steps)
    transfers += static_cast<std::size_t>(std::count_if(
        list.begin(), list.end(), [](const PipelineStep& s) { return !is_pass(s.kind); }));
  if (partner.size() != transfers) return std::nullopt;  // a receive no one sends
  std::vector<std::size_t> at(static_cast<std::size_t>(p), 0);
  std::vector<double> clock(static_cast<std::size_t>(p), 0.0);
  std::map<Where, double> reached;  // call -> when its stage reached it
  const double unit = 1.0 / static_cast<double>(shape.chunks);
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (std::int64_t r = 0; r < p; ++r) {
      auto& i = at[static_cast<std::size_t>(r)];
      auto& now = clock[static_cast<std::size_t>(r)];
      const auto& list = steps[static_cast<std::size_t>(r)];
      while (i < list.size()) {
        if (is_pass(list[i].kind)) {
          now += unit * (list[i].kind == Kind::forward ? 1.0 : 2.0);
          ++i;
          progressed = true;
          continue;
        }
        reached.emplace(Where{r, i}, now);
        // The call goes once every partner's call is reached; its receives end when their
        // senders reached theirs.
        std::size_t end = i;
        double done = now;
        bool ready = true;
        for (; end < list.size() && !is_pass(list[end].kind) &&
               call_of[static_cast<std::size_t>(r)][end] == i;
             ++end) {
          const Where other = partner.at({r, end});
          const auto it = reached.find(
              {other.first, call_of[static_cast<std::size_t>(other.first)][other.second]});
          if (it == reached.end()) {
            ready = false;
            break;
          }
          if (!sending(list[end].kind)) done = std::max(done, it->second);
        }
        if (!ready) break;
        now = done;
        i = end;
        progressed = true;
      }
    }
  }
  for (std::int64_t r = 0; r < p; ++r) {
    if (at[static_cast<std::size_t>(r)] != steps[static_cast<std::size_t>(r)].size())
      return std::nullopt;
  }
  return *std::max_element(clock.begin(), clock.end());
}

// Replays every stage's steps on three streams per GPU, as the Program does: the passes in
// order on compute, the sends in order on a send stream and the receives in order on a
// receive stream. A receive is posted once the passes listed before it are done (its buffer
// is allocated on the compute stream), a send once the pass that produced its tensor is
// done, a pass once the receive of its input is done; `order` (the schedule's TransferOrder)
// adds: batched, a pass waits for every transfer before it (the call's sends and receives).
// The k-th send from one stage to
// another meets the k-th receive of that stage from it (a rendezvous, free); both end when
// the later is posted. Returns the makespan, or nullopt on a deadlock.
std::optional<double> replay_streams(const PipelineShape& shape, bool inference,
                                     TransferOrder order) {
  const std::int64_t p = shape.stages;
  const double unit = 1.0 / static_cast<double>(shape.chunks);
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Op {
    PipelineStep step;
    std::int64_t peer = -1;  // transfers
    std::vector<std::size_t> deps;
    std::size_t match = kNone;  // transfers: the other side's op on `peer`
    std::optional<double> end;
  };
  std::vector<std::vector<Op>> ops(static_cast<std::size_t>(p));
  const auto peer_of = [&](std::int64_t r, const PipelineStep& s) {
    const std::int64_t vs = s.chunk * p + r;
    const bool to_next = s.kind == Kind::send_forward || s.kind == Kind::recv_backward;
    return (to_next ? vs + 1 : vs - 1) % p;
  };
  const auto receiving = [](Kind k) { return k == Kind::recv_forward || k == Kind::recv_backward; };
  // Per (sender, receiver): the ops of each side in issue order.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> sends;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> recvs;
  for (std::int64_t r = 0; r < p; ++r) {
    auto& list = ops[static_cast<std::size_t>(r)];
    std::size_t last_pass = kNone;
    std::size_t last_send = kNone;
    std::size_t last_recv = kNone;
    std::map<std::pair<Kind, std::int64_t>, std::size_t> by_key;  // (kind, mb x v + chunk)
    for (const PipelineStep& s : inference ? inference_steps(shape, r) : pipeline_steps(shape, r)) {
      const std::size_t i = list.size();
      const std::int64_t key = s.micro_batch * shape.chunks + s.chunk;
      Op op{s, -1, {}, kNone, std::nullopt};
      const auto after = [&](std::size_t j) {
        if (j != kNone) op.deps.push_back(j);
      };
      if (is_pass(s.kind)) {
        after(last_pass);
        if (order == TransferOrder::batched) {
          after(last_send);
          after(last_recv);
        }
        const Kind input = s.kind == Kind::forward ? Kind::recv_forward : Kind::recv_backward;
        const auto it = by_key.find({input, key});
        if (it != by_key.end()) after(it->second);
        last_pass = i;
      } else if (receiving(s.kind)) {
        op.peer = peer_of(r, s);
        after(last_recv);
        after(last_pass);
        last_recv = i;
        recvs[{op.peer, r}].push_back(i);
      } else {
        op.peer = peer_of(r, s);
        after(last_send);
        const Kind producer = s.kind == Kind::send_forward ? Kind::forward : Kind::backward;
        after(by_key.at({producer, key}));
        last_send = i;
        sends[{r, op.peer}].push_back(i);
      }
      by_key[{s.kind, key}] = i;
      list.push_back(std::move(op));
    }
  }
  for (const auto& [channel, send_ops] : sends) {
    const auto& recv_ops = recvs[channel];
    if (recv_ops.size() != send_ops.size()) return std::nullopt;
    for (std::size_t k = 0; k < send_ops.size(); ++k) {
      const PipelineStep& a = ops[static_cast<std::size_t>(channel.first)][send_ops[k]].step;
      const PipelineStep& b = ops[static_cast<std::size_t>(channel.second)][recv_ops[k]].step;
      if (partner_of(a.kind) != b.kind || a.micro_batch != b.micro_batch) return std::nullopt;
      ops[static_cast<std::size_t>(channel.first)][send_ops[k]].match = recv_ops[k];
      ops[static_cast<std::size_t>(channel.second)][recv_ops[k]].match = send_ops[k];
    }
  }
  // When every dependency of op i of stage r is done: the latest of their ends.
  const auto ready = [&](std::int64_t r, std::size_t i) -> std::optional<double> {
    double t = 0.0;
    for (const std::size_t d : ops[static_cast<std::size_t>(r)][i].deps) {
      const auto& end = ops[static_cast<std::size_t>(r)][d].end;
      if (!end) return std::nullopt;
      t = std::max(t, *end);
    }
    return t;
  };
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (std::int64_t r = 0; r < p; ++r) {
      auto& list = ops[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < list.size(); ++i) {
        Op& op = list[i];
        if (op.end) continue;
        const std::optional<double> t = ready(r, i);
        if (!t) continue;
        if (is_pass(op.step.kind)) {
          op.end = *t + unit * (op.step.kind == Kind::forward ? 1.0 : 2.0);
        } else {
          if (op.match == kNone) return std::nullopt;
          const std::optional<double> other = ready(op.peer, op.match);
          if (!other) continue;
          op.end = std::max(*t, *other);
          ops[static_cast<std::size_t>(op.peer)][op.match].end = op.end;
        }
        progressed = true;
      }
    }
  }
  double makespan = 0.0;
  for (const auto& list : ops) {
    for (const Op& op : list) {
      if (!op.end) return std::nullopt;
      makespan = std::max(makespan, *op.end);
    }
  }
  return makespan;
}

}  // namespace

TEST_CASE("pipeline orders: GPipe all forwards then all backwards, 1F1B warm-up p - s - 1") {
  const PipelineShape gpipe{PipelineSchedule::gpipe, 4, 6, 1};
  const auto g = pipeline_passes(gpipe, 2);
  REQUIRE(g.size() == 12);
  for (std::int64_t i = 0; i < 6; ++i) {
    CHECK(g[static_cast<std::size_t>(i)] == PipelineStep{Kind::forward, i, 0});
    CHECK(g[static_cast<std::size_t>(6 + i)] == PipelineStep{Kind::backward, i, 0});
  }
  // §7.3: rank 1 of 4 with m = 6: F0 F1 | F2 B0 F3 B1 F4 B2 F5 B3 | B4 B5.
  const PipelineShape one{PipelineSchedule::one_f_one_b, 4, 6, 1};
  std::string order;
  for (const PipelineStep& s : pipeline_passes(one, 1))
    order += to_string(s) + " ";
  CHECK(order == "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5 ");
  // The last stage alternates from the start; m < p caps the warm-up at m.
  order.clear();
  for (const PipelineStep& s : pipeline_passes(one, 3))
    order += to_string(s) + " ";
  CHECK(order == "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ");
  order.clear();
  for (const PipelineStep& s : pipeline_passes({PipelineSchedule::one_f_one_b, 4, 2, 1}, 0))
    order += to_string(s) + " ";
  CHECK(order == "F0 F1 B0 B1 ");
}

TEST_CASE("pipeline orders: interleaved as Megatron's table (§7.4 example p=2, v=2, m=4)") {
  const PipelineShape s{PipelineSchedule::interleaved, 2, 4, 2};
  std::vector<std::int64_t> forward_mbs;
  std::vector<std::int64_t> forward_chunks;
  for (const PipelineStep& step : pipeline_passes(s, 0)) {
    if (step.kind == Kind::forward) {
      forward_mbs.push_back(step.micro_batch);
      forward_chunks.push_back(step.chunk);
    }
  }
  CHECK(forward_mbs == std::vector<std::int64_t>{0, 1, 0, 1, 2, 3, 2, 3});
  CHECK(forward_chunks == std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
  CHECK(to_string(PipelineStep{Kind::backward, 3, 1}) == "B3.c1");
  CHECK(to_string(PipelineStep{Kind::send_forward, 2, 0}) == "send F2");
}

TEST_CASE("pipeline steps: interleaved transfers as Megatron's p2p calls (p=2, v=2, m=4)") {
  // forward_backward_pipelining_with_interleaving without overlap_p2p_comm, worked by hand
  // from its recv_prev / recv_next rules: "|" separates the passes from the call after them.
  const PipelineShape s{PipelineSchedule::interleaved, 2, 4, 2};
  const auto listing = [&](std::int64_t stage) {
    std::string out;
    bool in_call = false;
    for (const PipelineStep& step : pipeline_steps(s, stage)) {
      const bool pass = is_pass(step.kind);
      if (!pass && !in_call && !out.empty()) out += "| ";
      in_call = !pass;
      out += to_string(step) + " ";
    }
    return out;
  };
  // Rank 0 (warm-up 4): no input for chunk 0; the last warm-up call also receives backward 0's
  // gradient; each steady call sends the forward's output with the backward's input gradient.
  CHECK(listing(0) ==
        "F0 | send F0 F1 | send F1 recv F0.c1 F0.c1 | send F0.c1 recv F1.c1 F1.c1 | send F1.c1 "
        "recv B0.c1 F2 B0.c1 | send F2 send B0.c1 recv B1.c1 F3 B1.c1 | send F3 send B1.c1 "
        "recv F2.c1 recv B0 F2.c1 B0 | send F2.c1 recv F3.c1 recv B1 F3.c1 B1 | send F3.c1 "
        "recv B2.c1 B2.c1 | send B2.c1 recv B3.c1 B3.c1 | send B3.c1 recv B2 B2 | recv B3 B3 ");
  // Rank 1 (warm-up 2, the last stage): receives no gradient for chunk 1 and, looking back
  // p - 1, none in the first steady call.
  CHECK(listing(1) ==
        "recv F0 F0 | send F0 recv F1 F1 | send F1 recv F0.c1 F0.c1 B0.c1 | send B0.c1 "
        "recv F1.c1 F1.c1 B1.c1 | send B1.c1 recv F2 recv B0 F2 B0 | send F2 send B0 recv F3 "
        "recv B1 F3 B1 | send F3 send B1 recv F2.c1 F2.c1 B2.c1 | send B2.c1 recv F3.c1 F3.c1 "
        "B3.c1 | send B3.c1 recv B2 B2 | send B2 recv B3 B3 | send B3 ");
}

TEST_CASE("pipeline orders: breadth-first and layered run each chunk for all micro batches") {
  // §7.5 (PyTorch's ScheduleLoopedBFS): chunks ascending, then descending with the micro
  // batches reversed; §7.6 (LGA): the backward micro batches in order.
  const auto order = [](const PipelineShape& s, std::int64_t stage) {
    std::string out;
    for (const PipelineStep& step : pipeline_passes(s, stage))
      out += to_string(step) + " ";
    return out;
  };
  CHECK(order({PipelineSchedule::breadth_first, 2, 3, 2}, 0) ==
        "F0 F1 F2 F0.c1 F1.c1 F2.c1 B2.c1 B1.c1 B0.c1 B2 B1 B0 ");
  CHECK(order({PipelineSchedule::breadth_first, 2, 3, 2}, 1) ==
        order({PipelineSchedule::breadth_first, 2, 3, 2}, 0));
  CHECK(order({PipelineSchedule::layered, 4, 2, 3}, 3) ==
        "F0 F1 F0.c1 F1.c1 F0.c2 F1.c2 B0.c2 B1.c2 B0.c1 B1.c1 B0 B1 ");
  // One stage (LGA without a pipeline): the passes alone, no transfers.
  const PipelineShape lga{PipelineSchedule::layered, 1, 3, 4};
  CHECK(pipeline_steps(lga, 0) == pipeline_passes(lga, 0));
  CHECK(pipeline_steps(lga, 0).size() == 24);
}

TEST_CASE("pipeline orders: shapes that cannot run are problems, not deadlocks") {
  CHECK(pipeline_problem({PipelineSchedule::interleaved, 4, 6, 2})
            .value()
            .find("multiple of pipeline.size 4") != std::string::npos);
  CHECK(pipeline_problem({PipelineSchedule::interleaved, 4, 8, 1}).has_value());
  CHECK(pipeline_problem({PipelineSchedule::one_f_one_b, 4, 8, 2}).has_value());
  CHECK(pipeline_problem({PipelineSchedule::breadth_first, 4, 8, 1}).value().find("gpipe") !=
        std::string::npos);
  CHECK_FALSE(pipeline_problem({PipelineSchedule::breadth_first, 4, 2, 2}).has_value());
  CHECK_FALSE(pipeline_problem({PipelineSchedule::layered, 4, 3, 1}).has_value());
  CHECK_FALSE(pipeline_problem({PipelineSchedule::one_f_one_b, 4, 2, 1}).has_value());
  CHECK_THROWS_AS(pipeline_passes({PipelineSchedule::interleaved, 4, 6, 2}, 0),
                  std::invalid_argument);
}

TEST_CASE("pipeline orders: micro batches in flight per stage as §7.2-7.4") {
  for (std::int64_t p : {2, 4, 8}) {
    for (std::int64_t m : {1, 3, 8, 16}) {
      for (std::int64_t s = 0; s < p; ++s) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(s);
        CHECK(peak_in_flight(pipeline_passes({PipelineSchedule::gpipe, p, m, 1}, s)) == m);
        CHECK(peak_in_flight(pipeline_passes({PipelineSchedule::one_f_one_b, p, m, 1}, s)) ==
              std::min(p - s, m));
      }
      for (std::int64_t v : {2, 3}) {
        if (m % p != 0) continue;
        // Rank 0: 2(p - 1) + (v - 1)p + 1 chunk-micro-batches, capped at m·v.
        CHECK(peak_in_flight(pipeline_passes({PipelineSchedule::interleaved, p, m, v}, 0)) ==
              std::min(2 * (p - 1) + (v - 1) * p + 1, m * v));
      }
      for (std::int64_t v : {2, 3}) {
        // §7.5, §7.6: all m·v chunk-micro-batches at the forward-backward switch, every stage.
        for (std::int64_t s = 0; s < p; ++s) {
          CHECK(peak_in_flight(pipeline_passes({PipelineSchedule::breadth_first, p, m, v}, s)) ==
                m * v);
          CHECK(peak_in_flight(pipeline_passes({PipelineSchedule::layered, p, m, v}, s)) == m * v);
        }
      }
    }
  }
}

TEST_CASE("pipeline steps: every shape runs to the end, unit-time bubble = (p-1)/m, (p-1)/(vm)") {
  for (std::int64_t p : {1, 2, 3, 4, 8}) {
    for (std::int64_t m = 1; m <= 12; ++m) {
      for (const PipelineSchedule schedule :
           {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(to_string(schedule));
        const std::optional<double> makespan = replay({schedule, p, m, 1});
        REQUIRE(makespan.has_value());
        // Ideal m (t_f + t_b) = 3m; the flush adds (p - 1)(t_f + t_b).
        const double bubble = (*makespan - 3.0 * static_cast<double>(m)) / (3.0 * m);
        CHECK(bubble == doctest::Approx(static_cast<double>(p - 1) / static_cast<double>(m)));
      }
      for (std::int64_t v : {2, 3}) {
        if (p < 2 || m % p != 0) continue;
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(v);
        const std::optional<double> makespan = replay({PipelineSchedule::interleaved, p, m, v});
        REQUIRE(makespan.has_value());
        const double bubble = (*makespan - 3.0 * static_cast<double>(m)) / (3.0 * m);
        CHECK(bubble == doctest::Approx(static_cast<double>(p - 1) / static_cast<double>(v * m)));
      }
    }
  }
}

TEST_CASE("pipeline steps: breadth-first and layered run to the end, bubble (p-1)/(vm) if m >= p") {
  for (std::int64_t p : {2, 3, 4, 8}) {
    for (std::int64_t m = 1; m <= 12; ++m) {
      for (std::int64_t v : {2, 3}) {
        for (const PipelineSchedule schedule :
             {PipelineSchedule::breadth_first, PipelineSchedule::layered}) {
          CAPTURE(p);
          CAPTURE(m);
          CAPTURE(v);
          CAPTURE(to_string(schedule));
          const std::optional<double> makespan = replay({schedule, p, m, v});
          REQUIRE(makespan.has_value());
          const double bubble = (*makespan - 3.0 * static_cast<double>(m)) / (3.0 * m);
          const double formula = static_cast<double>(p - 1) / static_cast<double>(v * m);
          // No loop stalls iff m >= p (§7.5); below, every loop waits for the wrap-around.
          if (m >= p) {
            CHECK(bubble == doctest::Approx(formula));
          } else {
            CHECK(bubble > formula);
          }
        }
      }
    }
  }
  // §7.7: p = 4, v = 2, m = 2 stalls to 1.25 instead of 0.75.
  const double stalled = (*replay({PipelineSchedule::breadth_first, 4, 2, 2}) - 6.0) / 6.0;
  CHECK(stalled == doctest::Approx(1.25));
  CHECK((*replay({PipelineSchedule::layered, 4, 2, 2}) - 6.0) / 6.0 == doctest::Approx(1.25));
}

TEST_CASE("pipeline steps: with sends and receives on streams of their own, no deadlock either") {
  // The Program's model (Stream::pp_send, pp_recv): every shape of every schedule still runs
  // to the end, never slower than on one stream, and with free transfers at the same bubble.
  using S = PipelineSchedule;
  for (const bool inference : {false, true}) {
    for (std::int64_t p : {1, 2, 3, 4, 8}) {
      for (std::int64_t m = 1; m <= 12; ++m) {
        for (const auto& [schedule, v] :
             {std::pair{S::gpipe, 1}, std::pair{S::one_f_one_b, 1}, std::pair{S::interleaved, 2},
              std::pair{S::interleaved, 3}, std::pair{S::breadth_first, 2},
              std::pair{S::breadth_first, 3}, std::pair{S::layered, 2}, std::pair{S::layered, 3}}) {
          const PipelineShape shape{schedule, p, m, v};
          if (pipeline_problem(shape) || (p == 1 && schedule != S::gpipe && schedule != S::layered))
            continue;
          CAPTURE(inference);
          CAPTURE(p);
          CAPTURE(m);
          CAPTURE(v);
          CAPTURE(to_string(schedule));
          const std::optional<double> one = replay(shape, inference);
          REQUIRE(one.has_value());
          // The schedule's runtime (transfer_order) and, a stricter test of the step orders,
          // every schedule run asynchronously (passes waiting only for their receives).
          for (const TransferOrder order :
               {transfer_order(schedule), TransferOrder::asynchronous}) {
            CAPTURE(to_string(order));
            const std::optional<double> split = replay_streams(shape, inference, order);
            REQUIRE(split.has_value());
            CHECK(*split <= *one + 1e-9);
            if (!inference && (v == 1 || m >= p)) {
              const double bubble = (*split - 3.0 * static_cast<double>(m)) / (3.0 * m);
              CHECK(bubble ==
                    doctest::Approx(static_cast<double>(p - 1) / static_cast<double>(v * m)));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("inference steps: every schedule and shape runs to the end, forward passes only") {
  using S = PipelineSchedule;
  for (std::int64_t p : {1, 2, 3, 4, 8}) {
    for (std::int64_t m = 1; m <= 12; ++m) {
      for (const auto& [schedule, v] :
           {std::pair{S::gpipe, 1}, std::pair{S::one_f_one_b, 1}, std::pair{S::interleaved, 2},
            std::pair{S::breadth_first, 3}, std::pair{S::layered, 2}}) {
        const PipelineShape shape{schedule, p, m, v};
        if (pipeline_problem(shape) || (p == 1 && schedule != S::layered)) continue;
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(to_string(schedule));
        REQUIRE(replay(shape, true).has_value());
        for (std::int64_t r = 0; r < p; ++r) {
          const std::vector<PipelineStep> steps = inference_steps(shape, r);
          std::int64_t passes = 0;
          for (const PipelineStep& step : steps) {
            CHECK((step.kind == Kind::forward || step.kind == Kind::send_forward ||
                   step.kind == Kind::recv_forward));
            passes += step.kind == Kind::forward ? 1 : 0;
          }
          CHECK(passes == m * v);
        }
      }
    }
  }
  // One chunk per stage: micro batch after micro batch, each received before its forward and
  // sent after it (the next receive may go ahead of the send: a unit-time run produces both
  // at once).
  const std::vector<PipelineStep> middle = inference_steps({S::one_f_one_b, 3, 3, 1}, 1);
  std::vector<std::string> order;
  for (const PipelineStep& step : middle)
    order.push_back(to_string(step));
  CHECK(order == std::vector<std::string>{"recv F0", "F0", "recv F1", "send F0", "F1", "recv F2",
                                          "send F1", "F2", "send F2"});
}
