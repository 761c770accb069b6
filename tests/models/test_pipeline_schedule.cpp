// Pipeline schedules as step lists (parallelism-reference §7): the per-rank orders of the
// pseudo-code, micro batches in flight, the bubble of a unit-time run, and that the transfers
// placed between the passes never deadlock when matched in issue order per channel, for
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

// Replays every stage's steps with sends and receives matched in issue order per (sender,
// receiver) channel, each transfer a rendezvous at the heads of both stages' in-order lists
// (one p2p stream per GPU) and each pass taking `unit` x (1 forward, 2 backward) per chunk.
// Returns the makespan, or nullopt on a deadlock. Transfers cost nothing.
// `inference`: inference_steps, forward passes only.
std::optional<double> replay(const PipelineShape& shape, bool inference = false) {
  const std::int64_t p = shape.stages;
  std::vector<std::vector<PipelineStep>> steps;
  for (std::int64_t r = 0; r < p; ++r)
    steps.push_back(inference ? inference_steps(shape, r) : pipeline_steps(shape, r));
  std::vector<std::size_t> at(static_cast<std::size_t>(p), 0);
  std::vector<double> clock(static_cast<std::size_t>(p), 0.0);
  const double unit = 1.0 / static_cast<double>(shape.chunks);
  const auto peer_of = [&](std::int64_t r, const PipelineStep& s) {
    const std::int64_t vs = s.chunk * p + r;
    const bool to_next = s.kind == Kind::send_forward || s.kind == Kind::recv_backward;
    const std::int64_t other = to_next ? vs + 1 : vs - 1;
    return other % p;
  };
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (std::int64_t r = 0; r < p; ++r) {
      auto& i = at[static_cast<std::size_t>(r)];
      const auto& list = steps[static_cast<std::size_t>(r)];
      while (i < list.size()) {
        const PipelineStep& s = list[i];
        if (is_pass(s.kind)) {
          clock[static_cast<std::size_t>(r)] += unit * (s.kind == Kind::forward ? 1.0 : 2.0);
          ++i;
          progressed = true;
          continue;
        }
        // A transfer: the peer's head must be the matching other side.
        const std::int64_t q = peer_of(r, s);
        const auto& other = steps[static_cast<std::size_t>(q)];
        const std::size_t j = at[static_cast<std::size_t>(q)];
        if (j >= other.size()) return std::nullopt;
        const PipelineStep& o = other[j];
        const std::map<Kind, Kind> partner{{Kind::send_forward, Kind::recv_forward},
                                           {Kind::recv_forward, Kind::send_forward},
                                           {Kind::send_backward, Kind::recv_backward},
                                           {Kind::recv_backward, Kind::send_backward}};
        if (o.kind != partner.at(s.kind) || o.micro_batch != s.micro_batch || peer_of(q, o) != r) {
          break;
        }
        const double t =
            std::max(clock[static_cast<std::size_t>(r)], clock[static_cast<std::size_t>(q)]);
        // The receiver waits for the data; the sender does not wait (the data is ready).
        const bool receiving = s.kind == Kind::recv_forward || s.kind == Kind::recv_backward;
        if (receiving) {
          clock[static_cast<std::size_t>(r)] =
              std::max(clock[static_cast<std::size_t>(r)], clock[static_cast<std::size_t>(q)]);
        } else {
          clock[static_cast<std::size_t>(q)] = std::max(clock[static_cast<std::size_t>(q)], t);
        }
        ++i;
        ++at[static_cast<std::size_t>(q)];
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
