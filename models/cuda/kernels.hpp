#pragma once
// Host launchers of the cuda backend's own kernels (the memory-bound calls of Backend). Every
// kernel does its arithmetic in fp32 whatever the element types, reads and writes elements of
// any DType through one load/store switch (uniform across a warp), and runs on `stream`.
// Row-wise ops (LayerNorm, softmax, cross entropy) run one block per row; column sums (bias
// and LayerNorm parameter gradients) one thread per column, rows summed in order, so results
// are deterministic. Token ids are int64.

#include <cuda_runtime.h>

#include <cstdint>

#include "models/dtype.hpp"

namespace trainsim::cuda::kernels {

/// A device array with its element type.
struct Array {
  void* data = nullptr;
  DType dtype = DType::fp32;
};
struct ConstArray {
  const void* data = nullptr;
  DType dtype = DType::fp32;
};

using Index = std::int64_t;

// --- element-wise ---------------------------------------------------------------------------
/// y[i] = x[i] converted (also a plain copy when the types agree).
void convert(ConstArray x, Array y, Index n, cudaStream_t stream);
/// dst[i] += src[i].
void accumulate(Array dst, ConstArray src, Index n, cudaStream_t stream);
/// x[r, c] += bias[c].
void add_bias(Array x, ConstArray bias, Index rows, Index cols, cudaStream_t stream);
/// dbias[c] += Σ_r dy[r, c].
void column_sums_accumulate(ConstArray dy, Array dbias, Index rows, Index cols,
                            cudaStream_t stream);
/// y = GeLU_tanh(x + bias).
void bias_gelu(ConstArray x, ConstArray bias, Array y, Index rows, Index cols, cudaStream_t stream);
/// dx = dy · GeLU'(x + bias).
void bias_gelu_backward(ConstArray dy, ConstArray x, ConstArray bias, Array dx, Index rows,
                        Index cols, cudaStream_t stream);
/// y = residual + mask · (x + bias) / (1 − p); mask bytes from a counter-based hash of
/// (seed, first + i), so a call is reproducible. bias and residual may be null; mask may be
/// null with p = 0 (no dropout: y = residual + x + bias).
void dropout(ConstArray x, ConstArray bias, ConstArray residual, Array y, std::uint8_t* mask,
             double p, std::uint64_t seed, std::uint64_t first, Index rows, Index cols,
             cudaStream_t stream);
/// dx = dy · mask / (1 − p).
void dropout_backward(ConstArray dy, const std::uint8_t* mask, Array dx, double p, Index n,
                      cudaStream_t stream);
/// Normal(mean, stddev) values (initial weights, random test inputs).
void fill_normal(Array y, Index n, double mean, double stddev, std::uint64_t seed,
                 cudaStream_t stream);
/// Holds `stream` until *flag != 0 or `timeout_s` passed (the timing gate: the host issues an
/// iteration while the device waits, so host launch gaps do not count as op time; the
/// timeout keeps a full launch queue from deadlocking).
void hold(const volatile int* flag, double timeout_s, cudaStream_t stream);
/// Token ids uniform in [0, vocab).
void fill_tokens(std::int64_t* ids, Index n, std::int64_t vocab, std::uint64_t seed,
                 cudaStream_t stream);

// --- embeddings -----------------------------------------------------------------------------
/// out[r] = table[ids[r] − vocab_begin], zero rows for ids outside [0, table_rows).
void embedding_lookup(const std::int64_t* ids, ConstArray table, Array out, Index rows,
                      Index table_rows, Index cols, std::int64_t vocab_begin, cudaStream_t stream);
/// x[r] += table[first_position + r / micro_batch].
void add_position_embedding(Array x, ConstArray table, Index rows, Index cols,
                            std::int64_t micro_batch, std::int64_t first_position,
                            cudaStream_t stream);
/// dtable[ids[r] − vocab_begin] += dy[r] (atomic adds: several rows may share an id).
void embedding_backward(ConstArray dy, const std::int64_t* ids, Array dtable, Index rows,
                        Index table_rows, Index cols, std::int64_t vocab_begin,
                        cudaStream_t stream);
/// dtable[first_position + p] += Σ_{j < micro_batch} dy[p·micro_batch + j].
void position_embedding_backward(ConstArray dy, Array dtable, Index rows, Index cols,
                                 std::int64_t micro_batch, std::int64_t first_position,
                                 cudaStream_t stream);

// --- LayerNorm (stats: fp32 [rows, 2] = mean, rstd; mean, var, sums fp32) --------------------
void layer_norm(ConstArray x, ConstArray gamma, ConstArray beta, Array y, float* stats, Index rows,
                Index cols, cudaStream_t stream);
void layer_norm_partial_mean(ConstArray x, float* mean, Index rows, Index cols, Index hidden,
                             cudaStream_t stream);
void layer_norm_partial_variance(ConstArray x, const float* mean, float* var, Index rows,
                                 Index cols, Index hidden, cudaStream_t stream);
void layer_norm_apply(ConstArray x, ConstArray gamma, ConstArray beta, const float* mean,
                      const float* var, Array y, float* stats, Index rows, Index cols,
                      cudaStream_t stream);
/// sums[r] = (Σ dy·γ, Σ dy·γ·x̂) / hidden.
void layer_norm_backward_sums(ConstArray dy, ConstArray x, ConstArray gamma, const float* stats,
                              float* sums, Index rows, Index cols, Index hidden,
                              cudaStream_t stream);
/// dgamma[c] += Σ_r dy·x̂, dbeta[c] += Σ_r dy.
void layer_norm_parameter_grads(ConstArray dy, ConstArray x, const float* stats, Array dgamma,
                                Array dbeta, Index rows, Index cols, cudaStream_t stream);
void layer_norm_backward_apply(ConstArray dy, ConstArray x, ConstArray gamma, const float* stats,
                               const float* sums, Array dx, Index rows, Index cols,
                               cudaStream_t stream);

// --- attention softmax ([rows, s], row r attends to keys 0..r mod s) ------------------------
void causal_softmax(ConstArray scores, Array probs, Index rows, Index s, cudaStream_t stream);
void softmax_backward(ConstArray dprobs, ConstArray probs, Array dscores, Index rows, Index s,
                      cudaStream_t stream);

// --- vocabulary-parallel cross entropy ------------------------------------------------------
void row_max(ConstArray logits, float* max, Index rows, Index cols, cudaStream_t stream);
void cross_entropy_stats(Array logits, const float* max, const std::int64_t* labels,
                         float* target_logit, float* sum_exp, Index rows, Index cols,
                         std::int64_t vocab_begin, cudaStream_t stream);
/// Normalizes exp_logits in place; loss[0] = scale · Σ_r (log sum_exp − target), summed in
/// row order by one block (`row_loss`: rows floats of workspace).
void cross_entropy_loss(Array exp_logits, const float* sum_exp, const float* target_logit,
                        float* row_loss, float* loss, double scale, Index rows, Index cols,
                        cudaStream_t stream);
void cross_entropy_backward(Array softmax, const std::int64_t* labels, double scale, Index rows,
                            Index cols, std::int64_t vocab_begin, cudaStream_t stream);

// --- Adam -----------------------------------------------------------------------------------
struct AdamConstants {
  float lr, beta1, beta2, eps, weight_decay, correction1, correction2;
};
/// master, m, v (fp32) updated from grad over n elements.
void adam(float* master, float* m, float* v, ConstArray grad, Index n, const AdamConstants& c,
          cudaStream_t stream);

// --- gradient norm, clipping, fp16 unscaling (the optimizer step's multi-tensor kernels) ------
/// Blocks of sum_of_squares_accumulate's first pass: `partial` holds this many floats.
inline constexpr Index kSquaresBlocks = 1024;
/// *sum += Σ x[i]² over n elements: per-block partial sums into `partial`, then one block adds
/// them in order (deterministic).
void sum_of_squares_accumulate(ConstArray x, Index n, float* partial, float* sum,
                               cudaStream_t stream);
/// x[i] *= factor.
void scale(Array x, Index n, double factor, cudaStream_t stream);
/// x[i] *= inv_scale; *found_inf = 1 where some x[i] was not finite (left as is otherwise).
void unscale_and_check(Array x, Index n, double inv_scale, float* found_inf, cudaStream_t stream);

}  // namespace trainsim::cuda::kernels
