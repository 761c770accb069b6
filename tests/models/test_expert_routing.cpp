// The routing the meta backend assumes for a MoE layer (models/expert_routing.hpp): shares
// that sum to 1 under the top-k cap, the busiest block on the first rank, deterministic draws,
// and rows split without loss.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "models/expert_routing.hpp"

using namespace trainsim;

namespace {
MoeSpec spec(ExpertRouting routing, double s = 1.0) {
  MoeSpec m;
  m.experts = 16;
  m.top_k = 2;
  m.expert_ffn = 8;
  m.routing = routing;
  m.zipf_exponent = s;
  return m;
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// Each block of `members`' shares, in rank order.
std::vector<double> blocks(const std::vector<double>& shares, std::size_t members) {
  std::vector<double> out(members, 0.0);
  for (std::size_t e = 0; e < shares.size(); ++e)
    out[e / (shares.size() / members)] += shares[e];
  return out;
}
}  // namespace

TEST_CASE("expert routing: balanced assumes no shares, and splits rows evenly") {
  CHECK(expert_shares(spec(ExpertRouting::balanced), 4, 64, 0, 0).empty());
  CHECK(busiest_rank_load({}, 4) == 1.0);
  CHECK(split_rows(35, 4, {}, 100) == std::vector<std::int64_t>{9, 9, 9, 8});
  CHECK(split_rows(35, 4, {}, 8) == std::vector<std::int64_t>{8, 8, 8, 8});  // capped
}

TEST_CASE("expert routing: uniform draws scatter around the mean, the busiest rank first") {
  const MoeSpec m = spec(ExpertRouting::uniform);
  const std::vector<double> shares = expert_shares(m, 4, 64, 3, 1);
  REQUIRE(shares.size() == 16);
  CHECK(sum(shares) == doctest::Approx(1.0));
  const std::vector<double> b = blocks(shares, 4);
  CHECK(std::is_sorted(b.rbegin(), b.rend()));  // falling: rank 0 the busiest
  CHECK(b[0] > 0.25);
  CHECK(busiest_rank_load(shares, 4) == doctest::Approx(4.0 * b[0]));
  // Deterministic per layer and micro batch, different across them.
  CHECK(expert_shares(m, 4, 64, 3, 1) == shares);
  CHECK(expert_shares(m, 4, 64, 3, 2) != shares);
  // More tokens: relatively less scatter (binomial: the spread grows as the square root).
  CHECK(mean_busiest_rank_load(m, 8, 4, 65536) < mean_busiest_rank_load(m, 8, 4, 64));
  CHECK(mean_busiest_rank_load(m, 8, 4, 65536) == doctest::Approx(1.0).epsilon(0.02));
}

TEST_CASE("expert routing: zipf skews the loads, capped at a token's one choice per expert") {
  // s 0: every expert alike.
  const std::vector<double> flat = expert_shares(spec(ExpertRouting::zipf, 0.0), 4, 64, 0, 0);
  for (const double x : flat)
    CHECK(x == doctest::Approx(1.0 / 16));
  // s 4: the most popular expert would take most rows, but top-2 lets it have half at most.
  const std::vector<double> skewed = expert_shares(spec(ExpertRouting::zipf, 4.0), 4, 64, 0, 0);
  CHECK(sum(skewed) == doctest::Approx(1.0));
  CHECK(*std::max_element(skewed.begin(), skewed.end()) == doctest::Approx(0.5));
  const std::vector<double> b = blocks(skewed, 4);
  CHECK(std::is_sorted(b.rbegin(), b.rend()));
  CHECK(busiest_rank_load(skewed, 4) > 2.0);
  // Rows follow the shares and add up.
  const std::vector<std::int64_t> rows = split_rows(128, 16, skewed, 64);
  CHECK(std::accumulate(rows.begin(), rows.end(), std::int64_t{0}) == 128);
  CHECK(*std::max_element(rows.begin(), rows.end()) == 64);
}
