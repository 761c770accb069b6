#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "models/errors.hpp"
#include "models/scaling_laws.hpp"

using namespace trainsim;
using namespace trainsim::scaling;

TEST_CASE("critical batch: eq. 1.4 at L = 1 is B*, and §10.1's worked examples") {
  // L^(1/α_B) = 1 at L = 1, whatever α_B: the law's scale alone.
  CHECK(critical_batch(1.0).count() == doctest::Approx(2e8).epsilon(1e-12));
  // §10.1 prints two digits, computed with 1/α_B ≈ 4.76 rather than 1/0.21 = 4.7619: at
  // L = 2.5 that gives 2.552e6 → "2.6e6", while 4.7619 gives 2.547e6. 2.5 % covers the
  // rounding of every example and would catch a wrong exponent or scale.
  CHECK(critical_batch(3.5).count() == doctest::Approx(5.1e5).epsilon(0.025));
  CHECK(critical_batch(2.5).count() == doctest::Approx(2.6e6).epsilon(0.025));
  CHECK(critical_batch(2.0).count() == doctest::Approx(7.4e6).epsilon(0.025));
  // The critical batch grows as the loss falls.
  CHECK(critical_batch(2.0) > critical_batch(2.5));
}

TEST_CASE("lamy-poirier2021's batch: 1536 × 2048 tokens is the critical batch at 2.39 nats") {
  const Tokens batch = Tokens::of(1536.0 * 2048.0);  // 3.15 M tokens
  CHECK(std::round(loss_at_critical_batch(batch) * 100.0) / 100.0 == 2.39);
  CHECK(critical_batch(2.39).count() == doctest::Approx(3.15e6).epsilon(0.005));
}

TEST_CASE("loss laws: eq. 1.6 and eq. 1.5 at their scales") {
  // At N = N_c the floor is 1; at S_min = S_c the step term is 1; at D = D_c, 2^α_D.
  CHECK(loss_floor(8.8e13) == doctest::Approx(1.0));
  CHECK(loss_after_steps(8.8e13, 2.1e3) == doctest::Approx(2.0));
  CHECK(loss_after_tokens(8.8e13, Tokens::of(5.4e13)) == doctest::Approx(std::pow(2.0, 0.095)));
  // A larger model reaches a lower floor; more steps a lower loss.
  CHECK(loss_floor(175e9) < loss_floor(1.3e9));
  CHECK(loss_after_steps(175e9, 1e5) < loss_after_steps(175e9, 1e4));
  // With unlimited data the data law approaches the same floor as the step law.
  CHECK(loss_after_tokens(175e9, Tokens::of(1e30)) == doctest::Approx(loss_floor(175e9)));
}

TEST_CASE("the inverses round-trip") {
  for (const double n : {1e6, 1.3e9, 175e9, 1e12}) {
    for (const double steps : {10.0, 1e3, 1e5, 1e7}) {
      const double loss = loss_after_steps(n, steps);
      CHECK(min_steps_to_loss(n, loss) == doctest::Approx(steps).epsilon(1e-9));
    }
    for (const double d : {1e6, 1e9, 3e11, 1e13}) {
      const double loss = loss_after_tokens(n, Tokens::of(d));
      CHECK(data_for_loss(n, loss).count() == doctest::Approx(d).epsilon(1e-6));
    }
  }
  for (const double loss : {1.5, 2.39, 3.0, 6.0})
    CHECK(loss_at_critical_batch(critical_batch(loss)) == doctest::Approx(loss).epsilon(1e-12));
}

TEST_CASE("steps and compute trade-off: eqs. 5.4, 5.5") {
  const MinimalRun run = minimal_run(175e9, 2.2);
  CHECK(run.critical_batch == critical_batch(2.2));
  CHECK(run.min_steps == doctest::Approx(min_steps_to_loss(175e9, 2.2)));
  CHECK(run.min_tokens.count() == doctest::Approx(run.min_steps * run.critical_batch.count()));
  // At B = B_crit a run takes twice the minimum steps and twice the minimum tokens.
  CHECK(run.steps_at(run.critical_batch) == doctest::Approx(2.0 * run.min_steps));
  CHECK(run.tokens_at(run.critical_batch).count() == doctest::Approx(2.0 * run.min_tokens.count()));
  // Any batch lies on the hyperbola (S/S_min − 1)(E/E_min − 1) = 1, and S·B = E.
  for (const double k : {0.125, 0.5, 3.0, 8.0}) {
    const Tokens b = run.critical_batch * k;
    CHECK((steps_factor(b, run.critical_batch) - 1.0) *
              (tokens_factor(b, run.critical_batch) - 1.0) ==
          doctest::Approx(1.0));
    CHECK(run.steps_at(b) * b.count() == doctest::Approx(run.tokens_at(b).count()));
  }
  CHECK(steps_factor(run.critical_batch * 8.0, run.critical_batch) == doctest::Approx(1.125));
  CHECK(tokens_factor(run.critical_batch * 8.0, run.critical_batch) == doctest::Approx(9.0));
}

TEST_CASE("a loss at or below the model's floor is an error that gives the floor") {
  const double floor = loss_floor(175e9);  // ≈ 1.60 nats
  CHECK(floor == doctest::Approx(1.6).epsilon(0.01));
  for (const double loss : {floor, 1.5}) {
    try {
      (void)min_steps_to_loss(175e9, loss);
      FAIL("expected Infeasible");
    } catch (const Infeasible& e) {
      const std::string m = e.what();
      CHECK(m.find("is below what a model of 1.75e+11 parameters reaches") != std::string::npos);
      CHECK(m.find("(N_c/N)^α_N = 1.6") != std::string::npos);
    }
    CHECK_THROWS_AS((void)data_for_loss(175e9, loss), Infeasible);
    CHECK_THROWS_AS((void)minimal_run(175e9, loss), Infeasible);
  }
  CHECK_NOTHROW((void)min_steps_to_loss(175e9, floor * 1.001));
}

TEST_CASE("non-positive inputs are rejected, naming the quantity") {
  CHECK_THROWS_WITH_AS((void)critical_batch(0.0), "loss must be a positive finite number; got 0",
                       std::invalid_argument);
  CHECK_THROWS_AS((void)critical_batch(-2.0), std::invalid_argument);
  CHECK_THROWS_AS((void)loss_floor(-1.0), std::invalid_argument);
  CHECK_THROWS_AS((void)loss_after_steps(1e9, 0.0), std::invalid_argument);
  CHECK_THROWS_AS((void)loss_after_tokens(1e9, Tokens::of(-5.0)), std::invalid_argument);
  CHECK_THROWS_AS((void)loss_at_critical_batch(Tokens::of(0.0)), std::invalid_argument);
  CHECK_THROWS_AS((void)steps_factor(Tokens::of(0.0), Tokens::of(1e6)), std::invalid_argument);
  CHECK_THROWS_AS((void)min_steps_to_loss(0.0, 2.0), std::invalid_argument);
}

TEST_CASE("Kaplan's N leaves out the embeddings") {
  ModelSpec m;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.ffn = 4 * 12288;
  m.seq_len = 2048;
  m.vocab = 51200;
  CHECK(non_embedding_parameters(m) ==
        static_cast<double>(96 * m.parameters_per_layer() + 2 * m.hidden));
  CHECK(non_embedding_parameters(m) == doctest::Approx(12.0 * 96 * 12288.0 * 12288).epsilon(0.01));
}
