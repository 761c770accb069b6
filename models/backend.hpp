#pragma once
// The interface the executor's layers and schedules are written against, once. Each call is
// one GPU kernel, GEMM or collective as Megatron-LM launches it (the meta backend records it,
// the cpu backend computes it in fp64). In-place ops take the tensor they modify as `Tensor&`;
// new outputs are allocated as temporaries until the caller marks them saved for backward.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/parallel_plan.hpp"
#include "models/program.hpp"
#include "models/tensor.hpp"

namespace trainsim {

enum class ReduceOp : std::uint8_t { sum, max };

/// Which communicator of this rank a collective runs on: the 1D tensor-parallel group, the
/// gradient (data-parallel) group, the row and column of a 2D/2.5D SUMMA grid, and the groups
/// of a 3D cube device (i, j, k) under ColossalAI's names (parallelism-reference §5.1):
/// input varies j, weight i, output k, input_weight (i, j), output_weight (i, k); and with
/// pipeline parallelism the embedding group (the first and last stage, which both hold the
/// tied word embedding: Megatron's embedding group); and the model group of the optimizer step's
/// scalar all-reduces (the gradient norm, the fp16 overflow flag): Megatron's model-parallel
/// group, every TP and PP rank of one copy of the model, or every rank when the gradients are
/// sharded over DP (the distributed optimizer, ZeRO 2 and 3; RankLayout::model_group); and a
/// MoE layer's expert-parallel group (the ranks its experts are split over, which exchange
/// tokens by all-to-all) and expert-data-parallel group (the ranks holding the same experts,
/// which sum the experts' gradients: Megatron-Core's EDP).
enum class CommGroup : std::uint8_t {
  tensor,
  data,
  row,
  column,
  input,
  weight,
  output,
  input_weight,
  output_weight,
  embedding,
  model,
  expert,
  expert_data
};
inline constexpr int kCommGroupCount = 13;

/// The stream of a communicator: each process group has its own NCCL stream. 1D tensor
/// parallelism, a grid's row and a cube's input group use `tp`; the grid's column and the
/// cube's other four groups have one each (program.hpp). Pipeline transfers belong to no
/// communicator here: run_pipeline sends on `pp_send` and receives on `pp_recv`. The experts'
/// all-to-all shares `tp`: Megatron-Core runs it on the compute stream, in line with the
/// layer's TP collectives; the experts' gradient sums go with the other gradients on `dp`.
constexpr program::Stream stream_of(CommGroup group) {
  switch (group) {
    case CommGroup::data:
    case CommGroup::expert_data:
    case CommGroup::embedding:  // after the DP reduction, in order on its stream
    case CommGroup::model:      // the optimizer step's scalars, after every gradient reduction
      return program::Stream::dp;
    case CommGroup::column:
      return program::Stream::tp_column;
    case CommGroup::weight:
      return program::Stream::tp_weight;
    case CommGroup::output:
      return program::Stream::tp_output;
    case CommGroup::input_weight:
      return program::Stream::tp_input_weight;
    case CommGroup::output_weight:
      return program::Stream::tp_output_weight;
    case CommGroup::tensor:
    case CommGroup::row:
    case CommGroup::input:
    case CommGroup::expert:
      break;
  }
  return program::Stream::tp;
}

/// Local shape of the attention core on one TP rank. The fused QKV output [T, (a + 2g)·d_h]
/// holds per key/value group (Megatron's layout) its a/g query heads, then its key and its
/// value: [q_0 … q_{a/g−1} | k | v]; with g = a, per head [q | k | v].
struct AttentionShape {
  std::int64_t seq_len = 0;      ///< s
  std::int64_t micro_batch = 0;  ///< b
  std::int64_t heads = 0;        ///< query heads on this rank (a / t)
  std::int64_t head_dim = 0;     ///< d_h
  std::int64_t kv_heads = 0;     ///< key/value heads on this rank (g / t); equal to heads: MHA
  /// Sliding window (flash attention only): query i sees keys i − window < j ≤ i.
  std::optional<std::int64_t> window{};
  /// Context parallelism: CP group size c and this rank's place in it. The s·c tokens of a
  /// sequence are cut into 2c chunks of s/2 and CP rank r holds chunks r and 2c − 1 − r (seq_len
  /// above is its s local rows per sequence): Megatron's split, which gives every rank the same
  /// share of a causal mask.
  std::int64_t context_size = 1;
  std::int64_t context_rank = 0;

  /// Whether query position `query` sees key position `key` (causal, within the window).
  bool sees(std::int64_t query, std::int64_t key) const {
    return key <= query && (!window || key > query - *window);
  }
  /// Position in the whole sequence of local sequence index `local` of CP rank `rank`.
  std::int64_t position(std::int64_t local, std::int64_t rank) const {
    if (context_size == 1) return local;
    const std::int64_t chunk = seq_len / 2;
    return local < chunk ? rank * chunk + local
                         : (2 * context_size - 1 - rank) * chunk + local - chunk;
  }
  /// Position of this rank's local sequence index `local`.
  std::int64_t position(std::int64_t local) const { return position(local, context_rank); }

  /// Query heads per key/value head.
  std::int64_t group_size() const { return heads / kv_heads; }
  /// Columns of one group in the fused QKV output, and of the whole output.
  std::int64_t group_columns() const { return (group_size() + 2) * head_dim; }
  std::int64_t qkv_columns() const { return kv_heads * group_columns(); }
  /// First column of query head j, and of the key (which = 1) or value (2) head j reads.
  std::int64_t query_column(std::int64_t j) const {
    return j / group_size() * group_columns() + j % group_size() * head_dim;
  }
  std::int64_t kv_column(std::int64_t j, int which) const {
    return j / group_size() * group_columns() + (group_size() + which - 1) * head_dim;
  }
};

/// Which rank's keys and values a block of context-parallel attention reads: this rank's
/// queries against the K/V held by CP rank `key_rank` (ring step (context_rank − key_rank) mod c).
struct ContextBlock {
  std::int64_t key_rank = 0;
};

/// An FP8 copy of a tensor in the two layouts Hopper's FP8 tensor cores read (both operands
/// K-major): `rowwise` for the GEMM that contracts over its columns, `columnwise` (its
/// transpose, kept in the same [rows, cols] shape here) for the one that contracts over its rows.
struct Fp8Tensor {
  Tensor rowwise;
  Tensor columnwise;
};

struct LayerNormResult {
  Tensor y;
  Tensor stats;  ///< fp32 [T, 2]: mean and reciprocal standard deviation, kept for backward
};

struct DropoutResult {
  Tensor y;
  Tensor mask;  ///< one byte per element (Megatron keeps a bool mask)
};

struct FlashAttentionResult {
  Tensor out;  ///< [T, heads·d_h]: the layout attention_context gives
  Tensor lse;  ///< fp32 [b·heads, s]: each query row's log-sum-exp of its scaled scores
};

struct CrossEntropyStats {
  Tensor target_logit;  ///< [T, 1] fp32: logit of the label minus the max (0 off this shard)
  Tensor sum_exp;       ///< [T, 1] fp32: sum of exp(logit - max) over this shard
};

/// The tensors one Adam update touches for one parameter.
struct AdamTensors {
  Tensor param;   ///< model dtype copy, rewritten from the master weight
  Tensor grad;    ///< fp32 main gradient
  Tensor master;  ///< fp32 master weight
  Tensor m;       ///< fp32 first moment
  Tensor v;       ///< fp32 second moment
};

struct AdamHyper {
  double lr = 1e-4;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  std::int64_t step = 1;  ///< 1-based, for bias correction
};

/// Elements [offset, offset + count) of a tensor's flat storage: a gradient, or the part of one
/// that lies in this rank's ZeRO shard (the optimizer step's multi-tensor kernels).
struct TensorRange {
  Tensor tensor;
  std::int64_t offset = 0;
  std::int64_t count = 0;

  static TensorRange whole(const Tensor& t) { return {t, 0, t.numel()}; }
};

/// What the router of a MoE layer decides for this rank's N tokens (Megatron-Core's
/// topk_softmax_with_capacity, then the dispatcher's permutation plan).
struct MoeRouting {
  /// fp32 [N, k]: softmax over each token's k largest logits (a dropped choice keeps its
  /// probability, which the softmax's backward needs; the combine skips it).
  Tensor probs;
  /// [N, k] int32 (4-byte elements): the chosen expert of each choice.
  Tensor experts;
  /// [N, k] int32: the choice's row in the permuted tokens, −1 when dropped (Megatron's
  /// sorted indices).
  Tensor slots;
  /// [1, E] int64 (8-byte elements): rows each expert gets from these tokens, on the device.
  Tensor counts;
  /// The same counts as the host knows them once it has read `counts` (Megatron's dropless
  /// dispatcher copies them to size the all-to-all and the grouped GEMM): from the routing
  /// itself (cpu) or from the assumed routing (meta: balanced, every expert N·k/E rows).
  std::vector<std::int64_t> tokens_per_expert;
};

/// How the router picks and caps experts.
struct RouterSpec {
  std::int64_t top_k = 1;
  /// Rows per expert at most (nullopt: dropless); the overflow is dropped by lowest probability.
  std::optional<std::int64_t> capacity{};
  /// Each expert's assumed share of the routed rows where there are no logits to route by
  /// (the meta backend; expert_routing.hpp); empty: balanced. The cpu backend ignores it.
  std::vector<double> shares{};
};

/// Token ids and labels of one micro batch, [T, 1] each (int64 ids held in 8-byte slots).
struct TokenBatch {
  Tensor tokens;
  Tensor labels;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // --- bookkeeping -------------------------------------------------------------------------
  /// Layer, micro batch and phase of the ops issued from now on.
  virtual void set_tag(const program::Tag& tag) = 0;
  /// The next op issued on `waiter` starts only after everything issued so far on `waited`
  /// (cudaStreamWaitEvent).
  virtual void stream_wait(program::Stream waiter, program::Stream waited) = 0;
  /// The next op issued on `waiter` starts only after every op issued so far that used `t`
  /// (cudaStreamWaitEvent on an event recorded after them): a wait for one collective while
  /// later ones on its stream run on.
  virtual void wait_for(program::Stream waiter, const Tensor& t) = 0;
  /// A new buffer (cpu: zero-filled). `category` says what the memory is for.
  virtual Tensor allocate(Shape shape, DType dtype, program::MemoryCategory category,
                          std::string_view name) = 0;
  /// Re-labels a buffer as kept for the backward pass (activations).
  virtual void mark_saved(const Tensor& t) = 0;
  /// Token ids and labels of micro batch `index` of this rank: `tokens` ids and `labels`
  /// labels (fewer with 2D, whose embedding reads the whole micro batch and whose loss
  /// covers this rank's batch block).
  virtual TokenBatch load_micro_batch(std::int64_t index, std::int64_t tokens,
                                      std::int64_t labels) = 0;

  // --- GEMMs ---------------------------------------------------------------------------------
  /// op(a) · op(b) into a new tensor of a's dtype (FP8 operands: bf16, as TE's GEMMs write).
  virtual Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b,
                        std::string_view name) = 0;
  /// c += op(a) · op(b); c keeps its own dtype (fp32 main gradients: Megatron's fused
  /// gradient accumulation).
  virtual void matmul_accumulate(const Tensor& a, const Tensor& b, bool transpose_a,
                                 bool transpose_b, Tensor& c, std::string_view name) = 0;
  /// Row block `c_part` of `c_parts` of c = row block `a_part` of `a_parts` of a, times op(b)
  /// (parts 1: the whole tensor). The GEMMs of a ring exchange (Transformer Engine's TP
  /// communication overlap): one sequence shard at a time, into its rows of the output, or
  /// one destination rank's rows of a partial output.
  virtual void matmul_rows(const Tensor& a, std::int64_t a_part, std::int64_t a_parts,
                           const Tensor& b, bool transpose_b, Tensor& c, std::int64_t c_part,
                           std::int64_t c_parts, std::string_view name) = 0;
  /// Per (sequence, query head): Q·Kᵀ / sqrt(d_h) from the fused QKV output (layout in
  /// AttentionShape; grouped-query heads share their group's key); result [b·heads, s, s].
  virtual Tensor attention_scores(const Tensor& qkv, const AttentionShape& shape,
                                  std::string_view name) = 0;
  /// Per (sequence, head): P·V; result [T, heads·d_h].
  virtual Tensor attention_context(const Tensor& probs, const Tensor& qkv,
                                   const AttentionShape& shape, std::string_view name) = 0;
  /// Backward of attention_context: returns dP = dO·Vᵀ and writes dV = Pᵀ·dO into dqkv
  /// (grouped-query: summed over the group's query heads).
  virtual Tensor attention_context_backward(const Tensor& dctx, const Tensor& probs,
                                            const Tensor& qkv, Tensor& dqkv,
                                            const AttentionShape& shape, std::string_view name) = 0;
  /// Backward of attention_scores: writes dQ = dS·K/√d and dK = dSᵀ·Q/√d into dqkv
  /// (grouped-query: dK summed over the group's query heads).
  virtual void attention_scores_backward(const Tensor& dscores, const Tensor& qkv, Tensor& dqkv,
                                         const AttentionShape& shape, std::string_view name) = 0;

  /// A fused causal attention kernel (FlashAttention 2/3, cuDNN): per query head
  /// softmax(QKᵀ/√d_h, causal)·V with grouped-query heads sharing their group's K and V, the
  /// scores never in memory; `dropout` on the probabilities inside the kernel.
  virtual FlashAttentionResult flash_attention(const Tensor& qkv, const AttentionShape& shape,
                                               double dropout, std::string_view name) = 0;
  /// Its backward from the output's gradient: recomputes the probabilities from Q, K and the
  /// kept log-sum-exp; writes dQ, dK and dV into dqkv (grouped-query: dK and dV summed over
  /// the group's query heads).
  virtual void flash_attention_backward(const Tensor& dout, const Tensor& qkv, const Tensor& out,
                                        const Tensor& lse, Tensor& dqkv,
                                        const AttentionShape& shape, double dropout,
                                        std::string_view name) = 0;

  // Context parallelism's ring attention (Transformer Engine's AttnFuncWithCPAndKVP2P): each CP
  // rank's queries meet every rank's keys and values, one block per ring step, the partial
  // outputs merged by their log-sum-exp.
  /// The keys and values of the fused QKV output, [T, kv_heads·2·d_h], per group [k | v]: what
  /// the ring passes on.
  virtual Tensor context_kv(const Tensor& qkv, const AttentionShape& shape,
                            std::string_view name) = 0;
  /// One block of fused causal attention: this rank's queries (from `qkv`) against `kv`, the
  /// keys and values of CP rank `block.key_rank`, under the causal mask (and window) of their
  /// positions in the whole sequence. Rows that see no key get output 0 and log-sum-exp −inf.
  virtual FlashAttentionResult flash_attention_block(const Tensor& qkv, const Tensor& kv,
                                                     const AttentionShape& shape,
                                                     ContextBlock block, std::string_view name) = 0;
  /// In place: `acc` becomes the attention over the keys of both `acc` and `part` (out weighted
  /// by exp(lse − lse_new), lse_new = log(e^lse_acc + e^lse_part)): TE's output correction.
  virtual void merge_attention(FlashAttentionResult& acc, const FlashAttentionResult& part,
                               const AttentionShape& shape, std::string_view name) = 0;
  /// The backward of one block from the whole attention's output, gradient and log-sum-exp:
  /// accumulates dQ into the query columns of `dqkv` and dK, dV into `dkv` ([T, kv_heads·2·d_h]
  /// like `kv`).
  virtual void flash_attention_block_backward(const Tensor& dout, const Tensor& qkv,
                                              const Tensor& kv, const Tensor& out,
                                              const Tensor& lse, Tensor& dqkv, Tensor& dkv,
                                              const AttentionShape& shape, ContextBlock block,
                                              std::string_view name) = 0;
  /// dqkv's key and value columns += dkv (the gradient of context_kv).
  virtual void context_kv_backward(const Tensor& dkv, Tensor& dqkv, const AttentionShape& shape,
                                   std::string_view name) = 0;

  // --- mixture of experts (Megatron-Core's MoELayer with the alltoall dispatcher) -------------
  /// The router's choice from its logits [N, E] (fp32 scores): the top-k experts of each token,
  /// softmax over their logits, the capacity applied; the counts go to the host.
  virtual MoeRouting route(const Tensor& logits, const RouterSpec& spec, std::string_view name) = 0;
  /// The logits' gradient [N, E] (of `dtype`, the logits') from the gradient of the routing
  /// probabilities [N, k]: the logits themselves are not kept (the softmax's backward needs
  /// only its output).
  virtual Tensor route_backward(const Tensor& dprobs, const MoeRouting& routing,
                                std::int64_t experts, DType dtype, std::string_view name) = 0;
  /// The tokens x [N, h] copied once per kept choice, grouped by expert in expert order (tokens
  /// in their order within an expert): [Σ tokens_per_expert, h].
  virtual Tensor permute_tokens(const Tensor& x, const MoeRouting& routing,
                                std::string_view name) = 0;
  /// Its backward: each token's gradient is the sum over its copies' rows.
  virtual Tensor permute_tokens_backward(const Tensor& dpermuted, const MoeRouting& routing,
                                         std::string_view name) = 0;
  /// The experts' outputs y (permuted rows) combined per token: Σ over its kept choices of the
  /// probability times the choice's row; [N, h].
  virtual Tensor unpermute_tokens(const Tensor& y, const MoeRouting& routing,
                                  std::string_view name) = 0;
  /// Its backward: returns dy (each row the probability times its token's gradient) and writes
  /// the probabilities' gradient (fp32 [N, k], the row's dot product with it) into `dprobs`.
  virtual Tensor unpermute_tokens_backward(const Tensor& dout, const Tensor& y,
                                           const MoeRouting& routing, Tensor& dprobs,
                                           std::string_view name) = 0;
  /// Reorders row chunks: x holds chunks of `rows[i]` rows in order i = 0, 1, …; the result
  /// holds chunk order[0], then order[1], … (Megatron's sort_chunks_by_idxs: the tokens an
  /// expert-parallel rank received, from source-major to local-expert-major and back).
  virtual Tensor sort_chunks(const Tensor& x, std::span<const std::int64_t> rows,
                             std::span<const std::int64_t> order, std::string_view name) = 0;
  /// One grouped GEMM over the local experts: rows [r_g, r_g + rows[g]) of a times op(w[g]),
  /// w [G, K, N] (transposed: [G, N, K] read as its transpose); [Σ rows, N] (Transformer
  /// Engine's GroupedLinear, grouped_gemm's gmm).
  virtual Tensor grouped_matmul(const Tensor& a, const Tensor& w,
                                std::span<const std::int64_t> rows, bool transpose_w,
                                std::string_view name) = 0;
  /// Its weight gradient: dw[g] += a_gᵀ · dy_g for every group (fp32 main gradients).
  virtual void grouped_matmul_weight_grad(const Tensor& a, const Tensor& dy,
                                          std::span<const std::int64_t> rows, Tensor& dw,
                                          std::string_view name) = 0;
  /// Every member's x is split in row chunks, send[j] rows for member j (group order); the
  /// result stacks the chunks the members sent this one, in group order: [Σ recv, cols]
  /// (NCCL all-to-all-v, torch's all_to_all_single with split sizes).
  virtual Tensor all_to_all(const Tensor& x, std::span<const std::int64_t> send,
                            std::span<const std::int64_t> recv, CommGroup group,
                            program::Stream stream, std::string_view name) = 0;
  /// Every member's tokens per expert, concatenated in group order: the dispatcher's all-gather
  /// of `routing.counts`, then the host's read of the result (SyncPoint::moe_tokens). The meta
  /// backend has no values: it takes every member's counts to be this rank's.
  virtual std::vector<std::int64_t> gather_counts(const MoeRouting& routing, CommGroup group,
                                                  std::string_view name) = 0;

  // --- memory-bound kernels ------------------------------------------------------------------
  virtual LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                     std::string_view name) = 0;
  /// Returns dx; accumulates into the fp32 gradients of gamma and beta.
  virtual Tensor layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                     const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                     std::string_view name) = 0;
  // LayerNorm over a hidden dimension split across a group (2D): the partial statistics of
  // the local columns are summed over the group by the caller between these steps.
  /// [T, 1] fp32: Σ x / hidden over this rank's columns (a partial mean).
  virtual Tensor layer_norm_partial_mean(const Tensor& x, std::int64_t hidden,
                                         std::string_view name) = 0;
  /// [T, 1] fp32: Σ (x − mean)² / hidden over this rank's columns (a partial variance; two
  /// passes keep fp64 agreement with the one-device LayerNorm).
  virtual Tensor layer_norm_partial_variance(const Tensor& x, const Tensor& mean,
                                             std::int64_t hidden, std::string_view name) = 0;
  /// y = (x − mean) / sqrt(var + eps) · gamma + beta; stats as layer_norm's.
  virtual LayerNormResult layer_norm_apply(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           const Tensor& mean, const Tensor& var,
                                           std::string_view name) = 0;
  /// [T, 2] fp32 partial (Σ g, Σ g·x̂) / hidden over this rank's columns with g = dy·gamma;
  /// accumulates the local gradients of gamma and beta.
  virtual Tensor layer_norm_backward_partial(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                             const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                             std::int64_t hidden, std::string_view name) = 0;
  /// dx = rstd · (g − Σg/hidden − x̂ · Σg·x̂/hidden) from the group-summed `sums`.
  virtual Tensor layer_norm_backward_apply(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                           const Tensor& stats, const Tensor& sums,
                                           std::string_view name) = 0;
  /// RMSNorm: y = x / sqrt(mean(x²) + eps) · gamma over each row; stats [T, 1] fp32 holds the
  /// reciprocal root mean square, kept for backward (Transformer Engine's RMSNorm).
  virtual LayerNormResult rms_norm(const Tensor& x, const Tensor& gamma,
                                   std::string_view name) = 0;
  /// Returns dx; accumulates into the fp32 gradient of gamma.
  virtual Tensor rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                   const Tensor& stats, Tensor& dgamma,
                                   std::string_view name) = 0;
  /// QK-norm: a new fused-QKV tensor whose query and key heads are each RMS-normalised over d_h
  /// and scaled by their gain ([1, d_h] for queries, one for keys), the values copied; stats
  /// fp32 [T, heads + kv_heads], the heads' reciprocal RMS (queries, then keys).
  virtual LayerNormResult qk_rms_norm(const Tensor& qkv, const Tensor& q_gamma,
                                      const Tensor& k_gamma, const AttentionShape& shape,
                                      std::string_view name) = 0;
  /// Its backward: the gradient of the pre-norm QKV from the normalised one's; accumulates the
  /// gains' fp32 gradients.
  virtual Tensor qk_rms_norm_backward(const Tensor& dy, const Tensor& qkv, const Tensor& q_gamma,
                                      const Tensor& k_gamma, const Tensor& stats,
                                      Tensor& dq_gamma, Tensor& dk_gamma,
                                      const AttentionShape& shape, std::string_view name) = 0;
  /// SwiGLU of [T, 2n] whose columns are [gate | up] (this rank's halves): silu(gate)·up,
  /// [T, n] (Megatron's fused bias_swiglu without bias).
  virtual Tensor swiglu(const Tensor& x, std::string_view name) = 0;
  /// Its backward: the [T, 2n] gradient of [gate | up].
  virtual Tensor swiglu_backward(const Tensor& dy, const Tensor& x, std::string_view name) = 0;
  /// Rotary position embedding in place on the queries and keys of the fused QKV output
  /// (rows in [s, b] order, row r at position shape.position(r / b)): each head's pairs (i, i +
  /// d/2) rotated by position·theta^(−2i/d) (Megatron-Core's non-interleaved RoPE). `backward`: the
  /// inverse rotation, applied to the gradients of the queries and keys.
  virtual void rope(Tensor& qkv, const AttentionShape& shape, double theta, bool backward,
                    std::string_view name) = 0;
  /// x += bias (broadcast over rows).
  virtual void add_bias(Tensor& x, const Tensor& bias, std::string_view name) = 0;
  /// dbias += column sums of dy.
  virtual void bias_grad(const Tensor& dy, Tensor& dbias, std::string_view name) = 0;
  /// GeLU(x + bias), tanh approximation (Megatron's fused bias_gelu).
  virtual Tensor bias_gelu(const Tensor& x, const Tensor& bias, std::string_view name) = 0;
  /// Returns d(x) and accumulates the bias gradient.
  virtual Tensor bias_gelu_backward(const Tensor& dy, const Tensor& x, const Tensor& bias,
                                    Tensor& dbias, std::string_view name) = 0;
  /// residual + dropout(x + bias) with probability p (bias may be undefined).
  virtual DropoutResult bias_dropout_add(const Tensor& x, const Tensor& bias,
                                         const Tensor& residual, double p,
                                         std::string_view name) = 0;
  /// residual + x + bias (bias may be undefined): the fused bias-dropout-add of a model trained
  /// without dropout, where PyTorch's dropout returns its input (no mask, one add).
  virtual Tensor bias_add_residual(const Tensor& x, const Tensor& bias, const Tensor& residual,
                                   std::string_view name) = 0;
  /// Gradient of the dropout branch: mask·dy/(1-p); accumulates the bias gradient when
  /// dbias is given.
  virtual Tensor dropout_backward(const Tensor& dy, const Tensor& mask, double p, Tensor* dbias,
                                  std::string_view name) = 0;
  /// Causal softmax over the last dimension of [b·heads, s, s].
  virtual Tensor softmax(const Tensor& scores, std::string_view name) = 0;
  virtual Tensor softmax_backward(const Tensor& dprobs, const Tensor& probs,
                                  std::string_view name) = 0;
  virtual DropoutResult dropout(const Tensor& x, double p, std::string_view name) = 0;
  /// dst += src.
  virtual void accumulate(Tensor& dst, const Tensor& src, std::string_view name) = 0;
  /// Rows of `table` for the token ids in [vocab_begin, vocab_begin + table rows); zero rows
  /// for ids outside this shard (vocabulary-parallel embedding).
  virtual Tensor embedding_lookup(const Tensor& tokens, const Tensor& table,
                                  std::int64_t vocab_begin, std::string_view name) = 0;
  /// x[row] += table[first_position + row / b] (learned position embedding; rows in [s, b]
  /// order; `first_position` > 0 for a sequence shard).
  virtual void add_position_embedding(Tensor& x, const Tensor& table, std::int64_t micro_batch,
                                      std::int64_t first_position, std::string_view name) = 0;
  virtual void embedding_backward(const Tensor& dy, const Tensor& tokens, std::int64_t vocab_begin,
                                  Tensor& dtable, std::string_view name) = 0;
  virtual void position_embedding_backward(const Tensor& dy, std::int64_t micro_batch,
                                           std::int64_t first_position, Tensor& dtable,
                                           std::string_view name) = 0;
  virtual Tensor cast(const Tensor& x, DType dtype, std::string_view name) = 0;
  /// Transformer Engine's fused cast-transpose: x in FP8, both layouts, its scale from the
  /// amax history (delayed) or from an amax pass over x itself first (tensorwise). The cpu
  /// backend keeps the values (fp64): the executor's proof is of the parallel arithmetic.
  /// `category`: what its buffers are for (an FP8 weight copy kept for the step: parameters).
  virtual Fp8Tensor quantize_fp8(const Tensor& x, Fp8Recipe recipe,
                                 program::MemoryCategory category, std::string_view name) = 0;

  // --- vocabulary-parallel cross entropy (Megatron's _VocabParallelCrossEntropy) -------------
  /// Row maxima [T, 1] of fp32 logits.
  virtual Tensor row_max(const Tensor& logits, std::string_view name) = 0;
  /// In place: logits := exp(logits - max); returns the label's shifted logit and the sums.
  virtual CrossEntropyStats cross_entropy_stats(Tensor& logits, const Tensor& max,
                                                const Tensor& labels, std::int64_t vocab_begin,
                                                std::string_view name) = 0;
  /// In place: exp_logits := softmax; returns [1, 1] fp32 `scale`·Σ (log sum_exp − target).
  virtual Tensor cross_entropy_loss(Tensor& exp_logits, const CrossEntropyStats& stats,
                                    double scale, std::string_view name) = 0;
  /// In place: softmax := scale·(softmax − onehot(label)) (the logits gradient).
  virtual void cross_entropy_backward(Tensor& softmax, const Tensor& labels,
                                      std::int64_t vocab_begin, double scale,
                                      std::string_view name) = 0;

  // --- collectives ---------------------------------------------------------------------------
  /// In-place all-reduce of the tensors (one fused message) over `group` on `stream`.
  virtual void all_reduce(std::span<const Tensor> tensors, CommGroup group, ReduceOp op,
                          program::Stream stream, std::string_view name) = 0;

  /// The previous member's x, in group order and cyclically (every member sends x to the next:
  /// nccl-tests' sendrecv; one step of Transformer Engine's TP ring exchange, which copies with
  /// the GPUs' copy engines rather than SM kernels).
  virtual Tensor ring_shift(const Tensor& x, CommGroup group, program::Stream stream,
                            std::string_view name) = 0;
  /// Concatenates the members' [rows, cols] inputs along the rows in group order:
  /// [n·rows, cols] (sequence parallelism's g; nccl-tests size: the gathered output).
  virtual Tensor all_gather(const Tensor& x, CommGroup group, program::Stream stream,
                            std::string_view name) = 0;
  /// Sums the members' [rows, cols] inputs and returns this member's row chunk
  /// [rows/n, cols] (sequence parallelism's ḡ; nccl-tests size: the unreduced input).
  virtual Tensor reduce_scatter(const Tensor& x, CommGroup group, program::Stream stream,
                                std::string_view name) = 0;
  /// A copy of the `root`-th member's `x` (position in the group's order) on every member
  /// (SUMMA's panel broadcast). Every member passes a tensor of the same shape; only the
  /// root's values are read. The Program does not record the root: a broadcast costs the
  /// same from any member.
  virtual Tensor broadcast(const Tensor& x, CommGroup group, std::int64_t root,
                           program::Stream stream, std::string_view name) = 0;
  /// In place: the `root`-th member's x becomes the sum over the group; the other members'
  /// x are left unspecified (NCCL reduce).
  virtual void reduce(Tensor& x, CommGroup group, std::int64_t root, program::Stream stream,
                      std::string_view name) = 0;
  /// In place over the concatenation of `tensors`, zero-padded to n·c elements
  /// (c = ceil(numel / n)): this member's chunk [p·c, (p+1)·c) becomes the sum over the
  /// group, the rest keeps its local values (the distributed optimizer's reduce-scatter
  /// inside the gradient buffer).
  virtual void reduce_scatter_flat(std::span<const Tensor> tensors, CommGroup group,
                                   program::Stream stream, std::string_view name) = 0;
  /// In place over the concatenation of `tensors` (chunks as in reduce_scatter_flat): every
  /// member's chunk is copied to all members (the parameter all-gather after the step).
  virtual void all_gather_flat(std::span<const Tensor> tensors, CommGroup group,
                               program::Stream stream, std::string_view name) = 0;
  /// Over the concatenation of `tensors` zero-padded to n·c elements (c = shard.numel()):
  /// `shard` += this member's chunk [p·c, (p+1)·c) of the sum over the group (ZeRO-2/3: a
  /// bucket's gradients reduced into this rank's persistent gradient shard; DeepSpeed adds the
  /// reduced partition into its fp32 partition gradient, an add folded into the collective
  /// here). A group of one adds its own chunk. nccl-tests size: the padded input.
  virtual void reduce_scatter_accumulate(std::span<const Tensor> tensors, Tensor& shard,
                                         CommGroup group, program::Stream stream,
                                         std::string_view name) = 0;
  /// The concatenation of `tensors` (padded to n·c, c = shard.numel()) becomes the members'
  /// shards in group order (ZeRO-3: a layer's parameters gathered from their 1/n shards).
  /// nccl-tests size: the padded output.
  virtual void all_gather_shards(const Tensor& shard, std::span<const Tensor> tensors,
                                 CommGroup group, program::Stream stream,
                                 std::string_view name) = 0;

  // --- point to point (pipeline stages) ---------------------------------------------------
  /// Sends row chunk `part` of `parts` of `x` ([rows/parts, cols]; the whole tensor with
  /// parts 1) to world rank `peer` (NCCL send; Megatron's scatter of a TP-replicated stage
  /// output sends chunk tp_rank of t). The peer's recv calls from this rank match the sends in
  /// issue order.
  virtual void send(const Tensor& x, std::int64_t part, std::int64_t parts, std::int64_t peer,
                    program::Stream stream, std::string_view name) = 0;
  /// A new tensor of `shape` (a communication buffer) filled by the next send of world rank
  /// `peer` to this rank.
  virtual Tensor recv(Shape shape, DType dtype, std::int64_t peer, program::Stream stream,
                      std::string_view name) = 0;

  // --- optimizer -----------------------------------------------------------------------------
  /// Sets the tensors to zero (one multi-tensor memset).
  virtual void zero(std::span<const Tensor> tensors, std::string_view name) = 0;
  /// One multi-tensor Adam update of master, m and v, then the copy of the masters into the
  /// model-dtype parameters (two kernels on a GPU, as Megatron's optimizer runs them).
  virtual void adam_step(std::span<const AdamTensors> tensors, const AdamHyper& hyper,
                         std::string_view name) = 0;
  /// Adam on this rank's chunk of a bucket: the gradients are elements [grad_offset,
  /// grad_offset + master.numel()) of the concatenation of `grads` (ZeRO-1: the full bucket
  /// and the chunk's offset; ZeRO-2: the gradient shard itself and 0); the result goes to
  /// elements [offset, offset + master.numel()) of the concatenated `params` (padding beyond
  /// their end is skipped). `master`, `m`, `v` are this rank's fp32 shards.
  virtual void adam_step_flat(std::span<const Tensor> params, std::span<const Tensor> grads,
                              std::int64_t grad_offset, const Tensor& master, const Tensor& m,
                              const Tensor& v, std::int64_t offset, const AdamHyper& hyper,
                              std::string_view name) = 0;
  /// A new [1, 1] fp32 tensor: Σ x² over the fp32 `ranges` (apex's multi_tensor_l2norm, which
  /// clip_grad_norm_fp32 squares again: one kernel reading 4 B per element).
  virtual Tensor sum_of_squares(std::span<const TensorRange> ranges, std::string_view name) = 0;
  /// In place: x *= factor over the fp32 `ranges` (apex's multi_tensor_scale, the clipping of
  /// the gradients: reads and writes 4 B per element).
  virtual void scale(std::span<const TensorRange> ranges, double factor, std::string_view name) = 0;
  /// In place over the fp32 `ranges`: x *= inv_scale; returns a new [1, 1] fp32 tensor, 1 if
  /// some x was not finite (inf or NaN) and 0 otherwise (the fp16 grad scaler's
  /// torch._amp_foreach_non_finite_check_and_unscale_: reads and writes 4 B per element).
  virtual Tensor unscale_and_check(std::span<const TensorRange> ranges, double inv_scale,
                                   std::string_view name) = 0;

  // --- the host waiting for the GPU ------------------------------------------------------------
  /// The host reads `t` (tensor.item()): it waits for the compute stream's work issued so far
  /// and for what wrote `t` (a collective on its own stream). Returns the value of t's first
  /// element where the backend has one to give (cpu, cuda), nullopt where it has none (meta;
  /// cuda while timing, whose device is held until the host has issued the iteration): the
  /// executor then takes Megatron's usual path (no overflow; the norm above the clip). The
  /// meta backend records a HostSync at `point`.
  virtual std::optional<double> host_read(const Tensor& t, program::SyncPoint point,
                                          std::string_view name) = 0;
  /// torch.cuda.synchronize(): the host waits for the work issued so far on every stream.
  virtual void synchronize(program::SyncPoint point, std::string_view name) = 0;
};

}  // namespace trainsim
