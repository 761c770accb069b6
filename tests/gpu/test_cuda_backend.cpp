// The cuda backend against the cpu backend (fp64), call by call on small random shapes, in
// fp32 and bf16, and one GPT layer forward + backward on one rank. Tolerances from issue 6:
// relative error (max |cuda − cpu| / max |cpu| per tensor) well under 1e-3 in fp32, under
// 1e-2 in bf16; never NaN. Inputs are random normals, never zeros; bf16 inputs are rounded
// on the GPU first and the cpu computes on the rounded values. Exits 77 without a GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "models/cpu_backend.hpp"
#include "models/cpu_communicator.hpp"
#include "models/cuda/cuda_backend.hpp"
#include "models/transformer.hpp"
#include "models/train_step.hpp"

namespace trainsim {
namespace {

using cuda::CudaBackend;
using program::MemoryCategory;
using program::Stream;

double tolerance(DType t) {
  return t == DType::fp32 ? 1e-3 : 1e-2;
}

// The two backends side by side, with their tensors created in pairs.
struct Pair {
  Tensor gpu;
  Tensor cpu;
};

class Bench {
 public:
  explicit Bench(std::vector<MicroBatchTokens> batches = {})
      : cpu_(communicator_, 0, {0}, {0}, batches, 1),
        gpu_(0, {0}, {0}, cuda::CudaBackendOptions{batches, 0, 1, 0}) {}

  CpuBackend& cpu() { return cpu_; }
  CudaBackend& gpu() { return gpu_; }

  /// Random N(mean, stddev) values (|x| ≥ 0.05: never zero) in both, the cpu's rounded as the
  /// gpu's dtype stores them.
  Pair random(Shape shape, DType dtype, double mean = 0.0, double stddev = 1.0) {
    Pair p{gpu_.allocate(shape, dtype, MemoryCategory::temporaries, "x"),
           cpu_.allocate(shape, dtype, MemoryCategory::temporaries, "x")};
    std::normal_distribution<double> normal(mean, stddev);
    std::vector<double> v(static_cast<std::size_t>(shape.numel()));
    for (double& x : v) {
      x = normal(rng_);
      if (std::abs(x) < 0.05) x = x < 0 ? -0.05 : 0.05;
    }
    gpu_.upload(p.gpu, v);
    const std::vector<double> rounded = gpu_.download(p.gpu);
    std::copy(rounded.begin(), rounded.end(), CpuBackend::values(p.cpu).begin());
    return p;
  }
  /// Zeros in both: a gradient buffer before its first writer (the attention backwards
  /// accumulate a group's heads into dqkv, which starts at zero, as in the layers).
  Pair zeros(Shape shape, DType dtype) {
    return {gpu_.allocate(shape, dtype, MemoryCategory::temporaries, "zeros"),
            cpu_.allocate(shape, dtype, MemoryCategory::temporaries, "zeros")};
  }
  /// Token ids in [0, vocab) in both (8-byte slots).
  Pair ids(std::int64_t n, std::int64_t vocab) {
    Pair p{gpu_.allocate({1, n, 1}, DType::fp64, MemoryCategory::temporaries, "ids"),
           cpu_.allocate({1, n, 1}, DType::fp64, MemoryCategory::temporaries, "ids")};
    std::uniform_int_distribution<std::int64_t> id(0, vocab - 1);
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v)
      x = static_cast<double>(id(rng_));
    gpu_.upload(p.gpu, v);
    std::copy(v.begin(), v.end(), CpuBackend::values(p.cpu).begin());
    return p;
  }

  /// Relative error of the gpu tensor against the cpu's; fails on NaN.
  double error(const Tensor& gpu, const Tensor& cpu) {
    const std::vector<double> g = gpu_.download(gpu);
    const std::span<double> c = CpuBackend::values(cpu);
    REQUIRE(g.size() == c.size());
    double diff = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      REQUIRE_FALSE(std::isnan(g[i]));
      diff = std::max(diff, std::abs(g[i] - c[i]));
      scale = std::max(scale, std::abs(c[i]));
    }
    return scale > 0.0 ? diff / scale : diff;
  }
  void expect_close(const Tensor& gpu, const Tensor& cpu, DType dtype, const char* what) {
    const double e = error(gpu, cpu);
    INFO(std::string(what) << " in " << to_string(dtype) << ": relative error " << e);
    CHECK(e < tolerance(dtype));
  }
  void expect_close(const Pair& p, DType dtype, const char* what) {
    expect_close(p.gpu, p.cpu, dtype, what);
  }

 private:
  CpuCommunicator communicator_;
  CpuBackend cpu_;
  CudaBackend gpu_;
  std::mt19937_64 rng_{7};
};

const DType kTypes[] = {DType::fp32, DType::bf16};

TEST_CASE("GEMMs: every transpose, accumulation into fp32, attention") {
  for (const DType t : kTypes) {
    Bench b;
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        const Pair a = b.random(ta ? Shape{1, 24, 40} : Shape{1, 40, 24}, t);
        const Pair w = b.random(tb ? Shape{1, 36, 24} : Shape{1, 24, 36}, t);
        const Tensor cg = b.gpu().matmul(a.gpu, w.gpu, ta, tb, "mm");
        const Tensor cc = b.cpu().matmul(a.cpu, w.cpu, ta, tb, "mm");
        b.expect_close(cg, cc, t, "matmul");
        Pair acc = b.random({1, 40, 36}, DType::fp32);
        b.gpu().matmul_accumulate(a.gpu, w.gpu, ta, tb, acc.gpu, "mma");
        b.cpu().matmul_accumulate(a.cpu, w.cpu, ta, tb, acc.cpu, "mma");
        b.expect_close(acc, t, "matmul_accumulate");
      }
    }
    const AttentionShape s{8, 2, 3, 4, 3};  // s, b, heads, d, kv heads
    const Pair qkv = b.random({1, 16, 36}, t);
    const Tensor sg = b.gpu().attention_scores(qkv.gpu, s, "scores");
    const Tensor sc = b.cpu().attention_scores(qkv.cpu, s, "scores");
    b.expect_close(sg, sc, t, "attention_scores");
    const Pair probs = b.random({6, 8, 8}, t);
    b.expect_close(b.gpu().attention_context(probs.gpu, qkv.gpu, s, "ctx"),
                   b.cpu().attention_context(probs.cpu, qkv.cpu, s, "ctx"), t, "attention_context");
    const Pair dctx = b.random({1, 16, 12}, t);
    Pair dqkv = b.zeros({1, 16, 36}, t);
    const Tensor dpg =
        b.gpu().attention_context_backward(dctx.gpu, probs.gpu, qkv.gpu, dqkv.gpu, s, "dctx");
    const Tensor dpc =
        b.cpu().attention_context_backward(dctx.cpu, probs.cpu, qkv.cpu, dqkv.cpu, s, "dctx");
    b.expect_close(dpg, dpc, t, "attention_context_backward dP");
    const Pair ds = b.random({6, 8, 8}, t);
    b.gpu().attention_scores_backward(ds.gpu, qkv.gpu, dqkv.gpu, s, "dscores");
    b.cpu().attention_scores_backward(ds.cpu, qkv.cpu, dqkv.cpu, s, "dscores");
    b.expect_close(dqkv, t, "attention backward dQKV");
  }
}

TEST_CASE("LayerNorm: fused, partial and backward variants") {
  for (const DType t : kTypes) {
    Bench b;
    const Pair x = b.random({1, 12, 48}, t, 0.5, 2.0);
    const Pair gamma = b.random({1, 1, 48}, t, 1.0, 0.1);
    const Pair beta = b.random({1, 1, 48}, t);
    const LayerNormResult g = b.gpu().layer_norm(x.gpu, gamma.gpu, beta.gpu, "ln");
    const LayerNormResult c = b.cpu().layer_norm(x.cpu, gamma.cpu, beta.cpu, "ln");
    b.expect_close(g.y, c.y, t, "layer_norm y");
    b.expect_close(g.stats, c.stats, DType::fp32, "layer_norm stats");
    const Pair dy = b.random({1, 12, 48}, t);
    Pair dgamma = b.random({1, 1, 48}, DType::fp32);
    Pair dbeta = b.random({1, 1, 48}, DType::fp32);
    b.expect_close(b.gpu().layer_norm_backward(dy.gpu, x.gpu, gamma.gpu, g.stats, dgamma.gpu,
                                               dbeta.gpu, "lnb"),
                   b.cpu().layer_norm_backward(dy.cpu, x.cpu, gamma.cpu, c.stats, dgamma.cpu,
                                               dbeta.cpu, "lnb"),
                   t, "layer_norm_backward dx");
    b.expect_close(dgamma, t, "layer_norm_backward dgamma");
    b.expect_close(dbeta, t, "layer_norm_backward dbeta");
    // The split form with a hidden of 96 (this rank holds 48 columns).
    const Tensor mg = b.gpu().layer_norm_partial_mean(x.gpu, 96, "m");
    const Tensor mc = b.cpu().layer_norm_partial_mean(x.cpu, 96, "m");
    b.expect_close(mg, mc, DType::fp32, "partial mean");
    const Tensor vg = b.gpu().layer_norm_partial_variance(x.gpu, mg, 96, "v");
    const Tensor vc = b.cpu().layer_norm_partial_variance(x.cpu, mc, 96, "v");
    b.expect_close(vg, vc, DType::fp32, "partial variance");
    const LayerNormResult ag = b.gpu().layer_norm_apply(x.gpu, gamma.gpu, beta.gpu, mg, vg, "a");
    const LayerNormResult ac = b.cpu().layer_norm_apply(x.cpu, gamma.cpu, beta.cpu, mc, vc, "a");
    b.expect_close(ag.y, ac.y, t, "layer_norm_apply");
    const Tensor sg = b.gpu().layer_norm_backward_partial(dy.gpu, x.gpu, gamma.gpu, ag.stats,
                                                          dgamma.gpu, dbeta.gpu, 96, "bp");
    const Tensor sc = b.cpu().layer_norm_backward_partial(dy.cpu, x.cpu, gamma.cpu, ac.stats,
                                                          dgamma.cpu, dbeta.cpu, 96, "bp");
    b.expect_close(sg, sc, DType::fp32, "layer_norm_backward_partial sums");
    b.expect_close(b.gpu().layer_norm_backward_apply(dy.gpu, x.gpu, gamma.gpu, ag.stats, sg, "ba"),
                   b.cpu().layer_norm_backward_apply(dy.cpu, x.cpu, gamma.cpu, ac.stats, sc, "ba"),
                   t, "layer_norm_backward_apply");
  }
}

TEST_CASE("bias, GeLU, dropout, accumulate, cast") {
  for (const DType t : kTypes) {
    Bench b;
    Pair x = b.random({1, 10, 32}, t);
    const Pair bias = b.random({1, 1, 32}, t);
    b.gpu().add_bias(x.gpu, bias.gpu, "bias");
    b.cpu().add_bias(x.cpu, bias.cpu, "bias");
    b.expect_close(x, t, "add_bias");
    Pair dbias = b.random({1, 1, 32}, DType::fp32);
    const Pair dy = b.random({1, 10, 32}, t);
    b.gpu().bias_grad(dy.gpu, dbias.gpu, "bg");
    b.cpu().bias_grad(dy.cpu, dbias.cpu, "bg");
    b.expect_close(dbias, t, "bias_grad");
    b.expect_close(b.gpu().bias_gelu(x.gpu, bias.gpu, "gelu"),
                   b.cpu().bias_gelu(x.cpu, bias.cpu, "gelu"), t, "bias_gelu");
    b.expect_close(b.gpu().bias_gelu_backward(dy.gpu, x.gpu, bias.gpu, dbias.gpu, "gelub"),
                   b.cpu().bias_gelu_backward(dy.cpu, x.cpu, bias.cpu, dbias.cpu, "gelub"), t,
                   "bias_gelu_backward dx");
    b.expect_close(dbias, t, "bias_gelu_backward dbias");
    // p = 0 is deterministic on both; with p > 0 the masks differ (each backend draws its
    // own), so the gpu's result is checked against its own mask.
    const Pair residual = b.random({1, 10, 32}, t);
    const DropoutResult dg = b.gpu().bias_dropout_add(x.gpu, bias.gpu, residual.gpu, 0.0, "bda");
    const DropoutResult dc = b.cpu().bias_dropout_add(x.cpu, bias.cpu, residual.cpu, 0.0, "bda");
    b.expect_close(dg.y, dc.y, t, "bias_dropout_add p=0");
    b.expect_close(dg.mask, dc.mask, DType::fp32, "dropout mask p=0");
    const DropoutResult drop = b.gpu().dropout(x.gpu, 0.5, "drop");
    const std::vector<double> mask = b.gpu().download(drop.mask);
    const std::vector<double> y = b.gpu().download(drop.y);
    const std::vector<double> xv = b.gpu().download(x.gpu);
    double kept = 0.0;
    for (std::size_t i = 0; i < mask.size(); ++i) {
      kept += mask[i];
      CHECK(std::abs(y[i] - mask[i] * 2.0 * xv[i]) <= tolerance(t) * (std::abs(xv[i]) * 2 + 1e-3));
    }
    CHECK(kept / static_cast<double>(mask.size()) == doctest::Approx(0.5).epsilon(0.15));
    // dropout_backward with the gpu's mask on both sides.
    Pair m{drop.mask, b.cpu().allocate({1, 10, 32}, DType::fp32, MemoryCategory::temporaries, "")};
    std::copy(mask.begin(), mask.end(), CpuBackend::values(m.cpu).begin());
    b.expect_close(b.gpu().dropout_backward(dy.gpu, m.gpu, 0.5, &dbias.gpu, "db"),
                   b.cpu().dropout_backward(dy.cpu, m.cpu, 0.5, &dbias.cpu, "db"), t,
                   "dropout_backward");
    b.expect_close(dbias, t, "dropout_backward dbias");
    Pair dst = b.random({1, 10, 32}, DType::fp32);
    b.gpu().accumulate(dst.gpu, dy.gpu, "acc");
    b.cpu().accumulate(dst.cpu, dy.cpu, "acc");
    b.expect_close(dst, t, "accumulate");
    b.expect_close(b.gpu().cast(dst.gpu, t, "cast"), b.cpu().cast(dst.cpu, t, "cast"), t, "cast");
  }
}

TEST_CASE("causal softmax and its backward") {
  for (const DType t : kTypes) {
    Bench b;
    const Pair scores = b.random({6, 16, 16}, t, 0.0, 3.0);
    const Tensor pg = b.gpu().softmax(scores.gpu, "sm");
    const Tensor pc = b.cpu().softmax(scores.cpu, "sm");
    b.expect_close(pg, pc, t, "softmax");
    const Pair dprobs = b.random({6, 16, 16}, t);
    b.expect_close(b.gpu().softmax_backward(dprobs.gpu, pg, "smb"),
                   b.cpu().softmax_backward(dprobs.cpu, pc, "smb"), t, "softmax_backward");
  }
}

TEST_CASE("embeddings: vocabulary shard lookup, positions, backward") {
  for (const DType t : kTypes) {
    Bench b;
    const Pair tokens = b.ids(12, 40);
    const Pair table = b.random({1, 20, 16}, t);  // this shard holds ids [20, 40)
    Pair x{b.gpu().embedding_lookup(tokens.gpu, table.gpu, 20, "emb"),
           b.cpu().embedding_lookup(tokens.cpu, table.cpu, 20, "emb")};
    b.expect_close(x, t, "embedding_lookup");
    const Pair positions = b.random({1, 10, 16}, t);
    b.gpu().add_position_embedding(x.gpu, positions.gpu, 3, 2, "pos");
    b.cpu().add_position_embedding(x.cpu, positions.cpu, 3, 2, "pos");
    b.expect_close(x, t, "add_position_embedding");
    const Pair dy = b.random({1, 12, 16}, t);
    Pair dtable = b.random({1, 20, 16}, DType::fp32);
    b.gpu().embedding_backward(dy.gpu, tokens.gpu, 20, dtable.gpu, "embb");
    b.cpu().embedding_backward(dy.cpu, tokens.cpu, 20, dtable.cpu, "embb");
    b.expect_close(dtable, t, "embedding_backward");
    Pair dpos = b.random({1, 10, 16}, DType::fp32);
    b.gpu().position_embedding_backward(dy.gpu, 3, 2, dpos.gpu, "posb");
    b.cpu().position_embedding_backward(dy.cpu, 3, 2, dpos.cpu, "posb");
    b.expect_close(dpos, t, "position_embedding_backward");
  }
}

TEST_CASE("vocabulary-parallel cross entropy") {
  Bench b;
  const Pair labels = b.ids(10, 64);
  Pair logits = b.random({1, 10, 32}, DType::fp32, 0.0, 2.0);  // shard [32, 64)
  const Tensor mg = b.gpu().row_max(logits.gpu, "max");
  const Tensor mc = b.cpu().row_max(logits.cpu, "max");
  b.expect_close(mg, mc, DType::fp32, "row_max");
  const CrossEntropyStats sg = b.gpu().cross_entropy_stats(logits.gpu, mg, labels.gpu, 32, "ce");
  const CrossEntropyStats sc = b.cpu().cross_entropy_stats(logits.cpu, mc, labels.cpu, 32, "ce");
  b.expect_close(sg.target_logit, sc.target_logit, DType::fp32, "target logit");
  b.expect_close(sg.sum_exp, sc.sum_exp, DType::fp32, "sum exp");
  b.expect_close(logits, DType::fp32, "exp logits");
  b.expect_close(b.gpu().cross_entropy_loss(logits.gpu, sg, 0.1, "loss"),
                 b.cpu().cross_entropy_loss(logits.cpu, sc, 0.1, "loss"), DType::fp32, "loss");
  b.expect_close(logits, DType::fp32, "softmax");
  b.gpu().cross_entropy_backward(logits.gpu, labels.gpu, 32, 0.1, "ceb");
  b.cpu().cross_entropy_backward(logits.cpu, labels.cpu, 32, 0.1, "ceb");
  b.expect_close(logits, DType::fp32, "cross_entropy_backward");
}

TEST_CASE("Adam (per tensor and flat), zero, collectives over a group of one") {
  for (const DType t : kTypes) {
    Bench b;
    const AdamHyper hyper{1e-2, 0.9, 0.999, 1e-8, 0.01, 3};
    Pair param = b.random({1, 8, 16}, t);
    Pair grad = b.random({1, 8, 16}, DType::fp32);
    Pair master = b.random({1, 8, 16}, DType::fp32);
    Pair m = b.random({1, 8, 16}, DType::fp32);
    Pair v = b.random({1, 8, 16}, DType::fp32, 2.0, 0.1);  // second moments are positive
    b.gpu().adam_step(std::vector<AdamTensors>{{param.gpu, grad.gpu, master.gpu, m.gpu, v.gpu}},
                      hyper, "adam");
    b.cpu().adam_step(std::vector<AdamTensors>{{param.cpu, grad.cpu, master.cpu, m.cpu, v.cpu}},
                      hyper, "adam");
    b.expect_close(master, t, "adam master");
    b.expect_close(m, t, "adam m");
    b.expect_close(v, t, "adam v");
    b.expect_close(param, t, "adam param");
    // Flat: two parameters of 40 and 30 elements, a shard of 48 from offset 32 (18 past the
    // end are padding), gradients from a bucket at offset 32.
    const Pair p1 = b.random({1, 4, 10}, t);
    const Pair p2 = b.random({1, 3, 10}, t);
    const Pair g1 = b.random({1, 4, 10}, DType::fp32);
    const Pair g2 = b.random({1, 8, 10}, DType::fp32);
    Pair fm = b.random({1, 1, 48}, DType::fp32);
    Pair fmm = b.random({1, 1, 48}, DType::fp32);
    Pair fv = b.random({1, 1, 48}, DType::fp32, 2.0, 0.1);
    b.gpu().adam_step_flat(std::vector<Tensor>{p1.gpu, p2.gpu}, std::vector<Tensor>{g1.gpu, g2.gpu},
                           32, fm.gpu, fmm.gpu, fv.gpu, 32, hyper, "adamf");
    b.cpu().adam_step_flat(std::vector<Tensor>{p1.cpu, p2.cpu}, std::vector<Tensor>{g1.cpu, g2.cpu},
                           32, fm.cpu, fmm.cpu, fv.cpu, 32, hyper, "adamf");
    b.expect_close(fm, t, "adam_step_flat master");
    b.expect_close(p1, t, "adam_step_flat p1");
    b.expect_close(p2, t, "adam_step_flat p2");
    // A group of one: reduce_scatter_accumulate adds the whole (padded) concatenation,
    // all_gather_shards copies the shard back.
    Pair shard = b.random({1, 1, 72}, DType::fp32);
    b.gpu().reduce_scatter_accumulate(std::vector<Tensor>{g1.gpu, p2.gpu}, shard.gpu,
                                      CommGroup::data, Stream::dp, "rsa");
    b.cpu().reduce_scatter_accumulate(std::vector<Tensor>{g1.cpu, p2.cpu}, shard.cpu,
                                      CommGroup::data, Stream::dp, "rsa");
    b.gpu().stream_wait(Stream::compute, Stream::dp);
    b.expect_close(shard, t, "reduce_scatter_accumulate");
    b.gpu().all_gather_shards(shard.gpu, std::vector<Tensor>{p1.gpu, p2.gpu}, CommGroup::data,
                              Stream::dp, "ags");
    b.cpu().all_gather_shards(shard.cpu, std::vector<Tensor>{p1.cpu, p2.cpu}, CommGroup::data,
                              Stream::dp, "ags");
    b.gpu().stream_wait(Stream::compute, Stream::dp);
    b.expect_close(p1, t, "all_gather_shards");
    b.gpu().zero(std::vector<Tensor>{p1.gpu}, "zero");
    b.cpu().zero(std::vector<Tensor>{p1.cpu}, "zero");
    CHECK(b.error(p1.gpu, p1.cpu) == 0.0);
    CHECK(b.gpu().skipped().empty());
  }
}

TEST_CASE("optimizer step: sum of squares, clipping scale, fp16 unscale and overflow check") {
  Bench b;
  // Ranges as the step passes them: a whole gradient and the middle of another (a ZeRO shard).
  Pair g1 = b.random({1, 300, 7}, DType::fp32);
  Pair g2 = b.random({1, 5000, 3}, DType::fp32);
  const auto ranges = [&](bool gpu) {
    const Tensor& a = gpu ? g1.gpu : g1.cpu;
    const Tensor& c = gpu ? g2.gpu : g2.cpu;
    return std::vector<TensorRange>{TensorRange::whole(a), TensorRange{c, 1000, 9000}};
  };
  const Tensor squares_gpu = b.gpu().sum_of_squares(ranges(true), "norm");
  const Tensor squares_cpu = b.cpu().sum_of_squares(ranges(false), "norm");
  b.expect_close(squares_gpu, squares_cpu, DType::fp32, "sum_of_squares");
  // The host reads it: the value itself.
  const std::optional<double> read =
      b.gpu().host_read(squares_gpu, program::SyncPoint::grad_norm, "norm.item");
  REQUIRE(read.has_value());
  CHECK(*read == doctest::Approx(CpuBackend::values(squares_cpu)[0]).epsilon(1e-4));
  b.gpu().scale(ranges(true), 0.25, "clip");
  b.cpu().scale(ranges(false), 0.25, "clip");
  b.expect_close(g1, DType::fp32, "scale");
  b.expect_close(g2, DType::fp32, "scale (range)");
  const Tensor clean_gpu = b.gpu().unscale_and_check(ranges(true), 1.0 / 1024, "unscale");
  const Tensor clean_cpu = b.cpu().unscale_and_check(ranges(false), 1.0 / 1024, "unscale");
  b.expect_close(g2, DType::fp32, "unscale");
  CHECK(b.gpu().download(clean_gpu)[0] == 0.0);
  CHECK(CpuBackend::values(clean_cpu)[0] == 0.0);
  // An inf inside the range is found; one outside it is not.
  std::vector<double> with_inf = b.gpu().download(g2.gpu);
  with_inf[5] = std::numeric_limits<double>::infinity();
  b.gpu().upload(g2.gpu, with_inf);
  CHECK(b.gpu().download(b.gpu().unscale_and_check(ranges(true), 1.0, "unscale"))[0] == 0.0);
  with_inf[2000] = std::numeric_limits<double>::quiet_NaN();
  b.gpu().upload(g2.gpu, with_inf);
  CHECK(b.gpu().download(b.gpu().unscale_and_check(ranges(true), 1.0, "unscale"))[0] == 1.0);
}

TEST_CASE("a group with absent members is skipped and counted") {
  CudaBackend gpu(0, {0, 1}, {0}, {});
  const Tensor x = gpu.allocate({1, 4, 8}, DType::fp32, MemoryCategory::temporaries, "x");
  gpu.all_reduce(std::vector<Tensor>{x}, CommGroup::tensor, ReduceOp::sum, Stream::tp, "ar");
  const Tensor y = gpu.all_gather(x, CommGroup::tensor, Stream::tp, "ag");
  CHECK(y.shape().rows == 8);
  const std::vector<SkippedCollective> skipped = gpu.skipped();
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].count == 1);
  CHECK(skipped[0].group == "tensor");
}

// One GPT layer (with embedding and loss) forward and backward on one rank: the loss and
// every parameter gradient against the cpu backend, dropout off.
void check_layer(DType dtype) {
  const TransformerShape shape{1, 64, 4, 256, 16, 128, 2, dtype, 0.0, 0.0};
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> id(0, shape.vocab - 1);
  MicroBatchTokens mb;
  for (std::int64_t i = 0; i < shape.seq_len * shape.micro_batch; ++i) {
    mb.tokens.push_back(id(rng));
    mb.labels.push_back(id(rng));
  }
  Bench b({mb});
  TransformerModel gg(b.gpu(), shape, TensorParallelPosition{0, 1}, TransformerOptions{});
  TransformerModel gc(b.cpu(), shape, TensorParallelPosition{0, 1}, TransformerOptions{});
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::size_t i = 0; i < gg.parameters().size(); ++i) {
    const Parameter& p = gg.parameters()[i];
    const bool gain = p.name.ends_with(".gamma");
    std::vector<double> v(static_cast<std::size_t>(p.value.numel()));
    for (double& x : v)
      x = (gain ? 1.0 : 0.0) + (gain ? 0.1 : 0.05) * normal(rng);
    b.gpu().upload(p.value, v);
    const std::vector<double> rounded = b.gpu().download(p.value);
    std::copy(rounded.begin(), rounded.end(), CpuBackend::values(gc.parameters()[i].value).begin());
  }
  IterationConfig config;
  config.global_tokens = shape.seq_len * shape.micro_batch;
  config.optimizer_step = false;
  OptimizerState og = make_optimizer_state(b.gpu(), gg);
  OptimizerState oc = make_optimizer_state(b.cpu(), gc);
  const Tensor lg = run_iteration(b.gpu(), gg, og, config);
  const Tensor lc = run_iteration(b.cpu(), gc, oc, config);
  b.expect_close(lg, lc, dtype, "loss");
  for (std::size_t i = 0; i < gg.parameters().size(); ++i) {
    const Parameter& p = gg.parameters()[i];
    INFO("gradient of " << p.name);
    b.expect_close(p.grad, gc.parameters()[i].grad, dtype, "gradient");
  }
}

TEST_CASE("one GPT layer forward and backward on one rank, fp32") {
  check_layer(DType::fp32);
}

TEST_CASE("one GPT layer forward and backward on one rank, bf16") {
  check_layer(DType::bf16);
}

}  // namespace
}  // namespace trainsim
