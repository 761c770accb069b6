#include "models/meta_backend.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

#include "models/expert_routing.hpp"

namespace trainsim {

using program::Alloc;
using program::Collective;
using program::Free;
using program::Gemm;
using program::Kernel;
using program::MemoryCategory;
using program::NameId;
using program::OpIndex;
using program::Stream;

namespace {
constexpr OpIndex kNone = -1;

// Whether any stream's entry is set. Most ops wait for nothing: one vectorised test instead
// of a loop that pushes dependencies and updates the stream's order entry by entry.
bool any_wait(const std::array<OpIndex, program::kStreamCount>& waits) {
  bool any = false;
  for (const OpIndex w : waits)
    any |= w != kNone;
  return any;
}
constexpr std::size_t stream_index(Stream s) {
  return static_cast<std::size_t>(s);
}
Bytes bytes(const Tensor& t) {
  return t.bytes();
}
double elements(const Tensor& t) {
  return static_cast<double>(t.numel());
}
Bytes fp32_bytes(std::int64_t n) {
  return Bytes::of(4 * n);
}
}  // namespace

/// The device buffer behind a meta tensor and the last ops that used it.
class MetaBackend::Storage final : public TensorStorage {
 public:
  Storage(MetaBackend& owner_in, program::BufferId id_in, NameId name_in, OpIndex alloc_in)
      : owner(owner_in), id(id_in), name(name_in), alloc_op(alloc_in), last_writer(alloc_in) {
    last_reader.fill(kNone);
  }
  ~Storage() override { owner.release(*this); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  /// Adds every use of the buffer so far on a stream other than `stream` to `deps`.
  void uses_outside(Stream stream, std::array<OpIndex, program::kStreamCount>& deps) const {
    const auto consider = [&](OpIndex op, Stream from) {
      if (op != kNone && from != stream) {
        deps[stream_index(from)] = std::max(deps[stream_index(from)], op);
      }
    };
    consider(last_writer, writer_stream);
    for (std::uint32_t m = readers; m != 0; m &= m - 1) {
      const auto s = static_cast<std::size_t>(std::countr_zero(m));
      consider(last_reader[s], static_cast<Stream>(s));
    }
  }
  /// Notes a read on `stream` by op `index`, or (`write`) a write, which ends every read.
  void use(Stream stream, OpIndex index, bool write) {
    if (write) {
      last_writer = index;
      writer_stream = stream;
      last_reader.fill(kNone);
      readers = 0;
    } else {
      last_reader[stream_index(stream)] = index;
      readers |= static_cast<std::uint16_t>(1U << stream_index(stream));
    }
  }

  MetaBackend& owner;
  program::BufferId id;
  NameId name;
  OpIndex alloc_op;
  OpIndex last_writer;
  Stream writer_stream = Stream::compute;
  std::array<OpIndex, program::kStreamCount> last_reader{};
  /// The streams whose last_reader entry is set, one bit each: most buffers are read on one
  /// or two streams, and every op and every free asks about all 13.
  std::uint16_t readers = 0;
  static_assert(program::kStreamCount <= 16);
};

MetaBackend::MetaBackend(program::RankProgram& out, program::NameTable& names,
                         program::GroupId tp_group, program::GroupId dp_group, std::int64_t tp_size,
                         std::int64_t dp_size)
    : out_(out), name_cache_(names) {
  bind(CommGroup::tensor, tp_group, tp_size);
  bind(CommGroup::data, dp_group, dp_size);
  last_on_stream_.fill(kNone);
  for (auto& waits : pending_waits_)
    waits.fill(kNone);
  for (auto& after : ordered_after_)
    after.fill(kNone);
}

MetaBackend::~MetaBackend() = default;

void MetaBackend::stream_wait(Stream waiter, Stream waited) {
  OpIndex& slot = pending_waits_[stream_index(waiter)][stream_index(waited)];
  slot = std::max(slot, last_on_stream_[stream_index(waited)]);
}

void MetaBackend::wait_for(Stream waiter, const Tensor& t) {
  static_cast<const Storage&>(t.storage())
      .uses_outside(waiter, pending_waits_[stream_index(waiter)]);
}

OpIndex MetaBackend::record(program::Payload payload, Stream stream, std::string_view name,
                            std::initializer_list<Access> accesses) {
  return record(std::move(payload), stream, name_cache_.intern(name),
                std::span<const Access>(accesses.begin(), accesses.size()));
}

OpIndex MetaBackend::record(program::Payload payload, Stream stream, NameId name,
                            std::span<const Access> accesses, program::KernelClass kernel_class) {
  const auto index = static_cast<OpIndex>(out_.ops.size());
  auto& need = pending_waits_[stream_index(stream)];
  const auto consider = [&](OpIndex op, Stream from) {
    if (op != kNone && from != stream) {
      OpIndex& slot = need[stream_index(from)];
      slot = std::max(slot, op);
    }
  };
  for (const Access& a : accesses) {
    const Storage& st = static_cast<const Storage&>(a.tensor->storage());
    consider(st.last_writer, st.writer_stream);
    if (a.write) {
      for (std::uint32_t m = st.readers; m != 0; m &= m - 1) {
        const auto s = static_cast<std::size_t>(std::countr_zero(m));
        consider(st.last_reader[s], static_cast<Stream>(s));
      }
    }
  }
  // Written in place: an Op built aside and copied in was read back in 16-byte pieces right
  // after its fields' narrower stores, stalling on every op.
  program::Op& op = out_.ops.emplace_back(std::move(payload));
  op.stream = stream;
  op.kernel_class = kernel_class;
  op.tag = tag_;
  op.name = name;
  op.dep_begin = static_cast<std::int32_t>(out_.dep_pool.size());
  if (any_wait(need)) {
    for (std::size_t s = 0; s < need.size(); ++s) {
      if (need[s] != kNone) out_.dep_pool.push_back(need[s]);
      ordered_after_[stream_index(stream)][s] =
          std::max(ordered_after_[stream_index(stream)][s], need[s]);
      need[s] = kNone;
    }
  }
  op.dep_end = static_cast<std::int32_t>(out_.dep_pool.size());

  for (const Access& a : accesses) {
    static_cast<Storage&>(a.tensor->storage()).use(stream, index, a.write);
  }
  last_on_stream_[stream_index(stream)] = index;
  return index;
}

void MetaBackend::release(Storage& st) {
  if (finished_) return;
  // The Free runs on the stream that used the buffer last, after every use on the other
  // streams: PyTorch's caching allocator (with record_stream) hands the block back once the
  // last stream using it is done, without making the compute stream wait. A buffer whose last
  // reader is a collective (a bucket after its reduce-scatter, a tensor after its TP
  // reduce-scatter) is thus freed when the collective ends while compute runs on. When the
  // compute stream already waits for every use (the executor waited for that collective, to
  // reuse its memory), the Free goes there, so the next allocation follows it.
  std::array<OpIndex, program::kStreamCount> outside;
  outside.fill(kNone);
  st.uses_outside(Stream::compute, outside);
  const auto& compute_waits = pending_waits_[stream_index(Stream::compute)];
  const auto& compute_after = ordered_after_[stream_index(Stream::compute)];
  // Most buffers are used on the compute stream alone: nothing outside, compute covers it.
  bool compute_covers = true;
  if (any_wait(outside)) {
    for (std::size_t s = 0; s < outside.size(); ++s) {
      compute_covers = compute_covers && outside[s] <= std::max(compute_waits[s], compute_after[s]);
    }
  }
  Stream stream = Stream::compute;
  if (!compute_covers) {
    OpIndex last = st.last_writer;
    stream = st.writer_stream;
    for (std::size_t s = 0; s < st.last_reader.size(); ++s) {
      if (st.last_reader[s] > last) {
        last = st.last_reader[s];
        stream = static_cast<Stream>(s);
      }
    }
  }
  const auto index = static_cast<OpIndex>(out_.ops.size());
  auto& need = pending_waits_[stream_index(stream)];
  std::array<OpIndex, program::kStreamCount> deps = need;
  need.fill(kNone);
  st.uses_outside(stream, deps);
  program::Op& op = out_.ops.emplace_back(Free{st.id});  // in place, as in record()
  op.stream = stream;
  op.tag = tag_;
  op.name = st.name;
  op.dep_begin = static_cast<std::int32_t>(out_.dep_pool.size());
  if (any_wait(deps)) {
    for (std::size_t s = 0; s < deps.size(); ++s) {
      if (deps[s] != kNone) out_.dep_pool.push_back(deps[s]);
      ordered_after_[stream_index(stream)][s] =
          std::max(ordered_after_[stream_index(stream)][s], deps[s]);
    }
  }
  op.dep_end = static_cast<std::int32_t>(out_.dep_pool.size());
  last_on_stream_[stream_index(stream)] = index;
}

Tensor MetaBackend::allocate_buffer(Shape shape, DType dtype, bool mask, MemoryCategory category,
                                    std::string_view name) {
  const program::BufferId id = next_buffer_++;
  const NameId name_id = name_cache_.intern(name);
  const std::int64_t element = mask ? 1 : bytes_per_element(dtype);
  const Bytes size = Bytes::of(shape.numel() * element);
  const OpIndex op = record(Alloc{id, size, category}, Stream::compute, name_id, {});
  auto storage = std::make_shared<Storage>(*this, id, name_id, op);
  return mask ? Tensor::byte_mask(std::move(storage), shape)
              : Tensor(std::move(storage), shape, dtype);
}

Tensor MetaBackend::allocate(Shape shape, DType dtype, MemoryCategory category,
                             std::string_view name) {
  return allocate_buffer(shape, dtype, false, category, name);
}

Tensor MetaBackend::make(Shape shape, DType dtype, std::string_view name) {
  return allocate_buffer(shape, dtype, false, MemoryCategory::temporaries, name);
}

Tensor MetaBackend::make_mask(Shape shape, std::string_view name) {
  return allocate_buffer(shape, DType::fp16, true, MemoryCategory::temporaries, name);
}

void MetaBackend::mark_saved(const Tensor& t) {
  const Storage& st = static_cast<const Storage&>(t.storage());
  std::get<Alloc>(out_.ops[static_cast<std::size_t>(st.alloc_op)].payload).category =
      MemoryCategory::activations;
}

TokenBatch MetaBackend::load_micro_batch(std::int64_t, std::int64_t tokens, std::int64_t labels) {
  // int64 token ids and labels, copied to the device by the data loader (a pipeline's first
  // stage loads no labels, its last no tokens).
  TokenBatch batch;
  if (tokens > 0) batch.tokens = make({1, tokens, 1}, DType::fp64, "data.tokens");
  if (labels > 0) batch.labels = make({1, labels, 1}, DType::fp64, "data.labels");
  return batch;
}

OpIndex MetaBackend::kernel(std::string_view name, program::KernelClass kernel_class, Bytes read,
                            Bytes written, double flops, std::initializer_list<Access> accesses) {
  return record(Kernel{read, written, Flops::of(flops)}, Stream::compute, name_cache_.intern(name),
                std::span<const Access>(accesses.begin(), accesses.size()), kernel_class);
}

OpIndex MetaBackend::gemm(std::string_view name, Gemm g, std::initializer_list<Access> accesses) {
  return record(g, Stream::compute, name, accesses);
}

namespace {
// Shape of op(a) · op(b) for 2-D operands.
Gemm gemm_shape(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return Gemm::of(ta ? a.shape().cols : a.shape().rows, tb ? b.shape().rows : b.shape().cols,
                  ta ? a.shape().rows : a.shape().cols, 1, a.dtype(), ta, tb);
}
}  // namespace

Tensor MetaBackend::matmul(const Tensor& a, const Tensor& b, bool ta, bool tb,
                           std::string_view name) {
  Gemm g = gemm_shape(a, b, ta, tb);
  g.c_dtype = gemm_output_dtype(a.dtype());
  Tensor c = make({1, g.m, g.n}, g.c_dtype, name);
  gemm(name, g, {{&a, false}, {&b, false}, {&c, true}});
  return c;
}

void MetaBackend::matmul_accumulate(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& c,
                                    std::string_view name) {
  gemm(name, gemm_shape(a, b, ta, tb).accumulating_into(c.dtype()),
       {{&a, false}, {&b, false}, {&c, true}});
}

void MetaBackend::matmul_rows(const Tensor& a, std::int64_t, std::int64_t a_parts, const Tensor& b,
                              bool tb, Tensor& c, std::int64_t, std::int64_t,
                              std::string_view name) {
  Gemm g = Gemm::of(a.shape().rows / a_parts, tb ? b.shape().rows : b.shape().cols, a.shape().cols,
                    1, a.dtype(), false, tb);
  g.c_dtype = c.dtype();
  gemm(name, g, {{&a, false}, {&b, false}, {&c, true}});
}

namespace {
Gemm attention_gemm(const AttentionShape& s, std::int64_t m, std::int64_t n, std::int64_t k,
                    DType dtype, bool ta, bool tb) {
  return Gemm::of(m, n, k, s.micro_batch * s.heads, dtype, ta, tb);
}
}  // namespace

Tensor MetaBackend::attention_scores(const Tensor& qkv, const AttentionShape& s,
                                     std::string_view name) {
  Tensor scores = make({s.micro_batch * s.heads, s.seq_len, s.seq_len}, qkv.dtype(), name);
  gemm(name, attention_gemm(s, s.seq_len, s.seq_len, s.head_dim, qkv.dtype(), false, true),
       {{&qkv, false}, {&scores, true}});
  return scores;
}

Tensor MetaBackend::attention_context(const Tensor& probs, const Tensor& qkv,
                                      const AttentionShape& s, std::string_view name) {
  Tensor ctx = make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype(), name);
  gemm(name, attention_gemm(s, s.seq_len, s.head_dim, s.seq_len, qkv.dtype(), false, false),
       {{&probs, false}, {&qkv, false}, {&ctx, true}});
  // Megatron's CoreAttention: the bmm writes [b·heads, s, d_h]; permute(2, 0, 1, 3)
  // .contiguous() copies it to the [s, b, heads·d_h] layout the projection reads.
  kernel(std::string(name) + ".permute", program::KernelClass::elementwise, bytes(ctx), bytes(ctx),
         0.0, {{&ctx, true}});
  return ctx;
}

Tensor MetaBackend::attention_context_backward(const Tensor& dctx, const Tensor& probs,
                                               const Tensor& qkv, Tensor& dqkv,
                                               const AttentionShape& s, std::string_view name) {
  Tensor dprobs = make(probs.shape(), probs.dtype(), name);
  // The permute's backward: autograd reshapes the [s, b, heads·d_h] gradient back to
  // [b·heads, s, d_h], a copy, before the bmm's backward.
  kernel(std::string(name) + ".permute", program::KernelClass::elementwise, bytes(dctx),
         bytes(dctx), 0.0, {{&dctx, false}});
  // dP = dO·Vᵀ, then dV = Pᵀ·dO.
  gemm(name, attention_gemm(s, s.seq_len, s.seq_len, s.head_dim, qkv.dtype(), false, true),
       {{&dctx, false}, {&qkv, false}, {&dprobs, true}});
  gemm(name, attention_gemm(s, s.seq_len, s.head_dim, s.seq_len, qkv.dtype(), true, false),
       {{&probs, false}, {&dctx, false}, {&dqkv, true}});
  return dprobs;
}

void MetaBackend::attention_scores_backward(const Tensor& dscores, const Tensor& qkv, Tensor& dqkv,
                                            const AttentionShape& s, std::string_view name) {
  // dQ = dS·K and dK = dSᵀ·Q (scaled by 1/√d in the GEMM's alpha).
  gemm(name, attention_gemm(s, s.seq_len, s.head_dim, s.seq_len, qkv.dtype(), false, false),
       {{&dscores, false}, {&qkv, false}, {&dqkv, true}});
  gemm(name, attention_gemm(s, s.seq_len, s.head_dim, s.seq_len, qkv.dtype(), true, false),
       {{&dscores, false}, {&qkv, false}, {&dqkv, true}});
  // The backward of split_tensor_along_last_dim: autograd concatenates dQ, dK and dV (each
  // [b·heads, s, d_h]) into the [s, b, heads·3·d_h] gradient of the QKV output, a copy.
  kernel(std::string(name) + ".concat", program::KernelClass::elementwise, bytes(dqkv), bytes(dqkv),
         0.0, {{&dqkv, true}});
}

namespace {
// QKᵀ and P·V of a causal fused attention, 2·2·d_h FLOPs per (query, key) pair it sees: the
// s(s + 1)/2 pairs on and below the diagonal (the kernel skips the tiles above it: about half
// the square, modern-models-reference §3.1), or with a sliding window w the
// Σ min(w, i + 1) = w·s − w(w − 1)/2 pairs inside it.
double causal_attention_flops(const AttentionShape& s) {
  const auto b = static_cast<double>(s.micro_batch);
  const auto heads = static_cast<double>(s.heads);
  const auto len = static_cast<double>(s.seq_len);
  const auto d = static_cast<double>(s.head_dim);
  const auto w = static_cast<double>(std::min(s.window.value_or(s.seq_len), s.seq_len));
  return 4.0 * b * heads * d * (w * len - w * (w - 1.0) / 2.0);
}
}  // namespace

FlashAttentionResult MetaBackend::flash_attention(const Tensor& qkv, const AttentionShape& s,
                                                  double, std::string_view name) {
  // Reads Q, K and V once per query tile's pass over the keys that tile sees (K and V stay in
  // shared memory per tile: at the sizes here, about one read), writes O and the row LSE.
  FlashAttentionResult r;
  r.out = make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype(), name);
  r.lse = make({1, s.micro_batch * s.heads, s.seq_len}, DType::fp32, name);
  kernel(name, program::KernelClass::attention, bytes(qkv), bytes(r.out) + bytes(r.lse),
         causal_attention_flops(s), {{&qkv, false}, {&r.out, true}, {&r.lse, true}});
  return r;
}

void MetaBackend::flash_attention_backward(const Tensor& dout, const Tensor& qkv,
                                           const Tensor& out, const Tensor& lse, Tensor& dqkv,
                                           const AttentionShape& s, double,
                                           std::string_view name) {
  // FlashAttention 2's backward: a pre-pass D = rowsum(dO ∘ O), then five GEMM-like products
  // per tile (S again, dV, dP, dQ, dK: 2.5 x the forward's FLOPs), dQ accumulated in an fp32
  // workspace [T, heads·d_h] and converted into dqkv at the end.
  Tensor delta = make(lse.shape(), DType::fp32, std::string(name) + ".delta");
  kernel(std::string(name) + ".delta", program::KernelClass::elementwise,
         bytes(dout) + bytes(out), bytes(delta), 2.0 * elements(out),
         {{&dout, false}, {&out, false}, {&delta, true}});
  Tensor dq = make(out.shape(), DType::fp32, std::string(name) + ".dq_accum");
  kernel(name, program::KernelClass::attention_backward,
         bytes(qkv) + bytes(dout) + bytes(lse) + bytes(delta) + bytes(dq),
         bytes(dqkv) + bytes(dq), 2.5 * causal_attention_flops(s),
         {{&qkv, false},
          {&dout, false},
          {&lse, false},
          {&delta, false},
          {&dq, true},
          {&dqkv, true}});
  kernel(std::string(name) + ".dq_convert", program::KernelClass::elementwise,
         bytes(dq), Bytes::of(dq.numel() * dqkv.element_bytes()), elements(dq),
         {{&dq, false}, {&dqkv, true}});
}

namespace {
// Pairs (q, k) with q in [q0, q0 + n), k in [k0, k0 + n) and k ≤ q: Σ_q of the keys at or
// below q, from the prefix sums of a clamped ramp (q may be negative: a window's shift).
double causal_pairs(std::int64_t q0, std::int64_t k0, std::int64_t n) {
  const auto prefix = [&](std::int64_t end) {  // Σ_{q < end} |{k ∈ [k0, k0 + n) : k ≤ q}|
    const auto m = static_cast<double>(end - k0);
    if (m <= 0.0) return 0.0;
    const auto len = static_cast<double>(n);
    if (m <= len) return m * (m + 1.0) / 2.0;
    return len * (len + 1.0) / 2.0 + (m - len) * len;
  };
  return prefix(q0 + n) - prefix(q0);
}

// Pairs of query chunk [q0, q0 + n) and key chunk [k0, k0 + n) a causal mask (with window w:
// k > q − w) lets through: the causal ones less those at or below q − w.
double visible_pairs(std::int64_t q0, std::int64_t k0, std::int64_t n,
                     std::optional<std::int64_t> window) {
  double pairs = causal_pairs(q0, k0, n);
  if (window) pairs -= causal_pairs(q0 - *window, k0, n);
  return pairs;
}

// QKᵀ and P·V of one context-parallel block, 2·2·d_h FLOPs per visible pair: this rank's two
// chunks of queries against the key rank's two chunks (a diagonal block sees about half of its
// square, as does every other: Megatron's split balances the causal mask).
double block_attention_flops(const AttentionShape& s, ContextBlock block) {
  const std::int64_t chunk = s.seq_len / 2;
  double pairs = 0.0;
  for (const std::int64_t q : {std::int64_t{0}, chunk}) {
    for (const std::int64_t k : {std::int64_t{0}, chunk}) {
      pairs += visible_pairs(s.position(q), s.position(k, block.key_rank), chunk, s.window);
    }
  }
  return 4.0 * static_cast<double>(s.micro_batch * s.heads * s.head_dim) * pairs;
}
}  // namespace

Tensor MetaBackend::context_kv(const Tensor& qkv, const AttentionShape& s, std::string_view name) {
  Tensor kv = make({1, qkv.shape().rows, 2 * s.kv_heads * s.head_dim}, qkv.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(kv), bytes(kv), 0.0,
         {{&qkv, false}, {&kv, true}});
  return kv;
}

FlashAttentionResult MetaBackend::flash_attention_block(const Tensor& qkv, const Tensor& kv,
                                                        const AttentionShape& s, ContextBlock block,
                                                        std::string_view name) {
  // As flash_attention: Q, K and V read about once, O and the LSE written.
  FlashAttentionResult r;
  r.out = make({1, s.seq_len * s.micro_batch, s.heads * s.head_dim}, qkv.dtype(), name);
  r.lse = make({1, s.micro_batch * s.heads, s.seq_len}, DType::fp32, name);
  const Bytes queries = Bytes::of(r.out.numel() * qkv.element_bytes());
  kernel(name, program::KernelClass::attention, queries + bytes(kv), bytes(r.out) + bytes(r.lse),
         block_attention_flops(s, block),
         {{&qkv, false}, {&kv, false}, {&r.out, true}, {&r.lse, true}});
  return r;
}

void MetaBackend::merge_attention(FlashAttentionResult& acc, const FlashAttentionResult& part,
                                  const AttentionShape&, std::string_view name) {
  // Reads both outputs and LSEs, rewrites the accumulated ones: a few FLOPs per element.
  kernel(name, program::KernelClass::elementwise,
         bytes(acc.out) + bytes(acc.lse) + bytes(part.out) + bytes(part.lse),
         bytes(acc.out) + bytes(acc.lse), 4.0 * elements(acc.out),
         {{&part.out, false}, {&part.lse, false}, {&acc.out, true}, {&acc.lse, true}});
}

void MetaBackend::flash_attention_block_backward(const Tensor& dout, const Tensor& qkv,
                                                 const Tensor& kv, const Tensor& out,
                                                 const Tensor& lse, Tensor& dqkv, Tensor& dkv,
                                                 const AttentionShape& s, ContextBlock block,
                                                 std::string_view name) {
  // Per block, as flash_attention_backward: the D = rowsum(dO ∘ O) pre-pass, the fused
  // backward (2.5 x the block's forward FLOPs) into a block dQ, dK, dV, then their addition
  // into the ring's accumulators (TE adds each step's dq and dkv).
  Tensor delta = make(lse.shape(), DType::fp32, std::string(name) + ".delta");
  kernel(std::string(name) + ".delta", program::KernelClass::elementwise, bytes(dout) + bytes(out),
         bytes(delta), 2.0 * elements(out), {{&dout, false}, {&out, false}, {&delta, true}});
  Tensor dq = make(out.shape(), DType::fp32, std::string(name) + ".dq_accum");
  Tensor dkv_block = make(dkv.shape(), dkv.dtype(), std::string(name) + ".dkv");
  const Bytes queries = Bytes::of(out.numel() * qkv.element_bytes());
  kernel(name, program::KernelClass::attention_backward,
         queries + bytes(kv) + bytes(dout) + bytes(lse) + bytes(delta) + bytes(dq),
         bytes(dq) + bytes(dkv_block), 2.5 * block_attention_flops(s, block),
         {{&qkv, false},
          {&kv, false},
          {&dout, false},
          {&lse, false},
          {&delta, false},
          {&dq, true},
          {&dkv_block, true}});
  const Bytes dq_model = Bytes::of(dq.numel() * dqkv.element_bytes());
  kernel(std::string(name) + ".accumulate", program::KernelClass::elementwise,
         bytes(dq) + dq_model + 2 * bytes(dkv_block), dq_model + bytes(dkv_block),
         elements(dq) + elements(dkv_block),
         {{&dq, false}, {&dkv_block, false}, {&dqkv, true}, {&dkv, true}});
}

void MetaBackend::context_kv_backward(const Tensor& dkv, Tensor& dqkv, const AttentionShape&,
                                      std::string_view name) {
  kernel(name, program::KernelClass::elementwise, 2 * bytes(dkv), bytes(dkv), elements(dkv),
         {{&dkv, false}, {&dqkv, true}});
}

LayerNormResult MetaBackend::layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                        std::string_view name) {
  LayerNormResult r;
  r.y = make(x.shape(), x.dtype(), name);
  r.stats = make({1, x.shape().rows, 2}, DType::fp32, name);
  kernel(name, program::KernelClass::layer_norm, bytes(x) + bytes(gamma) + bytes(beta),
         bytes(r.y) + bytes(r.stats), 8.0 * elements(x),
         {{&x, false}, {&gamma, false}, {&beta, false}, {&r.y, true}, {&r.stats, true}});
  return r;
}

Tensor MetaBackend::layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                        const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                        std::string_view name) {
  Tensor dx = make(x.shape(), x.dtype(), name);
  layer_norm_backward_kernel(dy, x, gamma, stats, dgamma, dbeta, dx, 12.0,
                             program::KernelClass::layer_norm_backward, name);
  return dx;
}

void MetaBackend::layer_norm_backward_kernel(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                             const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                             const Tensor& out, double flops_per_element,
                                             program::KernelClass kernel_class,
                                             std::string_view name) {
  // Reads dy, x, gamma and the saved statistics, accumulates into dgamma and dbeta, writes out.
  const Bytes grads = bytes(dgamma) + bytes(dbeta);
  kernel(name, kernel_class, bytes(dy) + bytes(x) + bytes(gamma) + bytes(stats) + grads,
         bytes(out) + grads, flops_per_element * elements(x),
         {{&dy, false},
          {&x, false},
          {&gamma, false},
          {&stats, false},
          {&dgamma, true},
          {&dbeta, true},
          {&out, true}});
}

Tensor MetaBackend::layer_norm_partial_mean(const Tensor& x, std::int64_t, std::string_view name) {
  // The split LayerNorm (2D/2.5D/3D) is ColossalAI's: PyTorch reductions and element-wise
  // passes around its all-reduces, not a fused LayerNorm kernel.
  Tensor mean = make({1, x.shape().rows, 1}, DType::fp32, name);
  kernel(name, program::KernelClass::reduction, bytes(x), bytes(mean), elements(x),
         {{&x, false}, {&mean, true}});
  return mean;
}

Tensor MetaBackend::layer_norm_partial_variance(const Tensor& x, const Tensor& mean, std::int64_t,
                                                std::string_view name) {
  Tensor var = make(mean.shape(), DType::fp32, name);
  kernel(name, program::KernelClass::reduction, bytes(x) + bytes(mean), bytes(var),
         3.0 * elements(x), {{&x, false}, {&mean, false}, {&var, true}});
  return var;
}

LayerNormResult MetaBackend::layer_norm_apply(const Tensor& x, const Tensor& gamma,
                                              const Tensor& beta, const Tensor& mean,
                                              const Tensor& var, std::string_view name) {
  LayerNormResult r;
  r.y = make(x.shape(), x.dtype(), name);
  r.stats = make({1, x.shape().rows, 2}, DType::fp32, name);
  kernel(name, program::KernelClass::elementwise,
         bytes(x) + bytes(gamma) + bytes(beta) + bytes(mean) + bytes(var),
         bytes(r.y) + bytes(r.stats), 4.0 * elements(x),
         {{&x, false},
          {&gamma, false},
          {&beta, false},
          {&mean, false},
          {&var, false},
          {&r.y, true},
          {&r.stats, true}});
  return r;
}

Tensor MetaBackend::layer_norm_backward_partial(const Tensor& dy, const Tensor& x,
                                                const Tensor& gamma, const Tensor& stats,
                                                Tensor& dgamma, Tensor& dbeta, std::int64_t,
                                                std::string_view name) {
  Tensor sums = make({1, x.shape().rows, 2}, DType::fp32, name);
  layer_norm_backward_kernel(dy, x, gamma, stats, dgamma, dbeta, sums, 8.0,
                             program::KernelClass::reduction, name);
  return sums;
}

Tensor MetaBackend::layer_norm_backward_apply(const Tensor& dy, const Tensor& x,
                                              const Tensor& gamma, const Tensor& stats,
                                              const Tensor& sums, std::string_view name) {
  Tensor dx = make(x.shape(), x.dtype(), name);
  kernel(
      name, program::KernelClass::elementwise,
      bytes(dy) + bytes(x) + bytes(gamma) + bytes(stats) + bytes(sums), bytes(dx),
      6.0 * elements(x),
      {{&dy, false}, {&x, false}, {&gamma, false}, {&stats, false}, {&sums, false}, {&dx, true}});
  return dx;
}

void MetaBackend::add_bias(Tensor& x, const Tensor& bias, std::string_view name) {
  kernel(name, program::KernelClass::elementwise, bytes(x) + bytes(bias), bytes(x), elements(x),
         {{&bias, false}, {&x, true}});
}

void MetaBackend::bias_grad(const Tensor& dy, Tensor& dbias, std::string_view name) {
  kernel(name, program::KernelClass::reduction, bytes(dy) + bytes(dbias), bytes(dbias),
         elements(dy), {{&dy, false}, {&dbias, true}});
}

Tensor MetaBackend::bias_gelu(const Tensor& x, const Tensor& bias, std::string_view name) {
  Tensor y = make(x.shape(), x.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(x) + bytes(bias), bytes(y),
         10.0 * elements(x), {{&x, false}, {&bias, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::bias_gelu_backward(const Tensor& dy, const Tensor& x, const Tensor& bias,
                                       Tensor& dbias, std::string_view name) {
  // Megatron's GeLUFunction.backward returns the fused kernel's dx as the bias gradient too,
  // and autograd sums it over the tokens: a second kernel reading dx again.
  Tensor dx = make(x.shape(), x.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(dy) + bytes(x) + bytes(bias), bytes(dx),
         16.0 * elements(x), {{&dy, false}, {&x, false}, {&bias, false}, {&dx, true}});
  kernel(std::string(name) + ".bias", program::KernelClass::reduction, bytes(dx) + bytes(dbias),
         bytes(dbias), elements(x), {{&dx, false}, {&dbias, true}});
  return dx;
}

Tensor MetaBackend::bias_add_residual(const Tensor& x, const Tensor& bias,
                                      const Tensor& residual, std::string_view name) {
  // Megatron-Core's bias-dropout-add with p = 0: dropout returns its input, one fused add.
  Tensor y = make(x.shape(), x.dtype(), name);
  if (bias.defined()) {
    kernel(name, program::KernelClass::elementwise, bytes(x) + bytes(bias) + bytes(residual),
           bytes(y), 2.0 * elements(x),
           {{&x, false}, {&bias, false}, {&residual, false}, {&y, true}});
  } else {
    kernel(name, program::KernelClass::elementwise, bytes(x) + bytes(residual), bytes(y),
           elements(x), {{&x, false}, {&residual, false}, {&y, true}});
  }
  return y;
}

LayerNormResult MetaBackend::rms_norm(const Tensor& x, const Tensor& gamma,
                                      std::string_view name) {
  // Transformer Engine's fused RMSNorm: one pass for the rows' mean square, one to normalise;
  // the reciprocal RMS per row is kept for backward.
  LayerNormResult r;
  r.y = make(x.shape(), x.dtype(), name);
  r.stats = make({1, x.shape().rows, 1}, DType::fp32, name);
  kernel(name, program::KernelClass::layer_norm, bytes(x) + bytes(gamma),
         bytes(r.y) + bytes(r.stats), 4.0 * elements(x),
         {{&x, false}, {&gamma, false}, {&r.y, true}, {&r.stats, true}});
  return r;
}

Tensor MetaBackend::rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                      const Tensor& stats, Tensor& dgamma,
                                      std::string_view name) {
  Tensor dx = make(x.shape(), x.dtype(), name);
  kernel(name, program::KernelClass::layer_norm_backward,
         bytes(dy) + bytes(x) + bytes(gamma) + bytes(stats) + bytes(dgamma),
         bytes(dx) + bytes(dgamma), 8.0 * elements(x),
         {{&dy, false}, {&x, false}, {&gamma, false}, {&stats, false}, {&dgamma, true},
          {&dx, true}});
  return dx;
}

namespace {
// The query and key heads' bytes of a fused QKV tensor (QK-norm and RoPE touch those alone).
Bytes query_and_key_bytes(const Tensor& qkv, const AttentionShape& s) {
  return Bytes::of(qkv.shape().rows * (s.heads + s.kv_heads) * s.head_dim * qkv.element_bytes());
}
}  // namespace

LayerNormResult MetaBackend::qk_rms_norm(const Tensor& qkv, const Tensor& q_gamma,
                                         const Tensor& k_gamma, const AttentionShape& s,
                                         std::string_view name) {
  // Megatron-Core's q_layernorm and k_layernorm (Transformer Engine's RMSNorm over d_h) read
  // and write the query and key heads; the values stay a view of the QKV output there. The
  // executor keeps one QKV tensor, so its copy of the values costs no kernel but is counted in
  // memory twice (with the norm's saved input): an over-count of 2g/(a + 2g) of the QKV's
  // saved bytes.
  LayerNormResult r;
  r.y = make(qkv.shape(), qkv.dtype(), name);
  r.stats = make({1, qkv.shape().rows, s.heads + s.kv_heads}, DType::fp32, name);
  const Bytes heads = query_and_key_bytes(qkv, s);
  kernel(name, program::KernelClass::layer_norm, heads + bytes(q_gamma) + bytes(k_gamma),
         heads + bytes(r.stats), 4.0 * static_cast<double>(heads.count() / qkv.element_bytes()),
         {{&qkv, false}, {&q_gamma, false}, {&k_gamma, false}, {&r.y, true}, {&r.stats, true}});
  return r;
}

Tensor MetaBackend::qk_rms_norm_backward(const Tensor& dy, const Tensor& qkv,
                                         const Tensor& q_gamma, const Tensor& k_gamma,
                                         const Tensor& stats, Tensor& dq_gamma, Tensor& dk_gamma,
                                         const AttentionShape& s, std::string_view name) {
  Tensor dx = make(qkv.shape(), qkv.dtype(), name);
  const Bytes heads = query_and_key_bytes(qkv, s);
  const Bytes gains = bytes(q_gamma) + bytes(k_gamma);
  const Bytes grads = bytes(dq_gamma) + bytes(dk_gamma);
  kernel(name, program::KernelClass::layer_norm_backward,
         2 * heads + bytes(stats) + gains + grads, heads + grads,
         8.0 * static_cast<double>(heads.count() / qkv.element_bytes()),
         {{&dy, false},
          {&qkv, false},
          {&q_gamma, false},
          {&k_gamma, false},
          {&stats, false},
          {&dq_gamma, true},
          {&dk_gamma, true},
          {&dx, true}});
  return dx;
}

Tensor MetaBackend::swiglu(const Tensor& x, std::string_view name) {
  // Megatron's fused (TorchScript) swiglu: reads [gate | up], writes silu(gate)·up.
  Tensor y = make({1, x.shape().rows, x.shape().cols / 2}, x.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(x), bytes(y), 6.0 * elements(y),
         {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::swiglu_backward(const Tensor& dy, const Tensor& x, std::string_view name) {
  Tensor dx = make(x.shape(), x.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(dy) + bytes(x), bytes(dx),
         10.0 * elements(dy), {{&dy, false}, {&x, false}, {&dx, true}});
  return dx;
}

void MetaBackend::rope(Tensor& qkv, const AttentionShape& s, double, bool,
                       std::string_view name) {
  // Megatron-Core's fused RoPE over the queries and keys (the values are untouched): reads and
  // writes them, with the cos/sin table of the positions (fp32 [s, d_h]).
  const Bytes moved = query_and_key_bytes(qkv, s);
  kernel(name, program::KernelClass::elementwise, moved + fp32_bytes(s.seq_len * s.head_dim),
         moved, 3.0 * static_cast<double>(moved.count() / qkv.element_bytes()), {{&qkv, true}});
}

DropoutResult MetaBackend::bias_dropout_add(const Tensor& x, const Tensor& bias,
                                            const Tensor& residual, double, std::string_view name) {
  DropoutResult r;
  r.y = make(x.shape(), x.dtype(), name);
  r.mask = make_mask(x.shape(), name);
  if (!bias.defined()) {  // a model without biases (Llama)
    kernel(name, program::KernelClass::dropout, bytes(x) + bytes(residual),
           bytes(r.y) + bytes(r.mask), 2.0 * elements(x),
           {{&x, false}, {&residual, false}, {&r.y, true}, {&r.mask, true}});
    return r;
  }
  kernel(name, program::KernelClass::dropout, bytes(x) + bytes(bias) + bytes(residual),
         bytes(r.y) + bytes(r.mask), 3.0 * elements(x),
         {{&x, false}, {&bias, false}, {&residual, false}, {&r.y, true}, {&r.mask, true}});
  return r;
}

Tensor MetaBackend::dropout_backward(const Tensor& dy, const Tensor& mask, double, Tensor* dbias,
                                     std::string_view name) {
  Tensor dx = make(dy.shape(), dy.dtype(), name);
  if (dbias != nullptr) {
    // A masked scale (the mask is saved: no random numbers), with the bias gradient's sum
    // over tokens in the same fused (TorchScript) kernel.
    kernel(name, program::KernelClass::elementwise, bytes(dy) + bytes(mask) + bytes(*dbias),
           bytes(dx) + bytes(*dbias), 3.0 * elements(dy),
           {{&dy, false}, {&mask, false}, {dbias, true}, {&dx, true}});
  } else {
    kernel(name, program::KernelClass::elementwise, bytes(dy) + bytes(mask), bytes(dx),
           2.0 * elements(dy), {{&dy, false}, {&mask, false}, {&dx, true}});
  }
  return dx;
}

namespace {
// What Megatron's causal fused softmax (scaled_upper_triang_masked_softmax) reads of an
// [b·heads, s, s] operand: row i loads only its keys 0..i, (s + 1) / 2s of the rows' bytes
// (it writes whole rows: zeros above the diagonal).
Bytes causal_rows(const Tensor& t) {
  const std::int64_t s = t.shape().cols;
  return Bytes::of(t.bytes().count() / (2 * s) * (s + 1));
}
}  // namespace

Tensor MetaBackend::softmax(const Tensor& scores, std::string_view name) {
  Tensor probs = make(scores.shape(), scores.dtype(), name);
  kernel(name, program::KernelClass::softmax, causal_rows(scores), bytes(probs),
         5.0 * elements(scores), {{&scores, false}, {&probs, true}});
  return probs;
}

Tensor MetaBackend::softmax_backward(const Tensor& dprobs, const Tensor& probs,
                                     std::string_view name) {
  // Reads the output and its gradient up to the diagonal, writes whole rows of dx.
  Tensor dscores = make(probs.shape(), probs.dtype(), name);
  kernel(name, program::KernelClass::softmax_backward, causal_rows(dprobs) + causal_rows(probs),
         bytes(dscores), 4.0 * elements(probs),
         {{&dprobs, false}, {&probs, false}, {&dscores, true}});
  return dscores;
}

DropoutResult MetaBackend::dropout(const Tensor& x, double, std::string_view name) {
  DropoutResult r;
  r.y = make(x.shape(), x.dtype(), name);
  r.mask = make_mask(x.shape(), name);
  kernel(name, program::KernelClass::dropout, bytes(x), bytes(r.y) + bytes(r.mask),
         2.0 * elements(x), {{&x, false}, {&r.y, true}, {&r.mask, true}});
  return r;
}

void MetaBackend::accumulate(Tensor& dst, const Tensor& src, std::string_view name) {
  kernel(name, program::KernelClass::elementwise, bytes(dst) + bytes(src), bytes(dst),
         elements(dst), {{&src, false}, {&dst, true}});
}

Tensor MetaBackend::embedding_lookup(const Tensor& tokens, const Tensor& table, std::int64_t,
                                     std::string_view name) {
  Tensor out = make({1, tokens.numel(), table.shape().cols}, table.dtype(), name);
  kernel(name, program::KernelClass::embedding, bytes(tokens) + bytes(out), bytes(out), 0.0,
         {{&tokens, false}, {&table, false}, {&out, true}});
  return out;
}

void MetaBackend::add_position_embedding(Tensor& x, const Tensor& table, std::int64_t, std::int64_t,
                                         std::string_view name) {
  kernel(name, program::KernelClass::embedding, bytes(x) + bytes(table), bytes(x), elements(x),
         {{&table, false}, {&x, true}});
}

void MetaBackend::embedding_backward(const Tensor& dy, const Tensor& tokens, std::int64_t,
                                     Tensor& dtable, std::string_view name) {
  // As Megatron runs it: F.embedding's backward makes a dense gradient of this vocabulary
  // shard in the model dtype (zeroed, then the token rows scatter-added), and the gradient
  // hook adds it into the fp32 main gradient (main_grad.add_(grad)), every micro batch.
  const std::int64_t table = dtable.numel();
  const Bytes dense = Bytes::of(table * dy.element_bytes());
  const Bytes touched = Bytes::of(dy.numel() * dy.element_bytes());
  const std::string n(name);
  kernel(n + ".zero", program::KernelClass::memset, Bytes::zero(), dense, 0.0, {{&dtable, true}});
  kernel(n, program::KernelClass::embedding_backward, bytes(dy) + bytes(tokens) + touched, touched,
         elements(dy), {{&dy, false}, {&tokens, false}, {&dtable, true}});
  kernel(n + ".accumulate", program::KernelClass::elementwise, dense + bytes(dtable), bytes(dtable),
         static_cast<double>(table), {{&dtable, true}});
}

void MetaBackend::position_embedding_backward(const Tensor& dy, std::int64_t, std::int64_t,
                                              Tensor& dtable, std::string_view name) {
  kernel(name, program::KernelClass::embedding_backward, bytes(dy) + bytes(dtable), bytes(dtable),
         elements(dy), {{&dy, false}, {&dtable, true}});
}

Fp8Tensor MetaBackend::quantize_fp8(const Tensor& x, Fp8Recipe recipe, MemoryCategory category,
                                    std::string_view name) {
  // One fused kernel (modern-models-reference §8.3): reads x (tensorwise: twice, its amax
  // pass first) and writes both FP8 layouts.
  Fp8Tensor q{allocate_buffer(x.shape(), DType::fp8, false, category, name),
              allocate_buffer(x.shape(), DType::fp8, false, category, name)};
  const Bytes read = recipe == Fp8Recipe::tensorwise ? 2 * bytes(x) : bytes(x);
  kernel(name, program::KernelClass::elementwise, read, bytes(q.rowwise) + bytes(q.columnwise),
         2.0 * elements(x), {{&x, false}, {&q.rowwise, true}, {&q.columnwise, true}});
  return q;
}

Tensor MetaBackend::cast(const Tensor& x, DType dtype, std::string_view name) {
  Tensor y = make(x.shape(), dtype, name);
  kernel(name, program::KernelClass::elementwise, bytes(x), bytes(y), 0.0,
         {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::row_max(const Tensor& logits, std::string_view name) {
  Tensor max = make({1, logits.shape().rows, 1}, DType::fp32, name);
  kernel(name, program::KernelClass::cross_entropy, bytes(logits), bytes(max), elements(logits),
         {{&logits, false}, {&max, true}});
  return max;
}

CrossEntropyStats MetaBackend::cross_entropy_stats(Tensor& logits, const Tensor& max,
                                                   const Tensor& labels, std::int64_t,
                                                   std::string_view name) {
  CrossEntropyStats r;
  r.target_logit = make(max.shape(), DType::fp32, name);
  r.sum_exp = make(max.shape(), DType::fp32, name);
  // Megatron's vocabulary-parallel cross entropy is unfused PyTorch: logits.sub_(max) (with
  // the target logits gathered), torch.exp(logits, out=logits), exp_logits.sum(-1); each a
  // pass over the fp32 logits.
  const std::string n(name);
  kernel(n + ".subtract_max", program::KernelClass::cross_entropy,
         bytes(logits) + bytes(max) + bytes(labels), bytes(logits) + bytes(r.target_logit),
         elements(logits),
         {{&max, false}, {&labels, false}, {&logits, true}, {&r.target_logit, true}});
  kernel(n + ".exp", program::KernelClass::cross_entropy, bytes(logits), bytes(logits),
         elements(logits), {{&logits, true}});
  kernel(n + ".sum", program::KernelClass::cross_entropy, bytes(logits), bytes(r.sum_exp),
         elements(logits), {{&logits, false}, {&r.sum_exp, true}});
  return r;
}

Tensor MetaBackend::cross_entropy_loss(Tensor& exp_logits, const CrossEntropyStats& stats, double,
                                       std::string_view name) {
  Tensor loss = make({1, 1, 1}, DType::fp32, name);
  kernel(
      name, program::KernelClass::cross_entropy,
      bytes(exp_logits) + bytes(stats.target_logit) + bytes(stats.sum_exp),
      bytes(exp_logits) + bytes(loss), 2.0 * elements(exp_logits),
      {{&stats.target_logit, false}, {&stats.sum_exp, false}, {&exp_logits, true}, {&loss, true}});
  return loss;
}

void MetaBackend::cross_entropy_backward(Tensor& softmax, const Tensor& labels, std::int64_t,
                                         double, std::string_view name) {
  kernel(name, program::KernelClass::cross_entropy, bytes(softmax) + bytes(labels), bytes(softmax),
         2.0 * elements(softmax), {{&labels, false}, {&softmax, true}});
}

void MetaBackend::all_reduce(std::span<const Tensor> tensors, CommGroup group, ReduceOp,
                             Stream stream, std::string_view name) {
  Collective c;
  c.kind = program::CollectiveKind::all_reduce;
  c.group = this->group(group).id;
  c.dtype = tensors.front().dtype();
  scratch_.clear();
  for (const Tensor& t : tensors) {
    c.size += bytes(t);
    scratch_.push_back({&t, true});
  }
  record(c, stream, name_cache_.intern(name), scratch_);
}

Tensor MetaBackend::all_gather(const Tensor& x, CommGroup group, Stream stream,
                               std::string_view name) {
  const std::int64_t n = this->group(group).size;
  Shape shape = x.shape();
  shape.rows *= n;
  Tensor y = make(shape, x.dtype(), name);
  Collective c;
  c.kind = program::CollectiveKind::all_gather;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  c.size = bytes(y);
  record(c, stream, name, {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::ring_shift(const Tensor& x, CommGroup group, Stream stream,
                               std::string_view name) {
  Tensor y = allocate_buffer(x.shape(), x.dtype(), false, MemoryCategory::comm_buffers, name);
  Collective c;
  c.kind = program::CollectiveKind::sendrecv;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  c.size = bytes(x);
  // Transformer Engine's ring exchange copies with the copy engines (its userbuffers default,
  // use_ce, one SM for the ring's flags), not with NCCL's SM kernels.
  c.copy_engine = true;
  record(c, stream, name, {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::reduce_scatter(const Tensor& x, CommGroup group, Stream stream,
                                   std::string_view name) {
  const std::int64_t n = this->group(group).size;
  Shape shape = x.shape();
  shape.rows /= n;
  Tensor y = make(shape, x.dtype(), name);
  Collective c;
  c.kind = program::CollectiveKind::reduce_scatter;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  c.size = bytes(x);
  record(c, stream, name, {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::broadcast(const Tensor& x, CommGroup group, std::int64_t, Stream stream,
                              std::string_view name) {
  // Every member gets its own receive buffer (the root copies into it, as ColossalAI's
  // double buffers do); nccl-tests size: the buffer.
  Tensor y = make(x.shape(), x.dtype(), name);
  Collective c;
  c.kind = program::CollectiveKind::broadcast;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  c.size = bytes(y);
  record(c, stream, name, {{&x, false}, {&y, true}});
  return y;
}

void MetaBackend::reduce(Tensor& x, CommGroup group, std::int64_t, Stream stream,
                         std::string_view name) {
  Collective c;
  c.kind = program::CollectiveKind::reduce;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  c.size = bytes(x);
  record(c, stream, name, {{&x, true}});
}

void MetaBackend::flat_collective(program::CollectiveKind kind, std::span<const Tensor> tensors,
                                  CommGroup group, Bytes size, Stream stream,
                                  std::string_view name) {
  Collective c;
  c.kind = kind;
  c.group = this->group(group).id;
  c.dtype = tensors.front().dtype();
  c.size = size;
  scratch_.clear();
  for (const Tensor& t : tensors)
    scratch_.push_back({&t, true});
  record(c, stream, name_cache_.intern(name), scratch_);
}

namespace {
// n·ceil(numel / n) elements: the padded flat buffer of a bucket.
std::int64_t padded_numel(std::span<const Tensor> tensors, std::int64_t n) {
  std::int64_t numel = 0;
  for (const Tensor& t : tensors)
    numel += t.numel();
  return (numel + n - 1) / n * n;
}
}  // namespace

void MetaBackend::reduce_scatter_flat(std::span<const Tensor> tensors, CommGroup group,
                                      Stream stream, std::string_view name) {
  const std::int64_t n = this->group(group).size;
  const Bytes size = Bytes::of(padded_numel(tensors, n) * tensors.front().element_bytes());
  flat_collective(program::CollectiveKind::reduce_scatter, tensors, group, size, stream, name);
}

void MetaBackend::all_gather_flat(std::span<const Tensor> tensors, CommGroup group, Stream stream,
                                  std::string_view name) {
  const std::int64_t n = this->group(group).size;
  const Bytes size = Bytes::of(padded_numel(tensors, n) * tensors.front().element_bytes());
  flat_collective(program::CollectiveKind::all_gather, tensors, group, size, stream, name);
}

void MetaBackend::record_flat(program::CollectiveKind kind, CommGroup group, DType dtype,
                              Bytes size, Bytes local_read, Bytes local_written, Stream stream,
                              std::string_view name) {
  const std::int64_t n = this->group(group).size;
  if (n == 1) {
    // A group of one exchanges nothing: the op is a local copy (or add) kernel.
    record(Kernel{local_read, local_written, Flops::zero()}, Stream::compute,
           name_cache_.intern(name), scratch_, program::KernelClass::elementwise);
    return;
  }
  Collective c;
  c.kind = kind;
  c.group = this->group(group).id;
  c.dtype = dtype;
  c.size = size;
  record(c, stream, name_cache_.intern(name), scratch_);
}

void MetaBackend::reduce_scatter_accumulate(std::span<const Tensor> tensors, Tensor& shard,
                                            CommGroup group, Stream stream, std::string_view name) {
  const std::int64_t n = this->group(group).size;
  const Bytes size = Bytes::of(n * shard.numel() * tensors.front().element_bytes());
  scratch_.clear();
  for (const Tensor& t : tensors)
    scratch_.push_back({&t, false});
  scratch_.push_back({&shard, true});
  record_flat(program::CollectiveKind::reduce_scatter, group, tensors.front().dtype(), size,
              size + bytes(shard), bytes(shard), stream, name);
}

void MetaBackend::all_gather_shards(const Tensor& shard, std::span<const Tensor> tensors,
                                    CommGroup group, Stream stream, std::string_view name) {
  const std::int64_t n = this->group(group).size;
  const Bytes size = Bytes::of(n * shard.numel() * shard.element_bytes());
  scratch_.clear();
  scratch_.push_back({&shard, false});
  for (const Tensor& t : tensors)
    scratch_.push_back({&t, true});
  record_flat(program::CollectiveKind::all_gather, group, shard.dtype(), size, bytes(shard), size,
              stream, name);
}

void MetaBackend::send(const Tensor& x, std::int64_t, std::int64_t parts, std::int64_t peer,
                       Stream stream, std::string_view name) {
  const program::Send payload{static_cast<program::Rank>(peer),
                              Bytes::of(bytes(x).count() / parts)};
  record(payload, stream, name, {{&x, false}});
}

Tensor MetaBackend::recv(Shape shape, DType dtype, std::int64_t peer, Stream stream,
                         std::string_view name) {
  Tensor y = allocate_buffer(shape, dtype, false, MemoryCategory::comm_buffers, name);
  record(program::Recv{static_cast<program::Rank>(peer), bytes(y)}, stream, name, {{&y, true}});
  return y;
}

void MetaBackend::zero(std::span<const Tensor> tensors, std::string_view name) {
  Bytes total;
  scratch_.clear();
  for (const Tensor& t : tensors) {
    total += bytes(t);
    scratch_.push_back({&t, true});
  }
  record(Kernel{Bytes::zero(), total, Flops::zero()}, Stream::compute, name_cache_.intern(name),
         scratch_, program::KernelClass::memset);
}

void MetaBackend::adam_step(std::span<const AdamTensors> tensors, const AdamHyper&,
                            std::string_view name) {
  // Two kernels, as Megatron's mixed-precision optimizer runs them: apex's multi-tensor
  // Adam on the fp32 master weights, then _copy_main_params_to_model_params, which reads the
  // masters again to write the model-dtype parameters.
  Bytes read;
  Bytes written;
  Bytes copy_read;
  Bytes copy_written;
  double flops = 0.0;
  scratch_.clear();
  for (const AdamTensors& t : tensors) {
    read += bytes(t.grad) + bytes(t.master) + bytes(t.m) + bytes(t.v);
    written += bytes(t.master) + bytes(t.m) + bytes(t.v);
    copy_read += bytes(t.master);
    copy_written += bytes(t.param);
    flops += 12.0 * elements(t.param);
    scratch_.push_back({&t.grad, false});
    scratch_.push_back({&t.master, true});
    scratch_.push_back({&t.m, true});
    scratch_.push_back({&t.v, true});
  }
  record(Kernel{read, written, Flops::of(flops)}, Stream::compute, name_cache_.intern(name),
         scratch_, program::KernelClass::optimizer);
  scratch_.clear();
  for (const AdamTensors& t : tensors) {
    scratch_.push_back({&t.master, false});
    scratch_.push_back({&t.param, true});
  }
  record(Kernel{copy_read, copy_written, Flops::zero()}, Stream::compute,
         name_cache_.intern(std::string(name) + ".copy_to_model"), scratch_,
         program::KernelClass::optimizer);
}

void MetaBackend::adam_step_flat(std::span<const Tensor> params, std::span<const Tensor> grads,
                                 std::int64_t, const Tensor& master, const Tensor& m,
                                 const Tensor& v, std::int64_t, const AdamHyper&,
                                 std::string_view name) {
  // Reads this rank's chunk of the fp32 gradients and the fp32 shards and writes the shards;
  // then, as a second kernel (the distributed optimizer's copy of the main parameters into
  // the parameter buffer), reads the master shard and writes the chunk of the model-dtype
  // parameters.
  const std::int64_t chunk = master.numel();
  const Bytes shards = bytes(master) + bytes(m) + bytes(v);
  const Bytes param_chunk = Bytes::of(chunk * params.front().element_bytes());
  scratch_.clear();
  for (const Tensor& g : grads)
    scratch_.push_back({&g, false});
  scratch_.push_back({&master, true});
  scratch_.push_back({&m, true});
  scratch_.push_back({&v, true});
  record(Kernel{fp32_bytes(chunk) + shards, shards, Flops::of(12.0 * static_cast<double>(chunk))},
         Stream::compute, name_cache_.intern(name), scratch_, program::KernelClass::optimizer);
  scratch_.clear();
  scratch_.push_back({&master, false});
  for (const Tensor& p : params)
    scratch_.push_back({&p, true});
  record(Kernel{bytes(master), param_chunk, Flops::zero()}, Stream::compute,
         name_cache_.intern(std::string(name) + ".copy_to_model"), scratch_,
         program::KernelClass::optimizer);
}

void MetaBackend::multi_tensor_kernel(std::span<const TensorRange> ranges, bool write,
                                      const Tensor* out, double flops_per_element,
                                      std::string_view name) {
  // Apex's multi_tensor_apply reads (and writes) exactly the listed elements, in launches of
  // a few hundred 64 Ki-element chunks: one Kernel of their bytes.
  std::int64_t elements = 0;
  scratch_.clear();
  for (const TensorRange& r : ranges) {
    elements += r.count;
    scratch_.push_back({&r.tensor, write});
  }
  if (out != nullptr) scratch_.push_back({out, true});
  const Bytes moved = fp32_bytes(elements);
  const Bytes result = out != nullptr ? bytes(*out) : Bytes::zero();
  record(Kernel{moved, (write ? moved : Bytes::zero()) + result,
                Flops::of(flops_per_element * static_cast<double>(elements))},
         Stream::compute, name_cache_.intern(name), scratch_, program::KernelClass::optimizer);
}

Tensor MetaBackend::sum_of_squares(std::span<const TensorRange> ranges, std::string_view name) {
  Tensor out = make({1, 1, 1}, DType::fp32, name);
  multi_tensor_kernel(ranges, false, &out, 2.0, name);
  return out;
}

void MetaBackend::scale(std::span<const TensorRange> ranges, double, std::string_view name) {
  multi_tensor_kernel(ranges, true, nullptr, 1.0, name);
}

Tensor MetaBackend::unscale_and_check(std::span<const TensorRange> ranges, double,
                                      std::string_view name) {
  Tensor found_inf = make({1, 1, 1}, DType::fp32, name);
  multi_tensor_kernel(ranges, true, &found_inf, 2.0, name);
  return found_inf;
}

void MetaBackend::record_sync(program::SyncPoint point, bool device, const Tensor* read,
                              std::string_view name) {
  // Not through record(): a GPU stream's pending waits stay for its next GPU op, and no
  // stream's last op becomes the sync, so nothing on the GPU ever waits for the host's wait.
  program::Op op;
  op.payload = program::HostSync{point, device};
  op.stream = Stream::host;
  op.tag = tag_;
  op.name = name_cache_.intern(name);
  op.dep_begin = static_cast<std::int32_t>(out_.dep_pool.size());
  if (read != nullptr) {
    const Storage& st = static_cast<const Storage&>(read->storage());
    if (st.last_writer != kNone && st.writer_stream != Stream::compute) {
      out_.dep_pool.push_back(st.last_writer);
    }
  }
  op.dep_end = static_cast<std::int32_t>(out_.dep_pool.size());
  out_.ops.push_back(std::move(op));
}

std::optional<double> MetaBackend::host_read(const Tensor& t, program::SyncPoint point,
                                             std::string_view name) {
  record_sync(point, false, &t, name);
  return std::nullopt;
}

void MetaBackend::synchronize(program::SyncPoint point, std::string_view name) {
  record_sync(point, true, nullptr, name);
}

}  // namespace trainsim

// --- mixture of experts ---------------------------------------------------------------------
// What Megatron-Core's MoE layer launches (moe_utils.py, token_dispatcher.py, TE's
// GroupedLinear), each at the bytes it moves; the routing itself is the one RouterSpec::shares
// assumes (balanced, uniform or zipf: expert_routing.hpp), as the meta backend has no logits
// to route by.
namespace trainsim {

namespace {
constexpr DType kIndex = DType::fp32;  // int32 indices: 4-byte elements
constexpr DType kCount = DType::fp64;  // int64 counts: 8-byte elements

std::int64_t sum(std::span<const std::int64_t> v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}
// The rows of one group of a grouped GEMM over `rows`: all groups alike under balanced
// routing (the average rounded up, so that the FLOPs are not under-counted otherwise).
std::int64_t group_rows(std::span<const std::int64_t> rows) {
  const auto groups = static_cast<std::int64_t>(rows.size());
  return (sum(rows) + groups - 1) / groups;
}
}  // namespace

MoeRouting MetaBackend::route(const Tensor& logits, const RouterSpec& spec, std::string_view name) {
  const std::int64_t n = logits.shape().rows;
  const std::int64_t experts = logits.shape().cols;
  MoeRouting r;
  r.probs = make({1, n, spec.top_k}, DType::fp32, std::string(name) + ".probs");
  r.experts = make({1, n, spec.top_k}, kIndex, std::string(name) + ".experts");
  r.slots = make({1, n, spec.top_k}, kIndex, std::string(name) + ".slots");
  r.counts = make({1, 1, experts}, kCount, std::string(name) + ".counts");
  // topk_softmax_with_capacity: the logits read once (top-k, softmax in fp32), the
  // probabilities and the routing map written; then the map's column sums and the sorted
  // indices the permutation gathers by.
  kernel(name, program::KernelClass::softmax, bytes(logits),
         bytes(r.probs) + bytes(r.experts) + bytes(r.slots) + bytes(r.counts),
         5.0 * elements(logits),
         {{&logits, false},
          {&r.probs, true},
          {&r.experts, true},
          {&r.slots, true},
          {&r.counts, true}});
  // A token chooses an expert at most once: n rows at most, fewer under a capacity.
  r.tokens_per_expert =
      split_rows(n * spec.top_k, experts, spec.shares, std::min(n, spec.capacity.value_or(n)));
  return r;
}

Tensor MetaBackend::route_backward(const Tensor& dprobs, const MoeRouting& routing,
                                   std::int64_t experts, DType dtype, std::string_view name) {
  Tensor dlogits = make({1, dprobs.shape().rows, experts}, dtype, name);
  kernel(name, program::KernelClass::softmax_backward,
         bytes(dprobs) + bytes(routing.probs) + bytes(routing.experts), bytes(dlogits),
         3.0 * elements(dprobs),
         {{&dprobs, false}, {&routing.probs, false}, {&routing.experts, false}, {&dlogits, true}});
  return dlogits;
}

Tensor MetaBackend::permute_tokens(const Tensor& x, const MoeRouting& routing,
                                   std::string_view name) {
  const std::int64_t rows = sum(routing.tokens_per_expert);
  Tensor y = make({1, rows, x.shape().cols}, x.dtype(), name);
  // A gather: each output row read from its token's row.
  kernel(name, program::KernelClass::embedding, bytes(y) + bytes(routing.slots), bytes(y), 0.0,
         {{&x, false}, {&routing.slots, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::permute_tokens_backward(const Tensor& dpermuted, const MoeRouting& routing,
                                            std::string_view name) {
  const std::int64_t tokens = routing.slots.shape().rows;
  Tensor dx = make({1, tokens, dpermuted.shape().cols}, dpermuted.dtype(), name);
  // Megatron's unpermute without probabilities: a scatter-add of the rows into their tokens.
  kernel(name, program::KernelClass::embedding_backward, bytes(dpermuted) + bytes(routing.slots),
         bytes(dx), elements(dpermuted),
         {{&dpermuted, false}, {&routing.slots, false}, {&dx, true}});
  return dx;
}

Tensor MetaBackend::unpermute_tokens(const Tensor& y, const MoeRouting& routing,
                                     std::string_view name) {
  const std::int64_t tokens = routing.slots.shape().rows;
  Tensor out = make({1, tokens, y.shape().cols}, y.dtype(), name);
  kernel(name, program::KernelClass::embedding_backward,
         bytes(y) + bytes(routing.slots) + bytes(routing.probs), bytes(out), 2.0 * elements(y),
         {{&y, false}, {&routing.slots, false}, {&routing.probs, false}, {&out, true}});
  return out;
}

Tensor MetaBackend::unpermute_tokens_backward(const Tensor& dout, const Tensor& y,
                                              const MoeRouting& routing, Tensor& dprobs,
                                              std::string_view name) {
  Tensor dy = make(y.shape(), y.dtype(), name);
  dprobs = make(routing.probs.shape(), DType::fp32, std::string(name) + ".probs");
  // Each row: its token's gradient (gathered) times the probability, and the dot product of
  // the two for the probability's gradient.
  kernel(name, program::KernelClass::embedding,
         bytes(y) + bytes(dy) + bytes(routing.slots) + bytes(routing.probs),
         bytes(dy) + bytes(dprobs), 3.0 * elements(y),
         {{&dout, false},
          {&y, false},
          {&routing.slots, false},
          {&routing.probs, false},
          {&dy, true},
          {&dprobs, true}});
  return dy;
}

Tensor MetaBackend::sort_chunks(const Tensor& x, std::span<const std::int64_t>,
                                std::span<const std::int64_t>, std::string_view name) {
  Tensor y = make(x.shape(), x.dtype(), name);
  kernel(name, program::KernelClass::elementwise, bytes(x), bytes(y), 0.0,
         {{&x, false}, {&y, true}});
  return y;
}

Tensor MetaBackend::grouped_matmul(const Tensor& a, const Tensor& w,
                                   std::span<const std::int64_t> rows, bool transpose_w,
                                   std::string_view name) {
  const std::int64_t n = transpose_w ? w.shape().rows : w.shape().cols;
  Tensor c = make({1, a.shape().rows, n}, gemm_output_dtype(a.dtype()), name);
  if (sum(rows) == 0) return c;  // no tokens for this rank's experts: nothing launched
  Gemm g = Gemm::of(group_rows(rows), n, a.shape().cols, static_cast<std::int64_t>(rows.size()),
                    a.dtype(), false, transpose_w);
  g.c_dtype = c.dtype();
  gemm(name, g, {{&a, false}, {&w, false}, {&c, true}});
  return c;
}

void MetaBackend::grouped_matmul_weight_grad(const Tensor& a, const Tensor& dy,
                                             std::span<const std::int64_t> rows, Tensor& dw,
                                             std::string_view name) {
  // dw[g] += a_gᵀ·dy_g: [K, N] per group over its rows.
  if (sum(rows) == 0) return;
  const Gemm g = Gemm::of(a.shape().cols, dy.shape().cols, group_rows(rows),
                          static_cast<std::int64_t>(rows.size()), a.dtype(), true, false)
                     .accumulating_into(dw.dtype());
  gemm(name, g, {{&a, false}, {&dy, false}, {&dw, true}});
}

Tensor MetaBackend::all_to_all(const Tensor& x, std::span<const std::int64_t> send,
                               std::span<const std::int64_t> recv, CommGroup group, Stream stream,
                               std::string_view name) {
  Tensor y = allocate_buffer({1, sum(recv), x.shape().cols}, x.dtype(), false,
                             MemoryCategory::comm_buffers, name);
  Collective c;
  c.kind = program::CollectiveKind::all_to_all;
  c.group = this->group(group).id;
  c.dtype = x.dtype();
  // nccl-tests' size: a member's whole buffer (its rows for every member, its own included).
  c.size = Bytes::of(std::max(sum(send), sum(recv)) * x.shape().cols * x.element_bytes());
  record(c, stream, name, {{&x, false}, {&y, true}});
  return y;
}

std::vector<std::int64_t> MetaBackend::gather_counts(const MoeRouting& routing, CommGroup group,
                                                     std::string_view name) {
  const Tensor gathered = all_gather(routing.counts, group, stream_of(group), name);
  record_sync(program::SyncPoint::moe_tokens, false, &gathered, name);
  std::vector<std::int64_t> counts;
  for (std::int64_t m = 0; m < this->group(group).size; ++m)
    counts.insert(counts.end(), routing.tokens_per_expert.begin(), routing.tokens_per_expert.end());
  return counts;
}

}  // namespace trainsim
