#include "models/cpu_backend.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace trainsim {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
// A [s, d] block of a [T, C] activation: rows strided by b·C (Megatron's [s, b, ...] order).
using Strided = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;
using ConstStrided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

class CpuStorage final : public TensorStorage {
 public:
  explicit CpuStorage(std::int64_t n) : data(static_cast<std::size_t>(n), 0.0) {}
  std::vector<double> data;
};

double* ptr(const Tensor& t) {
  return static_cast<CpuStorage&>(t.storage()).data.data();
}
std::size_t count(const Tensor& t) {
  return static_cast<std::size_t>(t.numel());
}
std::int64_t rows(const Tensor& t) {
  return t.shape().batch * t.shape().rows;
}
std::int64_t cols(const Tensor& t) {
  return t.shape().cols;
}
MatrixMap matrix(const Tensor& t) {
  return {ptr(t), rows(t), cols(t)};
}

void gemm(const Tensor& a, const Tensor& b, bool ta, bool tb, const Tensor& c, bool accumulate) {
  const ConstMatrixMap A(ptr(a), rows(a), cols(a));
  const ConstMatrixMap B(ptr(b), rows(b), cols(b));
  MatrixMap C = matrix(c);
  const auto run = [&](const auto& lhs, const auto& rhs) {
    if (accumulate) {
      C.noalias() += lhs * rhs;
    } else {
      C.noalias() = lhs * rhs;
    }
  };
  if (ta && tb) run(A.transpose(), B.transpose());
  if (ta && !tb) run(A.transpose(), B);
  if (!ta && tb) run(A, B.transpose());
  if (!ta && !tb) run(A, B);
}

// Views of head j of sequence i inside the fused QKV output (query head j, or the key or the
// value of its group: AttentionShape's layout) and the context.
struct HeadViews {
  const AttentionShape& s;
  std::int64_t qkv_cols() const { return s.qkv_columns(); }
  std::int64_t ctx_cols() const { return s.heads * s.head_dim; }
  double* qkv_block(double* base, std::int64_t i, std::int64_t j, int which) const {
    const std::int64_t column = which == 0 ? s.query_column(j) : s.kv_column(j, which);
    return base + i * qkv_cols() + column;
  }
  ConstStrided q(const Tensor& qkv, std::int64_t i, std::int64_t j, int which) const {
    return {qkv_block(ptr(qkv), i, j, which), s.seq_len, s.head_dim,
            Eigen::OuterStride<>(s.micro_batch * qkv_cols())};
  }
  Strided mq(const Tensor& qkv, std::int64_t i, std::int64_t j, int which) const {
    return {qkv_block(ptr(qkv), i, j, which), s.seq_len, s.head_dim,
            Eigen::OuterStride<>(s.micro_batch * qkv_cols())};
  }
  Strided ctx(const Tensor& c, std::int64_t i, std::int64_t j) const {
    return {ptr(c) + i * ctx_cols() + j * s.head_dim, s.seq_len, s.head_dim,
            Eigen::OuterStride<>(s.micro_batch * ctx_cols())};
  }
  MatrixMap square(const Tensor& t, std::int64_t i, std::int64_t j) const {
    return {ptr(t) + (i * s.heads + j) * s.seq_len * s.seq_len, s.seq_len, s.seq_len};
  }
};

// In place: each row of the scaled scores `p` becomes its softmax over the keys `sees(row, key)`
// lets through, and lse[row] its log-sum-exp; a row that sees no key becomes zeros with
// log-sum-exp −inf (a context-parallel block of keys all in its future).
template <typename Sees>
void masked_softmax(Matrix& p, double* lse, Sees sees) {
  const Eigen::Index n = p.cols();
  for (Eigen::Index row = 0; row < p.rows(); ++row) {
    double max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < n; ++k) {
      if (sees(row, k)) max = std::max(max, p(row, k));
    }
    if (max == -std::numeric_limits<double>::infinity()) {
      p.row(row).setZero();
      lse[row] = max;
      continue;
    }
    double sum = 0.0;
    for (Eigen::Index k = 0; k < n; ++k) {
      p(row, k) = sees(row, k) ? std::exp(p(row, k) - max) : 0.0;
      sum += p(row, k);
    }
    p.row(row) /= sum;
    lse[row] = max + std::log(sum);
  }
}

double sigmoid(double z) {
  return 1.0 / (1.0 + std::exp(-z));
}

// First columns of the head blocks RoPE and QK-norm touch: every query head, then every
// group's key (the values are left alone).
std::vector<std::int64_t> query_and_key_blocks(const AttentionShape& s) {
  std::vector<std::int64_t> blocks;
  for (std::int64_t j = 0; j < s.heads; ++j)
    blocks.push_back(s.query_column(j));
  for (std::int64_t g = 0; g < s.kv_heads; ++g)
    blocks.push_back(s.kv_column(g * s.group_size(), 1));
  return blocks;
}

constexpr double kLayerNormEps = 1e-5;
constexpr double kGeluC = 0.7978845608028654;  // sqrt(2/pi)

}  // namespace

CpuBackend::CpuBackend(CpuCommunicator& communicator, std::int64_t rank,
                       std::vector<std::int64_t> tp_group, std::vector<std::int64_t> dp_group,
                       std::vector<MicroBatchTokens> batches, std::uint64_t seed)
    : communicator_(communicator), rank_(rank), batches_(std::move(batches)), rng_(seed) {
  bind(CommGroup::tensor, std::move(tp_group));
  bind(CommGroup::data, std::move(dp_group));
}

std::span<double> CpuBackend::values(const Tensor& t) {
  return {ptr(t), count(t)};
}

Tensor CpuBackend::make(Shape shape, DType dtype) {
  return Tensor(std::make_shared<CpuStorage>(shape.numel()), shape, dtype);
}

Tensor CpuBackend::allocate(Shape shape, DType dtype, program::MemoryCategory, std::string_view) {
  return make(shape, dtype);
}

TokenBatch CpuBackend::load_micro_batch(std::int64_t index, std::int64_t tokens,
                                        std::int64_t labels) {
  const MicroBatchTokens& mb = batches_.at(static_cast<std::size_t>(index));
  if (static_cast<std::int64_t>(mb.tokens.size()) != tokens ||
      static_cast<std::int64_t>(mb.labels.size()) != labels) {
    throw std::logic_error("cpu backend: micro batch has the wrong number of tokens or labels");
  }
  // A pipeline's first stage loads no labels, its last no tokens.
  TokenBatch batch;
  if (tokens > 0) batch.tokens = make({1, tokens, 1}, DType::fp64);
  if (labels > 0) batch.labels = make({1, labels, 1}, DType::fp64);
  for (std::size_t i = 0; i < mb.tokens.size(); ++i)
    ptr(batch.tokens)[i] = static_cast<double>(mb.tokens[i]);
  for (std::size_t i = 0; i < mb.labels.size(); ++i)
    ptr(batch.labels)[i] = static_cast<double>(mb.labels[i]);
  return batch;
}

Tensor CpuBackend::matmul(const Tensor& a, const Tensor& b, bool ta, bool tb, std::string_view) {
  const std::int64_t m = ta ? cols(a) : rows(a);
  const std::int64_t n = tb ? rows(b) : cols(b);
  Tensor c = make({1, m, n}, gemm_output_dtype(a.dtype()));
  gemm(a, b, ta, tb, c, false);
  return c;
}

void CpuBackend::matmul_accumulate(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& c,
                                   std::string_view) {
  gemm(a, b, ta, tb, c, true);
}

void CpuBackend::matmul_rows(const Tensor& a, std::int64_t a_part, std::int64_t a_parts,
                             const Tensor& b, bool tb, Tensor& c, std::int64_t c_part,
                             std::int64_t c_parts, std::string_view) {
  const std::int64_t m = rows(a) / a_parts;
  if (rows(c) / c_parts != m || rows(a) % a_parts != 0 || rows(c) % c_parts != 0 || a_part < 0 ||
      a_part >= a_parts || c_part < 0 || c_part >= c_parts) {
    throw std::invalid_argument("cpu backend: matmul_rows: the row blocks do not match");
  }
  const ConstMatrixMap A(ptr(a) + a_part * m * cols(a), m, cols(a));
  const ConstMatrixMap B(ptr(b), rows(b), cols(b));
  MatrixMap C(ptr(c) + c_part * m * cols(c), m, cols(c));
  if (tb) {
    C.noalias() = A * B.transpose();
  } else {
    C.noalias() = A * B;
  }
}

Tensor CpuBackend::attention_scores(const Tensor& qkv, const AttentionShape& s, std::string_view) {
  Tensor scores = make({s.micro_batch * s.heads, s.seq_len, s.seq_len}, qkv.dtype());
  const HeadViews v{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      v.square(scores, i, j).noalias() =
          scale * (v.q(qkv, i, j, 0) * v.q(qkv, i, j, 1).transpose());
    }
  }
  return scores;
}

Tensor CpuBackend::attention_context(const Tensor& probs, const Tensor& qkv,
                                     const AttentionShape& s, std::string_view) {
  Tensor ctx = make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype());
  const HeadViews v{s};
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      v.ctx(ctx, i, j).noalias() = v.square(probs, i, j) * v.q(qkv, i, j, 2);
    }
  }
  return ctx;
}

Tensor CpuBackend::attention_context_backward(const Tensor& dctx, const Tensor& probs,
                                              const Tensor& qkv, Tensor& dqkv,
                                              const AttentionShape& s, std::string_view) {
  Tensor dprobs = make(probs.shape(), probs.dtype());
  const HeadViews v{s};
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      const Strided d_out = v.ctx(dctx, i, j);
      v.square(dprobs, i, j).noalias() = d_out * v.q(qkv, i, j, 2).transpose();
      // A group's value gathers the gradients of all its query heads (dqkv starts at zero).
      v.mq(dqkv, i, j, 2).noalias() += v.square(probs, i, j).transpose() * d_out;
    }
  }
  return dprobs;
}

void CpuBackend::attention_scores_backward(const Tensor& dscores, const Tensor& qkv, Tensor& dqkv,
                                           const AttentionShape& s, std::string_view) {
  const HeadViews v{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      const MatrixMap ds = v.square(dscores, i, j);
      v.mq(dqkv, i, j, 0).noalias() = scale * (ds * v.q(qkv, i, j, 1));
      v.mq(dqkv, i, j, 1).noalias() += scale * (ds.transpose() * v.q(qkv, i, j, 0));
    }
  }
}

// One device's fused attention is a context-parallel block with a single member: its keys and
// values are its own (context_kv), its mask the plain causal one; the same arithmetic.
FlashAttentionResult CpuBackend::flash_attention(const Tensor& qkv, const AttentionShape& s,
                                                 double dropout, std::string_view name) {
  if (dropout > 0.0) {
    throw std::invalid_argument("cpu backend: flash attention with dropout is not modelled");
  }
  return flash_attention_block(qkv, context_kv(qkv, s, name), s, {s.context_rank}, name);
}

void CpuBackend::flash_attention_backward(const Tensor& dout, const Tensor& qkv, const Tensor& out,
                                          const Tensor& lse, Tensor& dqkv, const AttentionShape& s,
                                          double dropout, std::string_view name) {
  if (dropout > 0.0) {
    throw std::invalid_argument("cpu backend: flash attention with dropout is not modelled");
  }
  const Tensor kv = context_kv(qkv, s, name);
  Tensor dkv = make(kv.shape(), kv.dtype());  // zero-filled
  flash_attention_block_backward(dout, qkv, kv, out, lse, dqkv, dkv, s, {s.context_rank}, name);
  context_kv_backward(dkv, dqkv, s, name);
}

namespace {
// Key (which 1) or value (2) of group g of sequence i in a context_kv tensor [T, g·2·d_h].
ConstStrided kv_head(const Tensor& kv, const AttentionShape& s, std::int64_t i, std::int64_t g,
                     int which) {
  const std::int64_t width = 2 * s.kv_heads * s.head_dim;
  return {ptr(kv) + i * width + g * 2 * s.head_dim + (which - 1) * s.head_dim, s.seq_len,
          s.head_dim, Eigen::OuterStride<>(s.micro_batch * width)};
}
Strided kv_head_mut(Tensor& kv, const AttentionShape& s, std::int64_t i, std::int64_t g,
                    int which) {
  const std::int64_t width = 2 * s.kv_heads * s.head_dim;
  return {ptr(kv) + i * width + g * 2 * s.head_dim + (which - 1) * s.head_dim, s.seq_len,
          s.head_dim, Eigen::OuterStride<>(s.micro_batch * width)};
}
// Whether local query row `q` of this rank sees local key row `k` of CP rank `key_rank`.
bool block_sees(const AttentionShape& s, std::int64_t q, std::int64_t k, std::int64_t key_rank) {
  return s.sees(s.position(q), s.position(k, key_rank));
}
}  // namespace

Tensor CpuBackend::context_kv(const Tensor& qkv, const AttentionShape& s, std::string_view) {
  const std::int64_t width = 2 * s.kv_heads * s.head_dim;
  Tensor kv = make({1, rows(qkv), width}, qkv.dtype());
  for (std::int64_t row = 0; row < rows(qkv); ++row) {
    for (std::int64_t g = 0; g < s.kv_heads; ++g) {
      // A group's key and value are adjacent in the fused layout.
      const double* from = ptr(qkv) + row * s.qkv_columns() + s.kv_column(g * s.group_size(), 1);
      std::copy(from, from + 2 * s.head_dim, ptr(kv) + row * width + g * 2 * s.head_dim);
    }
  }
  return kv;
}

void CpuBackend::context_kv_backward(const Tensor& dkv, Tensor& dqkv, const AttentionShape& s,
                                     std::string_view) {
  const std::int64_t width = 2 * s.kv_heads * s.head_dim;
  for (std::int64_t row = 0; row < rows(dqkv); ++row) {
    for (std::int64_t g = 0; g < s.kv_heads; ++g) {
      double* to = ptr(dqkv) + row * s.qkv_columns() + s.kv_column(g * s.group_size(), 1);
      const double* from = ptr(dkv) + row * width + g * 2 * s.head_dim;
      for (std::int64_t k = 0; k < 2 * s.head_dim; ++k)
        to[k] += from[k];
    }
  }
}

FlashAttentionResult CpuBackend::flash_attention_block(const Tensor& qkv, const Tensor& kv,
                                                       const AttentionShape& s, ContextBlock block,
                                                       std::string_view) {
  FlashAttentionResult r{make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype()),
                         make({1, s.micro_batch * s.heads, s.seq_len}, DType::fp32)};
  const HeadViews v{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  Matrix p(s.seq_len, s.seq_len);
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      const std::int64_t g = j / s.group_size();
      p.noalias() = scale * (v.q(qkv, i, j, 0) * kv_head(kv, s, i, g, 1).transpose());
      masked_softmax(
          p, ptr(r.lse) + (i * s.heads + j) * s.seq_len,
          [&](std::int64_t row, std::int64_t k) { return block_sees(s, row, k, block.key_rank); });
      v.ctx(r.out, i, j).noalias() = p * kv_head(kv, s, i, g, 2);
    }
  }
  return r;
}

void CpuBackend::merge_attention(FlashAttentionResult& acc, const FlashAttentionResult& part,
                                 const AttentionShape& s, std::string_view) {
  const HeadViews v{s};
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      double* lse_acc = ptr(acc.lse) + (i * s.heads + j) * s.seq_len;
      const double* lse_part = ptr(part.lse) + (i * s.heads + j) * s.seq_len;
      Strided out_acc = v.ctx(acc.out, i, j);
      const Strided out_part = v.ctx(part.out, i, j);
      for (std::int64_t row = 0; row < s.seq_len; ++row) {
        const double a = lse_acc[row];
        const double b = lse_part[row];
        if (b == -std::numeric_limits<double>::infinity()) continue;
        const double m = std::max(a, b);
        const double merged = m + std::log(std::exp(a - m) + std::exp(b - m));
        out_acc.row(row) =
            std::exp(a - merged) * out_acc.row(row) + std::exp(b - merged) * out_part.row(row);
        lse_acc[row] = merged;
      }
    }
  }
}

void CpuBackend::flash_attention_block_backward(const Tensor& dout, const Tensor& qkv,
                                                const Tensor& kv, const Tensor& out,
                                                const Tensor& lse, Tensor& dqkv, Tensor& dkv,
                                                const AttentionShape& s, ContextBlock block,
                                                std::string_view) {
  const HeadViews v{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  Matrix p(s.seq_len, s.seq_len);
  Matrix ds(s.seq_len, s.seq_len);
  for (std::int64_t i = 0; i < s.micro_batch; ++i) {
    for (std::int64_t j = 0; j < s.heads; ++j) {
      const std::int64_t g = j / s.group_size();
      const ConstStrided k = kv_head(kv, s, i, g, 1);
      const ConstStrided val = kv_head(kv, s, i, g, 2);
      // This block's share of the probabilities, from the whole attention's log-sum-exp.
      p.noalias() = scale * (v.q(qkv, i, j, 0) * k.transpose());
      const double* row_lse = ptr(lse) + (i * s.heads + j) * s.seq_len;
      for (std::int64_t row = 0; row < s.seq_len; ++row) {
        for (std::int64_t c = 0; c < s.seq_len; ++c)
          p(row, c) =
              block_sees(s, row, c, block.key_rank) ? std::exp(p(row, c) - row_lse[row]) : 0.0;
      }
      const Strided d_out = v.ctx(dout, i, j);
      kv_head_mut(dkv, s, i, g, 2).noalias() += p.transpose() * d_out;
      ds.noalias() = d_out * val.transpose();  // dP
      const Eigen::VectorXd d = (d_out.array() * v.ctx(out, i, j).array()).rowwise().sum();
      ds = (p.array() * (ds.colwise() - d).array()).matrix();
      v.mq(dqkv, i, j, 0).noalias() += scale * (ds * k);
      kv_head_mut(dkv, s, i, g, 1).noalias() += scale * (ds.transpose() * v.q(qkv, i, j, 0));
    }
  }
}

// One device's LayerNorm is the split one with a single member: the same arithmetic.
LayerNormResult CpuBackend::layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       std::string_view) {
  const Tensor mean = layer_norm_partial_mean(x, cols(x), "");
  const Tensor var = layer_norm_partial_variance(x, mean, cols(x), "");
  return layer_norm_apply(x, gamma, beta, mean, var, "");
}

Tensor CpuBackend::layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                       const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                       std::string_view) {
  const Tensor sums = layer_norm_backward_partial(dy, x, gamma, stats, dgamma, dbeta, cols(x), "");
  return layer_norm_backward_apply(dy, x, gamma, stats, sums, "");
}

Tensor CpuBackend::layer_norm_partial_mean(const Tensor& x, std::int64_t hidden, std::string_view) {
  Tensor mean = make({1, rows(x), 1}, DType::fp32);
  matrix(mean).col(0) = matrix(x).rowwise().sum() / static_cast<double>(hidden);
  return mean;
}

Tensor CpuBackend::layer_norm_partial_variance(const Tensor& x, const Tensor& mean,
                                               std::int64_t hidden, std::string_view) {
  Tensor var = make(mean.shape(), DType::fp32);
  const Matrix centered = matrix(x).colwise() - matrix(mean).col(0);
  matrix(var).col(0) = centered.array().square().rowwise().sum() / static_cast<double>(hidden);
  return var;
}

LayerNormResult CpuBackend::layer_norm_apply(const Tensor& x, const Tensor& gamma,
                                             const Tensor& beta, const Tensor& mean,
                                             const Tensor& var, std::string_view) {
  LayerNormResult r{make(x.shape(), x.dtype()), make({1, rows(x), 2}, DType::fp32)};
  const std::int64_t n = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double m = ptr(mean)[row];
    const double rstd = 1.0 / std::sqrt(ptr(var)[row] + kLayerNormEps);
    const double* in = ptr(x) + row * n;
    double* out = ptr(r.y) + row * n;
    for (std::int64_t c = 0; c < n; ++c)
      out[c] = (in[c] - m) * rstd * ptr(gamma)[c] + ptr(beta)[c];
    ptr(r.stats)[2 * row] = m;
    ptr(r.stats)[2 * row + 1] = rstd;
  }
  return r;
}

Tensor CpuBackend::layer_norm_backward_partial(const Tensor& dy, const Tensor& x,
                                               const Tensor& gamma, const Tensor& stats,
                                               Tensor& dgamma, Tensor& dbeta, std::int64_t hidden,
                                               std::string_view) {
  Tensor sums = make({1, rows(x), 2}, DType::fp32);
  const std::int64_t n = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double mean = ptr(stats)[2 * row];
    const double rstd = ptr(stats)[2 * row + 1];
    const double* in = ptr(x) + row * n;
    const double* d = ptr(dy) + row * n;
    double sum_g = 0.0;
    double sum_gx = 0.0;
    for (std::int64_t c = 0; c < n; ++c) {
      const double xhat = (in[c] - mean) * rstd;
      const double g = d[c] * ptr(gamma)[c];
      ptr(dgamma)[c] += d[c] * xhat;
      ptr(dbeta)[c] += d[c];
      sum_g += g;
      sum_gx += g * xhat;
    }
    ptr(sums)[2 * row] = sum_g / static_cast<double>(hidden);
    ptr(sums)[2 * row + 1] = sum_gx / static_cast<double>(hidden);
  }
  return sums;
}

Tensor CpuBackend::layer_norm_backward_apply(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                             const Tensor& stats, const Tensor& sums,
                                             std::string_view) {
  Tensor dx = make(x.shape(), x.dtype());
  const std::int64_t n = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double mean = ptr(stats)[2 * row];
    const double rstd = ptr(stats)[2 * row + 1];
    const double mean_g = ptr(sums)[2 * row];
    const double mean_gx = ptr(sums)[2 * row + 1];
    const double* in = ptr(x) + row * n;
    const double* d = ptr(dy) + row * n;
    double* out = ptr(dx) + row * n;
    for (std::int64_t c = 0; c < n; ++c) {
      const double xhat = (in[c] - mean) * rstd;
      out[c] = rstd * (d[c] * ptr(gamma)[c] - mean_g - xhat * mean_gx);
    }
  }
  return dx;
}

void CpuBackend::add_bias(Tensor& x, const Tensor& bias, std::string_view) {
  matrix(x).rowwise() += ConstMatrixMap(ptr(bias), 1, cols(bias)).row(0);
}

void CpuBackend::bias_grad(const Tensor& dy, Tensor& dbias, std::string_view) {
  matrix(dbias).row(0) += matrix(dy).colwise().sum();
}

Tensor CpuBackend::bias_gelu(const Tensor& x, const Tensor& bias, std::string_view) {
  Tensor y = make(x.shape(), x.dtype());
  const std::int64_t n = cols(x);
  for (std::size_t i = 0; i < count(x); ++i) {
    const double z = ptr(x)[i] + ptr(bias)[static_cast<std::int64_t>(i) % n];
    ptr(y)[i] = 0.5 * z * (1.0 + std::tanh(kGeluC * (z + 0.044715 * z * z * z)));
  }
  return y;
}

Tensor CpuBackend::bias_gelu_backward(const Tensor& dy, const Tensor& x, const Tensor& bias,
                                      Tensor& dbias, std::string_view) {
  Tensor dx = make(x.shape(), x.dtype());
  const std::int64_t n = cols(x);
  for (std::size_t i = 0; i < count(x); ++i) {
    const std::int64_t c = static_cast<std::int64_t>(i) % n;
    const double z = ptr(x)[i] + ptr(bias)[c];
    const double th = std::tanh(kGeluC * (z + 0.044715 * z * z * z));
    const double grad =
        0.5 * (1.0 + th) + 0.5 * z * (1.0 - th * th) * kGeluC * (1.0 + 3.0 * 0.044715 * z * z);
    ptr(dx)[i] = ptr(dy)[i] * grad;
    ptr(dbias)[c] += ptr(dx)[i];
  }
  return dx;
}

LayerNormResult CpuBackend::rms_norm(const Tensor& x, const Tensor& gamma, std::string_view) {
  LayerNormResult r{make(x.shape(), x.dtype()), make({1, rows(x), 1}, DType::fp32)};
  const std::int64_t n = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double* in = ptr(x) + row * n;
    double squares = 0.0;
    for (std::int64_t c = 0; c < n; ++c)
      squares += in[c] * in[c];
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + kLayerNormEps);
    double* out = ptr(r.y) + row * n;
    for (std::int64_t c = 0; c < n; ++c)
      out[c] = in[c] * rstd * ptr(gamma)[c];
    ptr(r.stats)[row] = rstd;
  }
  return r;
}

Tensor CpuBackend::rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                     const Tensor& stats, Tensor& dgamma, std::string_view) {
  // With g = dy·gamma and x̂ = x·rstd: dx = rstd·(g − x̂·mean(g·x̂)); dgamma += Σ dy·x̂.
  Tensor dx = make(x.shape(), x.dtype());
  const std::int64_t n = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double rstd = ptr(stats)[row];
    const double* in = ptr(x) + row * n;
    const double* d = ptr(dy) + row * n;
    double sum_gx = 0.0;
    for (std::int64_t c = 0; c < n; ++c) {
      const double xhat = in[c] * rstd;
      sum_gx += d[c] * ptr(gamma)[c] * xhat;
      ptr(dgamma)[c] += d[c] * xhat;
    }
    const double mean_gx = sum_gx / static_cast<double>(n);
    double* out = ptr(dx) + row * n;
    for (std::int64_t c = 0; c < n; ++c)
      out[c] = rstd * (d[c] * ptr(gamma)[c] - in[c] * rstd * mean_gx);
  }
  return dx;
}

LayerNormResult CpuBackend::qk_rms_norm(const Tensor& qkv, const Tensor& q_gamma,
                                        const Tensor& k_gamma, const AttentionShape& s,
                                        std::string_view) {
  const std::vector<std::int64_t> blocks = query_and_key_blocks(s);
  const auto n = static_cast<std::int64_t>(blocks.size());
  LayerNormResult r{make(qkv.shape(), qkv.dtype()), make({1, rows(qkv), n}, DType::fp32)};
  std::copy_n(ptr(qkv), count(qkv), ptr(r.y));
  const std::int64_t d = s.head_dim;
  for (std::int64_t row = 0; row < rows(qkv); ++row) {
    for (std::int64_t b = 0; b < n; ++b) {
      const double* gamma = ptr(b < s.heads ? q_gamma : k_gamma);
      const double* in = ptr(qkv) + row * cols(qkv) + blocks[static_cast<std::size_t>(b)];
      double* out = ptr(r.y) + row * cols(qkv) + blocks[static_cast<std::size_t>(b)];
      double squares = 0.0;
      for (std::int64_t c = 0; c < d; ++c)
        squares += in[c] * in[c];
      const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(d) + kLayerNormEps);
      for (std::int64_t c = 0; c < d; ++c)
        out[c] = in[c] * rstd * gamma[c];
      ptr(r.stats)[row * n + b] = rstd;
    }
  }
  return r;
}

Tensor CpuBackend::qk_rms_norm_backward(const Tensor& dy, const Tensor& qkv,
                                        const Tensor& q_gamma, const Tensor& k_gamma,
                                        const Tensor& stats, Tensor& dq_gamma, Tensor& dk_gamma,
                                        const AttentionShape& s, std::string_view) {
  const std::vector<std::int64_t> blocks = query_and_key_blocks(s);
  const auto n = static_cast<std::int64_t>(blocks.size());
  Tensor dx = make(qkv.shape(), qkv.dtype());
  std::copy_n(ptr(dy), count(dy), ptr(dx));  // the values pass through
  const std::int64_t d = s.head_dim;
  for (std::int64_t row = 0; row < rows(qkv); ++row) {
    for (std::int64_t b = 0; b < n; ++b) {
      const bool query = b < s.heads;
      const double* gamma = ptr(query ? q_gamma : k_gamma);
      double* dgamma = ptr(query ? dq_gamma : dk_gamma);
      const std::int64_t offset = row * cols(qkv) + blocks[static_cast<std::size_t>(b)];
      const double* in = ptr(qkv) + offset;
      const double* g = ptr(dy) + offset;
      const double rstd = ptr(stats)[row * n + b];
      double sum_gx = 0.0;
      for (std::int64_t c = 0; c < d; ++c) {
        const double xhat = in[c] * rstd;
        sum_gx += g[c] * gamma[c] * xhat;
        dgamma[c] += g[c] * xhat;
      }
      const double mean_gx = sum_gx / static_cast<double>(d);
      double* out = ptr(dx) + offset;
      for (std::int64_t c = 0; c < d; ++c)
        out[c] = rstd * (g[c] * gamma[c] - in[c] * rstd * mean_gx);
    }
  }
  return dx;
}

Tensor CpuBackend::swiglu(const Tensor& x, std::string_view) {
  const std::int64_t n = cols(x) / 2;
  Tensor y = make({1, rows(x), n}, x.dtype());
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double* gate = ptr(x) + row * 2 * n;
    const double* up = gate + n;
    for (std::int64_t c = 0; c < n; ++c)
      ptr(y)[row * n + c] = gate[c] * sigmoid(gate[c]) * up[c];
  }
  return y;
}

Tensor CpuBackend::swiglu_backward(const Tensor& dy, const Tensor& x, std::string_view) {
  const std::int64_t n = cols(x) / 2;
  Tensor dx = make(x.shape(), x.dtype());
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double* gate = ptr(x) + row * 2 * n;
    const double* up = gate + n;
    double* dgate = ptr(dx) + row * 2 * n;
    double* dup = dgate + n;
    for (std::int64_t c = 0; c < n; ++c) {
      const double z = gate[c];
      const double sig = sigmoid(z);
      const double d = ptr(dy)[row * n + c];
      dgate[c] = d * up[c] * sig * (1.0 + z * (1.0 - sig));
      dup[c] = d * z * sig;
    }
  }
  return dx;
}

void CpuBackend::rope(Tensor& qkv, const AttentionShape& s, double theta, bool backward,
                      std::string_view) {
  const std::int64_t half = s.head_dim / 2;
  const std::int64_t width = s.qkv_columns();
  const std::vector<std::int64_t> blocks = query_and_key_blocks(s);
  const double sign = backward ? -1.0 : 1.0;  // the inverse rotation
  for (std::int64_t row = 0; row < rows(qkv); ++row) {
    const auto position = static_cast<double>(s.position(row / s.micro_batch));
    double* base = ptr(qkv) + row * width;
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle =
          position * std::pow(theta, -2.0 * static_cast<double>(i) /
                                          static_cast<double>(s.head_dim));
      const double c = std::cos(angle);
      const double sn = sign * std::sin(angle);
      for (const std::int64_t b : blocks) {
        const double x0 = base[b + i];
        const double x1 = base[b + i + half];
        base[b + i] = x0 * c - x1 * sn;
        base[b + i + half] = x1 * c + x0 * sn;
      }
    }
  }
}

Tensor CpuBackend::bias_add_residual(const Tensor& x, const Tensor& bias, const Tensor& residual,
                                     std::string_view) {
  Tensor y = make(x.shape(), x.dtype());
  const std::int64_t n = cols(x);
  for (std::size_t i = 0; i < count(x); ++i) {
    double v = ptr(x)[i] + ptr(residual)[i];
    if (bias.defined()) v += ptr(bias)[static_cast<std::int64_t>(i) % n];
    ptr(y)[i] = v;
  }
  return y;
}

DropoutResult CpuBackend::dropout_impl(const Tensor& x, const Tensor* bias, const Tensor* residual,
                                       double p) {
  DropoutResult r{make(x.shape(), x.dtype()),
                  Tensor::byte_mask(std::make_shared<CpuStorage>(x.numel()), x.shape())};
  std::bernoulli_distribution keep(1.0 - p);
  const double inv = p > 0.0 ? 1.0 / (1.0 - p) : 1.0;
  const std::int64_t n = cols(x);
  for (std::size_t i = 0; i < count(x); ++i) {
    const double m = p > 0.0 ? (keep(rng_) ? 1.0 : 0.0) : 1.0;
    double v = ptr(x)[i];
    if (bias != nullptr && bias->defined()) v += ptr(*bias)[static_cast<std::int64_t>(i) % n];
    v *= m * inv;
    if (residual != nullptr) v += ptr(*residual)[i];
    ptr(r.mask)[i] = m;
    ptr(r.y)[i] = v;
  }
  return r;
}

DropoutResult CpuBackend::bias_dropout_add(const Tensor& x, const Tensor& bias,
                                           const Tensor& residual, double p, std::string_view) {
  return dropout_impl(x, &bias, &residual, p);
}

DropoutResult CpuBackend::dropout(const Tensor& x, double p, std::string_view) {
  return dropout_impl(x, nullptr, nullptr, p);
}

Tensor CpuBackend::dropout_backward(const Tensor& dy, const Tensor& mask, double p, Tensor* dbias,
                                    std::string_view) {
  Tensor dx = make(dy.shape(), dy.dtype());
  const double inv = p > 0.0 ? 1.0 / (1.0 - p) : 1.0;
  for (std::size_t i = 0; i < count(dy); ++i)
    ptr(dx)[i] = ptr(dy)[i] * ptr(mask)[i] * inv;
  if (dbias != nullptr) bias_grad(dx, *dbias, "");
  return dx;
}

Tensor CpuBackend::softmax(const Tensor& scores, std::string_view) {
  Tensor probs = make(scores.shape(), scores.dtype());
  const std::int64_t s = cols(scores);
  for (std::int64_t row = 0; row < rows(scores); ++row) {
    const std::int64_t position = row % s;  // causal: attend to keys 0..position
    const double* in = ptr(scores) + row * s;
    double* out = ptr(probs) + row * s;
    double max = -std::numeric_limits<double>::infinity();
    for (std::int64_t k = 0; k <= position; ++k)
      max = std::max(max, in[k]);
    double sum = 0.0;
    for (std::int64_t k = 0; k <= position; ++k) {
      out[k] = std::exp(in[k] - max);
      sum += out[k];
    }
    for (std::int64_t k = 0; k <= position; ++k)
      out[k] /= sum;
  }
  return probs;
}

Tensor CpuBackend::softmax_backward(const Tensor& dprobs, const Tensor& probs, std::string_view) {
  Tensor dscores = make(probs.shape(), probs.dtype());
  const std::int64_t s = cols(probs);
  for (std::int64_t row = 0; row < rows(probs); ++row) {
    const double* p = ptr(probs) + row * s;
    const double* d = ptr(dprobs) + row * s;
    double dot = 0.0;
    for (std::int64_t k = 0; k < s; ++k)
      dot += d[k] * p[k];
    double* out = ptr(dscores) + row * s;
    for (std::int64_t k = 0; k < s; ++k)
      out[k] = p[k] * (d[k] - dot);
  }
  return dscores;
}

void CpuBackend::accumulate(Tensor& dst, const Tensor& src, std::string_view) {
  for (std::size_t i = 0; i < count(dst); ++i)
    ptr(dst)[i] += ptr(src)[i];
}

Tensor CpuBackend::embedding_lookup(const Tensor& tokens, const Tensor& table,
                                    std::int64_t vocab_begin, std::string_view) {
  const std::int64_t h = cols(table);
  Tensor out = make({1, tokens.numel(), h}, table.dtype());
  for (std::int64_t row = 0; row < tokens.numel(); ++row) {
    const auto id = static_cast<std::int64_t>(ptr(tokens)[row]) - vocab_begin;
    if (id < 0 || id >= rows(table)) continue;
    std::copy_n(ptr(table) + id * h, h, ptr(out) + row * h);
  }
  return out;
}

void CpuBackend::add_position_embedding(Tensor& x, const Tensor& table, std::int64_t micro_batch,
                                        std::int64_t first_position, std::string_view) {
  const std::int64_t h = cols(x);
  for (std::int64_t row = 0; row < rows(x); ++row) {
    const double* p = ptr(table) + (first_position + row / micro_batch) * h;
    double* out = ptr(x) + row * h;
    for (std::int64_t c = 0; c < h; ++c)
      out[c] += p[c];
  }
}

void CpuBackend::embedding_backward(const Tensor& dy, const Tensor& tokens,
                                    std::int64_t vocab_begin, Tensor& dtable, std::string_view) {
  const std::int64_t h = cols(dy);
  for (std::int64_t row = 0; row < rows(dy); ++row) {
    const auto id = static_cast<std::int64_t>(ptr(tokens)[row]) - vocab_begin;
    if (id < 0 || id >= rows(dtable)) continue;
    for (std::int64_t c = 0; c < h; ++c)
      ptr(dtable)[id * h + c] += ptr(dy)[row * h + c];
  }
}

void CpuBackend::position_embedding_backward(const Tensor& dy, std::int64_t micro_batch,
                                             std::int64_t first_position, Tensor& dtable,
                                             std::string_view) {
  const std::int64_t h = cols(dy);
  for (std::int64_t row = 0; row < rows(dy); ++row) {
    double* out = ptr(dtable) + (first_position + row / micro_batch) * h;
    for (std::int64_t c = 0; c < h; ++c)
      out[c] += ptr(dy)[row * h + c];
  }
}

Fp8Tensor CpuBackend::quantize_fp8(const Tensor& x, Fp8Recipe, program::MemoryCategory,
                                   std::string_view) {
  // The values stay exact: what the cpu backend proves is the partitioned arithmetic, which
  // FP8's rounding would hide.
  Fp8Tensor q{make(x.shape(), DType::fp8), make(x.shape(), DType::fp8)};
  std::copy(values(x).begin(), values(x).end(), values(q.rowwise).begin());
  std::copy(values(x).begin(), values(x).end(), values(q.columnwise).begin());
  return q;
}

Tensor CpuBackend::cast(const Tensor& x, DType dtype, std::string_view) {
  Tensor y = make(x.shape(), dtype);
  std::copy_n(ptr(x), count(x), ptr(y));
  return y;
}

Tensor CpuBackend::row_max(const Tensor& logits, std::string_view) {
  Tensor max = make({1, rows(logits), 1}, DType::fp32);
  matrix(max).col(0) = matrix(logits).rowwise().maxCoeff();
  return max;
}

CrossEntropyStats CpuBackend::cross_entropy_stats(Tensor& logits, const Tensor& max,
                                                  const Tensor& labels, std::int64_t vocab_begin,
                                                  std::string_view) {
  CrossEntropyStats r{make(max.shape(), DType::fp32), make(max.shape(), DType::fp32)};
  const std::int64_t v = cols(logits);
  for (std::int64_t row = 0; row < rows(logits); ++row) {
    double* l = ptr(logits) + row * v;
    const double m = ptr(max)[row];
    const auto id = static_cast<std::int64_t>(ptr(labels)[row]) - vocab_begin;
    ptr(r.target_logit)[row] = (id >= 0 && id < v) ? l[id] - m : 0.0;
    double sum = 0.0;
    for (std::int64_t c = 0; c < v; ++c) {
      l[c] = std::exp(l[c] - m);
      sum += l[c];
    }
    ptr(r.sum_exp)[row] = sum;
  }
  return r;
}

Tensor CpuBackend::cross_entropy_loss(Tensor& exp_logits, const CrossEntropyStats& stats,
                                      double scale, std::string_view) {
  Tensor loss = make({1, 1, 1}, DType::fp32);
  const std::int64_t v = cols(exp_logits);
  double total = 0.0;
  for (std::int64_t row = 0; row < rows(exp_logits); ++row) {
    const double sum = ptr(stats.sum_exp)[row];
    total += std::log(sum) - ptr(stats.target_logit)[row];
    double* l = ptr(exp_logits) + row * v;
    for (std::int64_t c = 0; c < v; ++c)
      l[c] /= sum;
  }
  ptr(loss)[0] = scale * total;
  return loss;
}

void CpuBackend::cross_entropy_backward(Tensor& softmax, const Tensor& labels,
                                        std::int64_t vocab_begin, double scale, std::string_view) {
  const std::int64_t v = cols(softmax);
  for (std::int64_t row = 0; row < rows(softmax); ++row) {
    double* g = ptr(softmax) + row * v;
    const auto id = static_cast<std::int64_t>(ptr(labels)[row]) - vocab_begin;
    if (id >= 0 && id < v) g[id] -= 1.0;
    for (std::int64_t c = 0; c < v; ++c)
      g[c] *= scale;
  }
}

void CpuBackend::all_reduce(std::span<const Tensor> tensors, CommGroup group, ReduceOp op,
                            program::Stream, std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  if (ranks.size() <= 1) return;
  // One fused message, as Megatron's contiguous gradient buckets are.
  std::vector<double> flat;
  for (const Tensor& t : tensors)
    flat.insert(flat.end(), ptr(t), ptr(t) + count(t));
  communicator_.all_reduce(ranks, rank_, flat, op);
  std::size_t offset = 0;
  for (const Tensor& t : tensors) {
    std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(offset), count(t), ptr(t));
    offset += count(t);
  }
}

void CpuBackend::send(const Tensor& x, std::int64_t part, std::int64_t parts, std::int64_t peer,
                      program::Stream, std::string_view) {
  const std::size_t chunk = count(x) / static_cast<std::size_t>(parts);
  communicator_.send(rank_, peer, {ptr(x) + static_cast<std::size_t>(part) * chunk, chunk});
}

Tensor CpuBackend::recv(Shape shape, DType dtype, std::int64_t peer, program::Stream,
                        std::string_view) {
  Tensor y = make(shape, dtype);
  communicator_.recv(peer, rank_, values(y));
  return y;
}

std::size_t CpuBackend::position_in(const std::vector<std::int64_t>& ranks) const {
  return static_cast<std::size_t>(std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin());
}

Tensor CpuBackend::ring_shift(const Tensor& x, CommGroup group, program::Stream, std::string_view) {
  Tensor y = make(x.shape(), x.dtype());
  communicator_.ring_shift(ranks_of(group), rank_, values(x), values(y));
  return y;
}

Tensor CpuBackend::all_gather(const Tensor& x, CommGroup group, program::Stream, std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  Shape shape = x.shape();
  shape.rows *= static_cast<std::int64_t>(ranks.size());
  Tensor y = make(shape, x.dtype());
  communicator_.all_gather(ranks, rank_, values(x), values(y));
  return y;
}

Tensor CpuBackend::reduce_scatter(const Tensor& x, CommGroup group, program::Stream,
                                  std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  Shape shape = x.shape();
  shape.rows /= static_cast<std::int64_t>(ranks.size());
  Tensor y = make(shape, x.dtype());
  communicator_.reduce_scatter(ranks, rank_, values(x), values(y));
  return y;
}

Tensor CpuBackend::broadcast(const Tensor& x, CommGroup group, std::int64_t root, program::Stream,
                             std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  Tensor y = cast(x, x.dtype(), "");
  communicator_.broadcast(ranks, rank_, ranks.at(static_cast<std::size_t>(root)), values(y));
  return y;
}

void CpuBackend::reduce(Tensor& x, CommGroup group, std::int64_t root, program::Stream,
                        std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  communicator_.reduce(ranks, rank_, ranks.at(static_cast<std::size_t>(root)), values(x));
}

namespace {
// The concatenation of `tensors`, zero-padded to a multiple of n.
std::vector<double> flatten(std::span<const Tensor> tensors, std::size_t n) {
  std::vector<double> flat;
  for (const Tensor& t : tensors)
    flat.insert(flat.end(), ptr(t), ptr(t) + count(t));
  flat.resize((flat.size() + n - 1) / n * n, 0.0);
  return flat;
}
void unflatten(const std::vector<double>& flat, std::span<const Tensor> tensors) {
  std::size_t offset = 0;
  for (const Tensor& t : tensors) {
    std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(offset), count(t), ptr(t));
    offset += count(t);
  }
}
}  // namespace

void CpuBackend::reduce_scatter_flat(std::span<const Tensor> tensors, CommGroup group,
                                     program::Stream, std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  if (ranks.size() <= 1) return;
  std::vector<double> flat = flatten(tensors, ranks.size());
  const std::size_t chunk = flat.size() / ranks.size();
  std::vector<double> mine(chunk);
  communicator_.reduce_scatter(ranks, rank_, flat, mine);
  std::copy(mine.begin(), mine.end(),
            flat.begin() + static_cast<std::ptrdiff_t>(position_in(ranks) * chunk));
  unflatten(flat, tensors);
}

void CpuBackend::all_gather_flat(std::span<const Tensor> tensors, CommGroup group, program::Stream,
                                 std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  if (ranks.size() <= 1) return;
  std::vector<double> flat = flatten(tensors, ranks.size());
  const std::size_t chunk = flat.size() / ranks.size();
  const auto begin = flat.begin() + static_cast<std::ptrdiff_t>(position_in(ranks) * chunk);
  const std::vector<double> mine(begin, begin + static_cast<std::ptrdiff_t>(chunk));
  communicator_.all_gather(ranks, rank_, mine, flat);
  unflatten(flat, tensors);
}

void CpuBackend::reduce_scatter_accumulate(std::span<const Tensor> tensors, Tensor& shard,
                                           CommGroup group, program::Stream, std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  const std::size_t chunk = count(shard);
  std::vector<double> flat = flatten(tensors, ranks.size());
  flat.resize(ranks.size() * chunk, 0.0);  // the shard's size sets the padding
  std::vector<double> mine(chunk);
  if (ranks.size() <= 1) {
    mine = flat;
  } else {
    communicator_.reduce_scatter(ranks, rank_, flat, mine);
  }
  for (std::size_t i = 0; i < chunk; ++i)
    ptr(shard)[i] += mine[i];
}

void CpuBackend::all_gather_shards(const Tensor& shard, std::span<const Tensor> tensors,
                                   CommGroup group, program::Stream, std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  std::vector<double> flat(ranks.size() * count(shard));
  if (ranks.size() <= 1) {
    std::copy_n(ptr(shard), count(shard), flat.begin());
  } else {
    communicator_.all_gather(ranks, rank_, values(shard), flat);
  }
  unflatten(flat, tensors);
}

void CpuBackend::zero(std::span<const Tensor> tensors, std::string_view) {
  for (const Tensor& t : tensors)
    std::fill_n(ptr(t), count(t), 0.0);
}

void CpuBackend::adam_step(std::span<const AdamTensors> tensors, const AdamHyper& hyper,
                           std::string_view) {
  const double step = static_cast<double>(hyper.step);
  const double correction1 = 1.0 - std::pow(hyper.beta1, step);
  const double correction2 = 1.0 - std::pow(hyper.beta2, step);
  for (const AdamTensors& t : tensors) {
    for (std::size_t i = 0; i < count(t.param); ++i) {
      const double g = ptr(t.grad)[i];
      double& m = ptr(t.m)[i];
      double& v = ptr(t.v)[i];
      double& w = ptr(t.master)[i];
      m = hyper.beta1 * m + (1.0 - hyper.beta1) * g;
      v = hyper.beta2 * v + (1.0 - hyper.beta2) * g * g;
      const double update = (m / correction1) / (std::sqrt(v / correction2) + hyper.eps);
      w -= hyper.lr * (update + hyper.weight_decay * w);
      ptr(t.param)[i] = w;
    }
  }
}

void CpuBackend::adam_step_flat(std::span<const Tensor> params, std::span<const Tensor> grads,
                                std::int64_t grad_offset, const Tensor& master, const Tensor& m,
                                const Tensor& v, std::int64_t offset, const AdamHyper& hyper,
                                std::string_view) {
  std::vector<double> flat_params = flatten(params, 1);
  const std::vector<double> flat_grads = flatten(grads, 1);
  const double step = static_cast<double>(hyper.step);
  const double correction1 = 1.0 - std::pow(hyper.beta1, step);
  const double correction2 = 1.0 - std::pow(hyper.beta2, step);
  for (std::size_t i = 0; i < count(master); ++i) {
    const std::size_t k = static_cast<std::size_t>(offset) + i;
    if (k >= flat_params.size()) break;  // padding
    const double g = flat_grads[static_cast<std::size_t>(grad_offset) + i];
    double& mi = ptr(m)[i];
    double& vi = ptr(v)[i];
    double& w = ptr(master)[i];
    mi = hyper.beta1 * mi + (1.0 - hyper.beta1) * g;
    vi = hyper.beta2 * vi + (1.0 - hyper.beta2) * g * g;
    const double update = (mi / correction1) / (std::sqrt(vi / correction2) + hyper.eps);
    w -= hyper.lr * (update + hyper.weight_decay * w);
    flat_params[k] = w;
  }
  unflatten(flat_params, params);
}

namespace {
// The elements of a range.
std::span<double> elements_of(const TensorRange& r) {
  return CpuBackend::values(r.tensor).subspan(static_cast<std::size_t>(r.offset),
                                              static_cast<std::size_t>(r.count));
}
}  // namespace

Tensor CpuBackend::sum_of_squares(std::span<const TensorRange> ranges, std::string_view) {
  Tensor out = make({1, 1, 1}, DType::fp32);
  double sum = 0.0;
  for (const TensorRange& r : ranges) {
    for (const double x : elements_of(r))
      sum += x * x;
  }
  ptr(out)[0] = sum;
  return out;
}

void CpuBackend::scale(std::span<const TensorRange> ranges, double factor, std::string_view) {
  for (const TensorRange& r : ranges) {
    for (double& x : elements_of(r))
      x *= factor;
  }
}

Tensor CpuBackend::unscale_and_check(std::span<const TensorRange> ranges, double inv_scale,
                                     std::string_view) {
  Tensor found_inf = make({1, 1, 1}, DType::fp32);
  for (const TensorRange& r : ranges) {
    for (double& x : elements_of(r)) {
      if (!std::isfinite(x)) ptr(found_inf)[0] = 1.0;
      x *= inv_scale;
    }
  }
  return found_inf;
}

}  // namespace trainsim

// --- mixture of experts ---------------------------------------------------------------------
// Indices and counts are held as doubles like every value here (exact below 2^53).
namespace trainsim {

namespace {
// The first row of each of `rows`' chunks, and the total.
std::vector<std::int64_t> offsets_of(std::span<const std::int64_t> rows) {
  std::vector<std::int64_t> first(rows.size() + 1, 0);
  std::partial_sum(rows.begin(), rows.end(), first.begin() + 1);
  return first;
}
}  // namespace

MoeRouting CpuBackend::route(const Tensor& logits, const RouterSpec& spec, std::string_view) {
  const std::int64_t n = rows(logits);
  const std::int64_t experts = cols(logits);
  const std::int64_t k = spec.top_k;
  MoeRouting r;
  r.probs = make({1, n, k}, DType::fp32);
  r.experts = make({1, n, k}, DType::fp32);
  r.slots = make({1, n, k}, DType::fp32);
  r.counts = make({1, 1, experts}, DType::fp64);
  // Per token the k largest logits (ties to the lower expert), softmax over them.
  std::vector<std::vector<std::pair<double, std::int64_t>>> chosen(
      static_cast<std::size_t>(experts));  // per expert: (probability, token)
  std::vector<std::int64_t> order(static_cast<std::size_t>(experts));
  for (std::int64_t t = 0; t < n; ++t) {
    const double* z = ptr(logits) + t * experts;
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::partial_sort(
        order.begin(), order.begin() + k, order.end(),
        [&](std::int64_t a, std::int64_t b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
    const double top = z[order[0]];
    double total = 0.0;
    for (std::int64_t j = 0; j < k; ++j)
      total += std::exp(z[order[static_cast<std::size_t>(j)]] - top);
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t e = order[static_cast<std::size_t>(j)];
      const double p = std::exp(z[e] - top) / total;
      ptr(r.probs)[t * k + j] = p;
      ptr(r.experts)[t * k + j] = static_cast<double>(e);
      chosen[static_cast<std::size_t>(e)].emplace_back(p, t);
    }
  }
  // The capacity keeps each expert's most probable tokens (Megatron's drop policy "probs");
  // the kept rows are laid out by expert, tokens in order within one.
  std::fill_n(ptr(r.slots), count(r.slots), -1.0);
  std::int64_t row = 0;
  for (std::int64_t e = 0; e < experts; ++e) {
    auto& mine = chosen[static_cast<std::size_t>(e)];
    if (spec.capacity && static_cast<std::int64_t>(mine.size()) > *spec.capacity) {
      std::stable_sort(mine.begin(), mine.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      mine.resize(static_cast<std::size_t>(*spec.capacity));
    }
    std::sort(mine.begin(), mine.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [p, t] : mine) {
      for (std::int64_t j = 0; j < k; ++j) {
        if (ptr(r.experts)[t * k + j] == static_cast<double>(e)) {
          ptr(r.slots)[t * k + j] = static_cast<double>(row++);
        }
      }
    }
    r.tokens_per_expert.push_back(static_cast<std::int64_t>(mine.size()));
    ptr(r.counts)[e] = static_cast<double>(mine.size());
  }
  return r;
}

Tensor CpuBackend::route_backward(const Tensor& dprobs, const MoeRouting& routing,
                                  std::int64_t experts, DType dtype, std::string_view) {
  // The softmax over a token's k chosen logits: dz_j = p_j (dp_j − Σ_i p_i dp_i).
  Tensor dlogits = make({1, rows(routing.probs), experts}, dtype);
  const std::int64_t k = cols(routing.probs);
  for (std::int64_t t = 0; t < rows(routing.probs); ++t) {
    const double* p = ptr(routing.probs) + t * k;
    const double* dp = ptr(dprobs) + t * k;
    double s = 0.0;
    for (std::int64_t j = 0; j < k; ++j)
      s += p[j] * dp[j];
    for (std::int64_t j = 0; j < k; ++j) {
      const auto e = static_cast<std::int64_t>(ptr(routing.experts)[t * k + j]);
      ptr(dlogits)[t * experts + e] = p[j] * (dp[j] - s);
    }
  }
  return dlogits;
}

Tensor CpuBackend::permute_tokens(const Tensor& x, const MoeRouting& routing, std::string_view) {
  const std::int64_t h = cols(x);
  const std::int64_t k = cols(routing.slots);
  const std::int64_t total = std::accumulate(routing.tokens_per_expert.begin(),
                                             routing.tokens_per_expert.end(), std::int64_t{0});
  Tensor y = make({1, total, h}, x.dtype());
  for (std::int64_t i = 0; i < routing.slots.numel(); ++i) {
    const auto slot = static_cast<std::int64_t>(ptr(routing.slots)[i]);
    if (slot >= 0) std::copy_n(ptr(x) + i / k * h, h, ptr(y) + slot * h);
  }
  return y;
}

Tensor CpuBackend::permute_tokens_backward(const Tensor& dpermuted, const MoeRouting& routing,
                                           std::string_view) {
  const std::int64_t h = cols(dpermuted);
  const std::int64_t k = cols(routing.slots);
  Tensor dx = make({1, rows(routing.slots), h}, dpermuted.dtype());
  for (std::int64_t i = 0; i < routing.slots.numel(); ++i) {
    const auto slot = static_cast<std::int64_t>(ptr(routing.slots)[i]);
    if (slot < 0) continue;
    double* out = ptr(dx) + i / k * h;
    const double* in = ptr(dpermuted) + slot * h;
    for (std::int64_t c = 0; c < h; ++c)
      out[c] += in[c];
  }
  return dx;
}

Tensor CpuBackend::unpermute_tokens(const Tensor& y, const MoeRouting& routing, std::string_view) {
  const std::int64_t h = cols(y);
  const std::int64_t k = cols(routing.slots);
  Tensor out = make({1, rows(routing.slots), h}, y.dtype());
  for (std::int64_t i = 0; i < routing.slots.numel(); ++i) {
    const auto slot = static_cast<std::int64_t>(ptr(routing.slots)[i]);
    if (slot < 0) continue;
    const double p = ptr(routing.probs)[i];
    double* o = ptr(out) + i / k * h;
    const double* in = ptr(y) + slot * h;
    for (std::int64_t c = 0; c < h; ++c)
      o[c] += p * in[c];
  }
  return out;
}

Tensor CpuBackend::unpermute_tokens_backward(const Tensor& dout, const Tensor& y,
                                             const MoeRouting& routing, Tensor& dprobs,
                                             std::string_view) {
  const std::int64_t h = cols(y);
  const std::int64_t k = cols(routing.slots);
  Tensor dy = make(y.shape(), y.dtype());
  dprobs = make(routing.probs.shape(), DType::fp32);
  for (std::int64_t i = 0; i < routing.slots.numel(); ++i) {
    const auto slot = static_cast<std::int64_t>(ptr(routing.slots)[i]);
    if (slot < 0) continue;
    const double p = ptr(routing.probs)[i];
    const double* g = ptr(dout) + i / k * h;
    const double* in = ptr(y) + slot * h;
    double* d = ptr(dy) + slot * h;
    double dot = 0.0;
    for (std::int64_t c = 0; c < h; ++c) {
      d[c] = p * g[c];
      dot += g[c] * in[c];
    }
    ptr(dprobs)[i] = dot;
  }
  return dy;
}

Tensor CpuBackend::sort_chunks(const Tensor& x, std::span<const std::int64_t> chunk_rows,
                               std::span<const std::int64_t> order, std::string_view) {
  const std::int64_t h = cols(x);
  const std::vector<std::int64_t> first = offsets_of(chunk_rows);
  Tensor y = make(x.shape(), x.dtype());
  std::int64_t at = 0;
  for (const std::int64_t c : order) {
    const std::int64_t n = chunk_rows[static_cast<std::size_t>(c)];
    std::copy_n(ptr(x) + first[static_cast<std::size_t>(c)] * h, n * h, ptr(y) + at * h);
    at += n;
  }
  return y;
}

Tensor CpuBackend::grouped_matmul(const Tensor& a, const Tensor& w,
                                  std::span<const std::int64_t> group_rows, bool transpose_w,
                                  std::string_view) {
  const std::int64_t k = w.shape().rows;
  const std::int64_t n = w.shape().cols;
  const std::int64_t out_cols = transpose_w ? k : n;
  Tensor c = make({1, rows(a), out_cols}, gemm_output_dtype(a.dtype()));
  const std::vector<std::int64_t> first = offsets_of(group_rows);
  for (std::size_t g = 0; g < group_rows.size(); ++g) {
    const std::int64_t m = group_rows[g];
    const ConstMatrixMap A(ptr(a) + first[g] * cols(a), m, cols(a));
    const ConstMatrixMap W(ptr(w) + static_cast<std::int64_t>(g) * k * n, k, n);
    MatrixMap C(ptr(c) + first[g] * out_cols, m, out_cols);
    if (transpose_w) {
      C.noalias() = A * W.transpose();
    } else {
      C.noalias() = A * W;
    }
  }
  return c;
}

void CpuBackend::grouped_matmul_weight_grad(const Tensor& a, const Tensor& dy,
                                            std::span<const std::int64_t> group_rows, Tensor& dw,
                                            std::string_view) {
  const std::int64_t k = dw.shape().rows;
  const std::int64_t n = dw.shape().cols;
  const std::vector<std::int64_t> first = offsets_of(group_rows);
  for (std::size_t g = 0; g < group_rows.size(); ++g) {
    const std::int64_t m = group_rows[g];
    const ConstMatrixMap A(ptr(a) + first[g] * k, m, k);
    const ConstMatrixMap D(ptr(dy) + first[g] * n, m, n);
    MatrixMap W(ptr(dw) + static_cast<std::int64_t>(g) * k * n, k, n);
    W.noalias() += A.transpose() * D;
  }
}

Tensor CpuBackend::all_to_all(const Tensor& x, std::span<const std::int64_t> send,
                              std::span<const std::int64_t> recv, CommGroup group, program::Stream,
                              std::string_view) {
  const std::int64_t h = cols(x);
  std::vector<std::int64_t> elements;
  for (const std::int64_t r : send)
    elements.push_back(r * h);
  const std::vector<double> got =
      communicator_.all_to_all(ranks_of(group), rank_, values(x), elements);
  const std::int64_t total = std::accumulate(recv.begin(), recv.end(), std::int64_t{0});
  if (static_cast<std::int64_t>(got.size()) != total * h) {
    throw std::logic_error("cpu backend: all_to_all received other sizes than planned");
  }
  Tensor y = make({1, total, h}, x.dtype());
  std::copy(got.begin(), got.end(), ptr(y));
  return y;
}

std::vector<std::int64_t> CpuBackend::gather_counts(const MoeRouting& routing, CommGroup group,
                                                    std::string_view) {
  const std::vector<std::int64_t>& ranks = ranks_of(group);
  std::vector<double> all(ranks.size() * count(routing.counts));
  communicator_.all_gather(ranks, rank_, values(routing.counts), all);
  std::vector<std::int64_t> counts;
  for (const double c : all)
    counts.push_back(static_cast<std::int64_t>(c));
  return counts;
}

}  // namespace trainsim
