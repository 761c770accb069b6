#include "models/expert_routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace trainsim {

namespace {

// SplitMix64's finaliser: independent streams from (kind, layer, micro batch).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform double in (0, 1) from 53 bits (the same on every platform, unlike the standard
// distributions).
double unit(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
}

// A standard normal draw (Box-Muller).
double normal(std::mt19937_64& rng) {
  const double u = unit(rng);
  const double v = unit(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

// Each token's k experts uniformly at random over the group's tokens: every expert's rows are
// binomial (T tokens, probability k/E), drawn by their normal approximation and centred so
// that they sum to the rows routed.
std::vector<double> uniform_loads(const MoeSpec& spec, double group_tokens, std::uint64_t seed) {
  const auto experts = static_cast<std::size_t>(spec.experts);
  const double p = static_cast<double>(spec.top_k) / static_cast<double>(spec.experts);
  const double mean = group_tokens * p;
  const double sd = std::sqrt(group_tokens * p * (1.0 - p));
  std::mt19937_64 rng(seed);
  std::vector<double> z(experts);
  for (double& x : z)
    x = normal(rng);
  const double centre = std::accumulate(z.begin(), z.end(), 0.0) / static_cast<double>(experts);
  std::vector<double> load(experts);
  for (std::size_t e = 0; e < experts; ++e)
    load[e] = std::clamp(mean + sd * (z[e] - centre), 0.0, group_tokens);
  return load;
}

// Popularity 1/rank^s, the ranking a seeded shuffle of the experts.
std::vector<double> zipf_loads(const MoeSpec& spec, std::uint64_t seed) {
  const auto experts = static_cast<std::size_t>(spec.experts);
  std::vector<std::size_t> rank(experts);
  std::iota(rank.begin(), rank.end(), std::size_t{0});
  std::mt19937_64 rng(seed);
  for (std::size_t i = experts; i-- > 1;)  // Fisher-Yates, platform-independent
    std::swap(rank[i], rank[static_cast<std::size_t>(rng() % (i + 1))]);
  std::vector<double> load(experts);
  for (std::size_t e = 0; e < experts; ++e)
    load[e] = std::pow(static_cast<double>(rank[e] + 1), -spec.zipf_exponent);
  return load;
}

// Normalised to shares, none above `cap` (water-filling: the excess of capped experts spread
// over the others in proportion).
std::vector<double> capped_shares(std::vector<double> load, double cap) {
  std::vector<bool> capped(load.size(), false);
  for (std::size_t round = 0; round <= load.size(); ++round) {
    double free_load = 0.0;
    double free_share = 1.0;
    for (std::size_t e = 0; e < load.size(); ++e) {
      if (capped[e]) {
        free_share -= cap;
      } else {
        free_load += load[e];
      }
    }
    bool changed = false;
    for (std::size_t e = 0; e < load.size(); ++e) {
      if (capped[e]) continue;
      const double share = free_load > 0.0 ? load[e] / free_load * free_share : 0.0;
      if (share > cap) {
        capped[e] = true;
        changed = true;
      }
    }
    if (!changed) {
      for (std::size_t e = 0; e < load.size(); ++e)
        load[e] = capped[e] ? cap : (free_load > 0.0 ? load[e] / free_load * free_share : 0.0);
      return load;
    }
  }
  return load;
}

// The blocks of E/members experts reordered by falling load: rank 0 the busiest.
std::vector<double> busiest_first(const std::vector<double>& shares, std::int64_t members) {
  const std::size_t block = shares.size() / static_cast<std::size_t>(members);
  std::vector<double> load(static_cast<std::size_t>(members), 0.0);
  for (std::size_t e = 0; e < shares.size(); ++e)
    load[e / block] += shares[e];
  std::vector<std::size_t> order(load.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return load[a] > load[b]; });
  std::vector<double> out;
  out.reserve(shares.size());
  for (const std::size_t b : order)
    out.insert(out.end(), shares.begin() + static_cast<std::ptrdiff_t>(b * block),
               shares.begin() + static_cast<std::ptrdiff_t>((b + 1) * block));
  return out;
}

}  // namespace

std::vector<double> expert_shares(const MoeSpec& spec, std::int64_t members, std::int64_t tokens,
                                  std::int64_t layer, std::int64_t micro_batch) {
  const auto at = static_cast<std::uint64_t>(layer);
  std::vector<double> load;
  switch (spec.routing) {
    case ExpertRouting::balanced:
      return {};
    case ExpertRouting::uniform:
      load = uniform_loads(spec, static_cast<double>(members * tokens),
                           mix(mix(1 + at) ^ static_cast<std::uint64_t>(micro_batch)));
      break;
    case ExpertRouting::zipf:
      load = zipf_loads(spec, mix(2 + at));
      break;
  }
  return busiest_first(capped_shares(std::move(load), 1.0 / static_cast<double>(spec.top_k)),
                       members);
}

double busiest_rank_load(std::span<const double> shares, std::int64_t members) {
  if (shares.empty()) return 1.0;
  const std::size_t block = shares.size() / static_cast<std::size_t>(members);
  double busiest = 0.0;
  for (std::size_t first = 0; first < shares.size(); first += block) {
    busiest = std::max(
        busiest, std::accumulate(shares.begin() + static_cast<std::ptrdiff_t>(first),
                                 shares.begin() + static_cast<std::ptrdiff_t>(first + block), 0.0));
  }
  return busiest * static_cast<double>(members);
}

double mean_busiest_rank_load(const MoeSpec& spec, std::int64_t layers, std::int64_t members,
                              std::int64_t tokens) {
  double sum = 0.0;
  std::int64_t count = 0;
  for (std::int64_t l = 0; l < layers; ++l) {
    if (!spec.covers(l)) continue;
    sum += busiest_rank_load(expert_shares(spec, members, tokens, l, 0), members);
    ++count;
  }
  return count > 0 ? sum / static_cast<double>(count) : 1.0;
}

std::vector<std::int64_t> split_rows(std::int64_t rows, std::int64_t experts,
                                     std::span<const double> shares, std::int64_t limit) {
  const auto n = static_cast<std::size_t>(experts);
  std::vector<std::int64_t> out(n, rows / experts);
  if (shares.empty()) {
    for (std::size_t e = 0; e < static_cast<std::size_t>(rows % experts); ++e)
      ++out[e];
  } else {
    std::vector<double> rest(n);
    std::int64_t given = 0;
    for (std::size_t e = 0; e < n; ++e) {
      const double exact = static_cast<double>(rows) * shares[e];
      out[e] = static_cast<std::int64_t>(std::floor(exact));
      rest[e] = exact - static_cast<double>(out[e]);
      given += out[e];
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
    for (std::size_t i = 0; given < rows && i < n; ++i, ++given)
      ++out[order[i]];
  }
  for (std::int64_t& r : out)
    r = std::min(r, limit);
  return out;
}

}  // namespace trainsim
