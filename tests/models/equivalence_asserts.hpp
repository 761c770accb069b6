#pragma once
// Shared assertions of the cpu-equals-one-device tests, and the small spec builders the
// executor tests use.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include "models/equivalence_check.hpp"
#include "models/parallel_plan.hpp"

namespace trainsim::test {

/// A GPT of the given sizes, vocabulary unpadded (make_vocab_divisible_by 1).
inline ModelSpec model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                            std::int64_t ffn, std::int64_t seq_len, std::int64_t vocab) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn = ffn;
  m.seq_len = seq_len;
  m.vocab = vocab;
  m.vocab_divisor = 1;
  return m;
}

inline TrainingSpec training_spec(std::int64_t global_batch, std::int64_t micro_batch) {
  TrainingSpec t;
  t.global_batch = global_batch;
  t.micro_batch = micro_batch;
  return t;
}

/// The partitioned run equals one device: every rank ran, every parameter of the model was
/// compared (and no entry of a shard escaped comparison), the loss is real, and the largest
/// error is below 1e-9 relative.
inline void check_matches_single_device(const EquivalenceReport& r, std::int64_t ranks,
                                        std::int64_t layers) {
  CAPTURE(r.loss_error);
  CAPTURE(r.max_gradient_error);
  CAPTURE(r.max_value_error);
  CHECK(r.ranks == ranks);
  CHECK(r.parameters.size() == static_cast<std::size_t>(4 + 12 * layers));
  CHECK(r.uncompared == 0);
  CHECK(r.loss_single > 0.0);
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);
}

}  // namespace trainsim::test
