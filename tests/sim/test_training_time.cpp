#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/errors.hpp"
#include "models/scaling_laws.hpp"
#include "sim/analysis/training_time.hpp"
#include "sim_fixtures.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {

ModelSpec tiny_model() {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 128;
  m.heads = 4;
  m.ffn = 512;
  m.seq_len = 128;
  m.vocab = 512;
  m.vocab_divisor = 1;
  return m;
}

// A small grid: batches 4, 8, 16 around a reference batch of 8, GPUs 4, 2, 1, 1D layouts
// with micro batches up to 2, one thread.
TrainingTimeRequest tiny_request() {
  TrainingTimeRequest r;
  r.tokens = 1e9;
  r.reference_batch = 8;
  r.max_gpus = 4;
  r.batch_span = 1;
  r.search.threads = 1;
  r.search.space.tensor_grids = false;
  r.search.space.max_micro_batch = 2;
  return r;
}

TrainingPoint point(double seconds, double gpu_hours) {
  TrainingPoint p;
  p.seconds = seconds;
  p.gpu_hours = gpu_hours;
  return p;
}

std::string message_of(const ModelSpec& model, const TrainingTimeRequest& r) {
  try {
    search_training_time(model, test::small_profile(), r);
  } catch (const Infeasible& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("training time: steps at the critical batch are twice S_min, and fall towards S_min") {
  const scaling::Tokens critical = scaling::Tokens::of(1024.0 * 2048.0);
  CHECK(steps_at(1000.0, critical, 1024, 2048) == doctest::Approx(2000.0));
  CHECK(steps_at(1000.0, critical, 4096, 2048) == doctest::Approx(1250.0));
  CHECK(steps_at(1000.0, critical, 256, 2048) == doctest::Approx(5000.0));
}

TEST_CASE("training time: the Pareto filter keeps the non-dominated points by time") {
  // 1 dominates 3 (faster and cheaper); 4 equals 0 and comes later; 2 is slower but cheapest.
  const std::vector<TrainingPoint> points{point(10, 100), point(5, 200), point(20, 50),
                                          point(12, 150), point(10, 100)};
  CHECK(pareto_front(points) == std::vector<std::size_t>{1, 0, 2});
  CHECK(pareto_front({}).empty());
}

TEST_CASE("training time: the best point is the fastest, on the front, within --max-gpus") {
  const ModelSpec model = tiny_model();
  const TrainingTimeResult r = search_training_time(model, test::small_profile(), tiny_request());
  CHECK(r.batches == std::vector<std::int64_t>{4, 8, 16});
  CHECK(r.gpu_counts == std::vector<std::int64_t>{4, 2, 1});
  // --tokens N: E_min = N/2 at B_crit = the reference batch (8 × 128 tokens).
  CHECK(r.critical_batch.count() == doctest::Approx(1024.0));
  CHECK(r.min_steps == doctest::Approx(1e9 / 2048.0));
  REQUIRE(!r.points.empty());
  REQUIRE(!r.front.empty());
  CHECK(r.front.front() == r.best);
  for (const TrainingPoint& p : r.points) {
    CHECK(p.gpus <= 4);
    CHECK(p.layout.fits);
    CHECK(r.points[r.best].seconds <= p.seconds);
    CHECK(p.seconds == doctest::Approx(p.steps * p.layout.iteration.seconds()));
    CHECK(p.gpu_hours == doctest::Approx(p.seconds * static_cast<double>(p.gpus) / 3600.0));
  }
  // Every point off the front is dominated by one on it.
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    bool dominated_or_on = false;
    for (std::size_t f : r.front) {
      dominated_or_on |= f == i || (r.points[f].seconds <= r.points[i].seconds &&
                                    r.points[f].gpu_hours <= r.points[i].gpu_hours);
    }
    CHECK(dominated_or_on);
  }

  TrainingTimeRequest two = tiny_request();
  two.max_gpus = 2;
  const TrainingTimeResult r2 = search_training_time(model, test::small_profile(), two);
  for (const TrainingPoint& p : r2.points)
    CHECK(p.gpus <= 2);
}

TEST_CASE("training time: deterministic, whatever the thread count") {
  const ModelSpec model = tiny_model();
  TrainingTimeRequest two_threads = tiny_request();
  two_threads.search.threads = 2;
  const TrainingTimeResult a = search_training_time(model, test::small_profile(), tiny_request());
  const TrainingTimeResult b = search_training_time(model, test::small_profile(), two_threads);
  REQUIRE(a.points.size() == b.points.size());
  CHECK(a.best == b.best);
  CHECK(a.front == b.front);
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(a.points[i].seconds == b.points[i].seconds);
    CHECK(describe(a.points[i].layout.candidate.layout) ==
          describe(b.points[i].layout.candidate.layout));
  }
}

TEST_CASE("training time: each point is what plan finds there alone") {
  // The grid's searches share their fits and run one per thread; neither may change a point.
  const ModelSpec model = tiny_model();
  TrainingTimeRequest request = tiny_request();
  request.search.threads = 2;
  const TrainingTimeResult r = search_training_time(model, test::small_profile(), request);
  REQUIRE(!r.points.empty());
  for (const TrainingPoint& p : r.points) {
    INFO(p.batch, " sequences on ", p.gpus, " GPUs");
    const SearchResult alone =
        search_layouts(model, test::small_profile(), p.gpus, p.batch, tiny_request().search);
    CHECK(describe(alone.best.front().candidate.layout) == describe(p.layout.candidate.layout));
    CHECK(alone.best.front().iteration == p.layout.iteration);
    CHECK(alone.best.front().peak == p.layout.peak);
  }
}

TEST_CASE("training time: a target loss sets B_crit and S_min from Kaplan's laws") {
  const ModelSpec model = tiny_model();
  TrainingTimeRequest r = tiny_request();
  r.tokens.reset();
  const double floor = scaling::loss_floor(scaling::non_embedding_parameters(model));
  r.target_loss = floor + 0.5;
  r.batch_span = 0;
  r.max_gpus = 1;
  const TrainingTimeResult t = search_training_time(model, test::small_profile(), r);
  CHECK(t.loss_nats == doctest::Approx(floor + 0.5));
  CHECK(t.critical_batch.count() == doctest::Approx(scaling::critical_batch(floor + 0.5).count()));
  CHECK(t.min_steps == doctest::Approx(scaling::min_steps_to_loss(t.parameters, floor + 0.5)));
}

TEST_CASE("training time: the batch grid doubles from B_crit rounded to 2^a or 3·2^a") {
  const ModelSpec model = tiny_model();
  TrainingTimeRequest r = tiny_request();
  r.max_gpus = 1;
  r.reference_batch = 12;  // 3·2^2: the centre itself
  CHECK(search_training_time(model, test::small_profile(), r).batches ==
        std::vector<std::int64_t>{6, 12, 24});
  r.reference_batch = 9;  // nearer 8 than 12 by ratio
  CHECK(search_training_time(model, test::small_profile(), r).batches ==
        std::vector<std::int64_t>{4, 8, 16});
  r.reference_batch = 11;  // nearer 12
  r.batch_span = 3;        // 12/8 is not whole: left out
  CHECK(search_training_time(model, test::small_profile(), r).batches ==
        std::vector<std::int64_t>{3, 6, 12, 24, 48, 96});
}

TEST_CASE("training time: impossible requests are errors naming the field") {
  const ModelSpec model = tiny_model();
  TrainingTimeRequest r = tiny_request();
  r.tokens = 0.0;
  CHECK(message_of(model, r).find("tokens: 0; use a positive number") != std::string::npos);
  r.tokens = -5.0;
  CHECK(message_of(model, r).find("tokens: -5") != std::string::npos);

  r = tiny_request();
  r.target_loss =
      scaling::loss_floor(scaling::non_embedding_parameters(model)) - 0.01;  // below the floor
  CHECK(message_of(model, r).find("target_loss:") != std::string::npos);
  CHECK(message_of(model, r).find("(N_c/N)^α_N") != std::string::npos);

  r = tiny_request();
  r.max_gpus = 4096;  // batch 16 on 2 layers, 4 heads: at most 16 × 2 × 4 = 128 GPUs
  CHECK(message_of(model, r).find("max_gpus: 4096 GPUs: the largest batch searched, 16") !=
        std::string::npos);
  r.max_gpus = 0;
  CHECK(message_of(model, r).find("max_gpus: 0; use 1 or more") != std::string::npos);

  r = tiny_request();
  r.tokens.reset();
  CHECK(message_of(model, r).find("neither given") != std::string::npos);
}

// ---- with failures --------------------------------------------------------------------------

namespace {

// small_profile with interruptions frequent enough to matter on the tiny model's runs of a
// few hundred seconds (one every ~5 min on 4 GPUs), a 30 s restart and a slow file system.
hw::HardwareProfile failing_profile() {
  hw::HardwareProfile hw = test::small_profile();
  hw::ReliabilitySpec r;
  r.unplanned.push_back({"faulty_gpu", InterruptionRate::per_gpu_day(50.0)});
  r.unplanned.push_back({"network", InterruptionRate::per_gpu_day(25.0)});
  r.planned = InterruptionRate::per_gpu_day(5.0);
  r.detect = Time::from_seconds(10.0);
  r.restart = Time::from_seconds(20.0);
  r.checkpoint.device_to_host = Bandwidth::gb_per_s(1);
  r.checkpoint.node_write = Bandwidth::gb_per_s(1);
  r.checkpoint.node_read = Bandwidth::gb_per_s(1);
  r.checkpoint.filesystem_write = Bandwidth::gb_per_s(0.01);
  r.checkpoint.filesystem_read = Bandwidth::gb_per_s(0.01);
  hw.reliability = r;
  return hw;
}

TrainingTimeRequest failing_request(std::uint64_t seed = 1, unsigned threads = 1) {
  TrainingTimeRequest r = tiny_request();
  r.search.threads = threads;
  r.failures = FailureOptions{200, seed};
  return r;
}

}  // namespace

TEST_CASE(
    "training time with failures: every point's wall is at least its work, the front is "
    "non-dominated") {
  const ModelSpec model = tiny_model();
  const TrainingTimeResult r = search_training_time(model, failing_profile(), failing_request());
  REQUIRE(r.failures);
  REQUIRE(!r.points.empty());
  for (const TrainingPoint& p : r.points) {
    REQUIRE(p.goodput);
    const PointGoodput& g = *p.goodput;
    CHECK(g.work_s == p.seconds);
    CHECK(g.expected_wall_s >= p.seconds);
    CHECK(g.monte_carlo.p50 >= p.seconds);
    CHECK(g.monte_carlo.p90 >= g.monte_carlo.p50);
    CHECK(g.monte_carlo.wall_s.empty());  // summarised
    CHECK(g.run.gpus == p.gpus);
    CHECK(g.run.interval_steps >= 1);
    CHECK(g.run.effective > 0.0);
    CHECK(g.run.effective < 1.0);
    CHECK(g.gpu_hours == doctest::Approx(static_cast<double>(p.gpus) * g.expected_wall_s / 3600.0));
    CHECK(g.seed == point_seed(1, p.batch, p.gpus));
  }
  // Failures cost something here: on average well above a tenth of a percent.
  const PointGoodput& at_best = *r.points[r.best].goodput;
  CHECK(at_best.expected_wall_s > 1.001 * at_best.work_s);

  const std::vector<std::size_t>& front = r.failures->front;
  REQUIRE(!front.empty());
  CHECK(r.failures->best == front.front());
  const auto p50 = [&](std::size_t i) { return r.points[i].goodput->monte_carlo.p50; };
  const auto cost = [&](std::size_t i) { return r.points[i].goodput->gpu_hours; };
  for (std::size_t i = 0; i < r.points.size(); ++i)
    CHECK(p50(r.failures->best) <= p50(i));
  // No front point dominates another; every point off the front is dominated by one on it.
  for (std::size_t a : front) {
    for (std::size_t b : front) {
      if (a == b) continue;
      CHECK_FALSE((p50(a) <= p50(b) && cost(a) <= cost(b)));
    }
  }
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    bool dominated_or_on = false;
    for (std::size_t f : front)
      dominated_or_on |= f == i || (p50(f) <= p50(i) && cost(f) <= cost(i));
    CHECK(dominated_or_on);
  }
  for (std::size_t k = 1; k < front.size(); ++k)
    CHECK(p50(front[k - 1]) < p50(front[k]));
}

TEST_CASE("training time with failures: the same seed draws the same runs, on any thread count") {
  const ModelSpec model = tiny_model();
  const TrainingTimeResult a =
      search_training_time(model, failing_profile(), failing_request(1, 1));
  const TrainingTimeResult b =
      search_training_time(model, failing_profile(), failing_request(1, 2));
  const TrainingTimeResult c =
      search_training_time(model, failing_profile(), failing_request(2, 1));
  REQUIRE(a.points.size() == b.points.size());
  REQUIRE(a.points.size() == c.points.size());
  bool another_seed_differs = false;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    const PointGoodput& x = *a.points[i].goodput;
    const PointGoodput& y = *b.points[i].goodput;
    CHECK(x.monte_carlo.p50 == y.monte_carlo.p50);
    CHECK(x.monte_carlo.p90 == y.monte_carlo.p90);
    CHECK(x.monte_carlo.mean == y.monte_carlo.mean);
    CHECK(x.expected_wall_s == y.expected_wall_s);
    CHECK(x.run.interval_steps == y.run.interval_steps);
    const PointGoodput& z = *c.points[i].goodput;
    another_seed_differs |= z.monte_carlo.mean != x.monte_carlo.mean;
    CHECK(z.expected_wall_s == x.expected_wall_s);  // the closed form draws nothing
  }
  CHECK(another_seed_differs);
  CHECK(a.failures->front == b.failures->front);
  CHECK(a.failures->best == b.failures->best);
}

TEST_CASE("training time with failures: a point's seed is its own, whatever the grid") {
  // Mixed from the base seed and the point's (batch, GPUs): swapping them, or the base, moves it.
  CHECK(point_seed(1, 8, 4) == point_seed(1, 8, 4));
  CHECK(point_seed(1, 8, 4) != point_seed(1, 4, 8));
  CHECK(point_seed(1, 8, 4) != point_seed(2, 8, 4));
  // A point keeps its figures in a smaller grid (--max-gpus 2 drops the 4-GPU column).
  const ModelSpec model = tiny_model();
  const TrainingTimeResult wide = search_training_time(model, failing_profile(), failing_request());
  TrainingTimeRequest narrow_request = failing_request();
  narrow_request.max_gpus = 2;
  const TrainingTimeResult narrow = search_training_time(model, failing_profile(), narrow_request);
  for (const TrainingPoint& n : narrow.points) {
    for (const TrainingPoint& w : wide.points) {
      if (w.batch != n.batch || w.gpus != n.gpus) continue;
      CHECK(w.goodput->monte_carlo.p50 == n.goodput->monte_carlo.p50);
      CHECK(w.goodput->monte_carlo.p90 == n.goodput->monte_carlo.p90);
    }
  }
}

TEST_CASE("training time with failures: without them the result is the failure-free one exactly") {
  const ModelSpec model = tiny_model();
  // The same search on a profile without a reliability section, on one with it but failures
  // not requested (--no-failures), and with failures.
  const TrainingTimeResult plain =
      search_training_time(model, test::small_profile(), tiny_request());
  const TrainingTimeResult off = search_training_time(model, failing_profile(), tiny_request());
  const TrainingTimeResult on = search_training_time(model, failing_profile(), failing_request());
  CHECK_FALSE(off.failures);
  for (const TrainingTimeResult* other : {&off, &on}) {
    REQUIRE(other->points.size() == plain.points.size());
    CHECK(other->best == plain.best);
    CHECK(other->front == plain.front);
    CHECK(other->skipped.size() == plain.skipped.size());
    CHECK(other->best_at_batch_edge == plain.best_at_batch_edge);
    for (std::size_t i = 0; i < plain.points.size(); ++i) {
      const TrainingPoint& p = plain.points[i];
      const TrainingPoint& q = other->points[i];
      CHECK(q.batch == p.batch);
      CHECK(q.gpus == p.gpus);
      CHECK(q.steps == p.steps);
      CHECK(q.seconds == p.seconds);
      CHECK(q.gpu_hours == p.gpu_hours);
      CHECK(q.layout.iteration == p.layout.iteration);
      CHECK(describe(q.layout.candidate.layout) == describe(p.layout.candidate.layout));
      CHECK(q.goodput.has_value() == (other == &on));
    }
  }
}

TEST_CASE("training time with failures: a profile without a reliability section is an error") {
  const ModelSpec model = tiny_model();
  TrainingTimeRequest r = failing_request();
  CHECK(message_of(model, r).find("failures: profile 'test' has no reliability: section") !=
        std::string::npos);
  r.failures->samples = 0;
  try {
    search_training_time(model, failing_profile(), r);
    FAIL("no error");
  } catch (const Infeasible& e) {
    CHECK(std::string(e.what()).find("failures.samples: 0") != std::string::npos);
  }
}
