#include "models/layers/attention.hpp"

#include <array>
#include <string>

namespace trainsim {

using program::MemoryCategory;
using program::Phase;

AttentionBlock AttentionBlock::add(LayerContext& c, const std::string& prefix,
                                   std::int32_t layer, bool sequence_parallel) {
  const TransformerShape& s = c.shape();
  const TensorParallelPosition& tp = c.tp();
  const std::int64_t h = s.hidden;
  const std::int64_t d = s.head_dim();
  // 1D splits the heads t ways, 2D and 3D q ways (heads block j).
  const bool square = tp.cell || tp.cube;
  const std::int64_t head_split = square ? tp.side() : tp.size;
  AttentionBlock block;
  block.shape_ = {c.local_seq_len(), c.local_micro_batch(), s.heads / head_split, d,
                  s.key_value_heads() / head_split};
  block.shape_.context_size = c.options().context.size;
  block.shape_.context_rank = c.options().context.rank;
  if (s.layer.position == PositionKind::rope) block.rope_theta_ = s.layer.rope_theta;
  if (s.layer.attention_window && s.layer.attention_window->covers(layer)) {
    block.shape_.window = s.layer.attention_window->size;
  }
  block.flash_ = s.layer.attention == AttentionKind::flash;
  // Group-major QKV columns (AttentionShape): a 1D column block is kv_heads / t whole groups.
  const std::int64_t qkv = (s.heads + 2 * s.key_value_heads()) * d;
  const std::int64_t inner = s.heads * d;
  // 3D: QKV reads layer-oriented activations, the projection QKV's swapped output
  // (cube_ops.hpp); the QKV bias applies to swapped activations, the projection's to
  // layer-oriented ones.
  block.qkv_weight_ = c.add_parameter(prefix + ".qkv.weight", {1, h, qkv}, Split::columns,
                                      Split::cube_blocks, layer);
  if (s.layer.bias) {
    block.qkv_bias_ = c.add_parameter(prefix + ".qkv.bias", {1, 1, qkv}, Split::columns,
                                      Split::cube_columns_swapped, layer);
  }
  if (s.layer.qk_norm) {
    // One gain of d_h for every query head and one for every key head; each TP rank uses it on
    // its own heads, so its gradient is partial per rank (all-reduced over TP with the SP ones).
    const bool partial = tp.size > 1;
    block.q_norm_ = c.add_parameter(prefix + ".q_norm.gamma", {1, 1, d}, Split::replicated,
                                    Split::replicated, layer, partial);
    block.k_norm_ = c.add_parameter(prefix + ".k_norm.gamma", {1, 1, d}, Split::replicated,
                                    Split::replicated, layer, partial);
  }
  block.proj_weight_ = c.add_parameter(prefix + ".proj.weight", {1, inner, h}, Split::rows,
                                       Split::cube_blocks_swapped, layer);
  if (s.layer.bias) {
    block.proj_bias_ = c.add_parameter(prefix + ".proj.bias", {1, 1, h}, Split::replicated,
                                       Split::cube_columns, layer, sequence_parallel);
  }
  return block;
}

Tensor AttentionBlock::core(LayerContext& c, AttentionSaved& s, bool keep) {
  Backend& b = c.backend();
  if (flash_) {
    // Eval mode: no dropout inside the kernel either.
    const double p = c.options().forward_only ? 0.0 : c.shape().attention_dropout;
    FlashAttentionResult r = shape_.context_size > 1
                                 ? ring_attention(c, s.qkv)
                                 : b.flash_attention(s.qkv, shape_, p, "attn.flash");
    s.lse = std::move(r.lse);
    c.mark(s.lse, keep);
    if (!keep) s.lse.reset();
    return std::move(r.out);
  }
  Tensor scores = b.attention_scores(s.qkv, shape_, "attn.scores");
  s.probs = b.softmax(scores, "attn.softmax");
  scores.reset();
  c.mark(s.probs, keep);
  if (c.options().forward_only || c.shape().attention_dropout == 0.0) {
    s.probs_dropped = s.probs;  // eval mode, or trained without attention dropout
  } else {
    DropoutResult dropped = b.dropout(s.probs, c.shape().attention_dropout, "attn.dropout");
    s.probs_dropped = std::move(dropped.y);
    s.dropout_mask = std::move(dropped.mask);
  }
  c.mark(s.probs_dropped, keep);
  c.mark(s.dropout_mask, keep);
  Tensor context = b.attention_context(s.probs_dropped, s.qkv, shape_, "attn.context");
  if (!keep) {
    s.probs.reset();
    s.probs_dropped.reset();
    s.dropout_mask.reset();
  }
  return context;
}

FlashAttentionResult AttentionBlock::ring_attention(LayerContext& c, const Tensor& qkv) {
  Backend& b = c.backend();
  const ContextParallelPosition& cp = c.options().context;
  Tensor kv = b.context_kv(qkv, shape_, "attn.cp.kv");
  FlashAttentionResult out;
  for (std::int64_t step = 0; step < cp.size; ++step) {
    // The next block's keys and values travel while this one computes.
    Tensor incoming;
    if (step + 1 < cp.size) {
      b.send(kv, 0, 1, cp.next, program::Stream::cp_send, "attn.cp.send_kv");
      incoming =
          b.recv(kv.shape(), kv.dtype(), cp.previous, program::Stream::cp_recv, "attn.cp.recv_kv");
    }
    const ContextBlock block{(cp.rank - step + cp.size) % cp.size};
    FlashAttentionResult part = b.flash_attention_block(qkv, kv, shape_, block, "attn.flash");
    if (step == 0) {
      out = std::move(part);
    } else {
      b.merge_attention(out, part, shape_, "attn.cp.merge");
    }
    kv = std::move(incoming);
  }
  return out;
}

Tensor AttentionBlock::ring_attention_backward(LayerContext& c, const Tensor& dout,
                                               const Tensor& qkv, const Tensor& out,
                                               const Tensor& lse) {
  Backend& b = c.backend();
  const ContextParallelPosition& cp = c.options().context;
  Tensor dqkv = b.allocate(qkv.shape(), qkv.dtype(), MemoryCategory::temporaries, "attn.dqkv");
  Tensor kv = b.context_kv(qkv, shape_, "attn.cp.kv");
  const Shape kv_shape = kv.shape();
  const DType kv_dtype = kv.dtype();
  const auto zeroed = [&](const std::string& name) {
    Tensor t = b.allocate(kv_shape, kv_dtype, MemoryCategory::temporaries, name);
    const std::array list{t};
    b.zero(list, name + ".zero");
    return t;
  };
  const auto receive = [&](const char* name) {
    return b.recv(kv_shape, kv_dtype, cp.previous, program::Stream::cp_recv, name);
  };
  // Each block's dK/dV accumulator travels with it as TE's ring passes it: it starts at the
  // rank after the owner (step 1), each rank adds its share of block r − step and passes it
  // on, and after the last step it is back with the owner, who adds the step-0 share it kept:
  // c − 1 messages of K/V and c − 1 of dK/dV per layer.
  Tensor own = zeroed("attn.cp.dkv");
  for (std::int64_t step = 0; step < cp.size; ++step) {
    // Receives match the previous rank's sends in order: its dK/dV of step − 1 went after the
    // K/V of step − 1 and before that of this step.
    Tensor travelling;
    if (step == 1) travelling = zeroed("attn.cp.dkv_block");
    if (step >= 2) travelling = receive("attn.cp.recv_dkv");
    Tensor incoming;
    if (step + 1 < cp.size) {
      b.send(kv, 0, 1, cp.next, program::Stream::cp_send, "attn.cp.send_kv");
      incoming = receive("attn.cp.recv_kv");
    }
    const ContextBlock block{(cp.rank - step + cp.size) % cp.size};
    b.flash_attention_block_backward(dout, qkv, kv, out, lse, dqkv, step == 0 ? own : travelling,
                                     shape_, block, "attn.flash.backward");
    if (step >= 1) b.send(travelling, 0, 1, cp.next, program::Stream::cp_send, "attn.cp.send_dkv");
    kv = std::move(incoming);
  }
  const Tensor returned = receive("attn.cp.recv_dkv");
  b.accumulate(own, returned, "attn.cp.dkv.accumulate");
  b.context_kv_backward(own, dqkv, shape_, "attn.cp.kv.backward");
  return dqkv;
}

Tensor AttentionBlock::forward(LayerContext& c, NormSaved& in, AttentionSaved& s, bool keep) {
  s.qkv = c.linear(in.y, qkv_weight_, LinearKind::column, "attn.qkv", &s.qkv_input);
  c.mark(s.qkv_input, keep);
  c.consumed({&s.qkv_input, &in.y, &in.stats, &in.gamma});
  if (c.fp8(LinearKind::column)) in.y.reset();  // QKV's backward reads its FP8 copy
  if (qkv_bias_) {
    const Tensor bias = c.vector_value(*qkv_bias_, "attn.qkv.bias.all_gather");
    c.backend().add_bias(s.qkv, bias, "attn.qkv.bias");
  }
  if (q_norm_) {
    // Qwen3's QK-norm on each query and key head, before RoPE; its input is kept for its
    // backward.
    LayerNormResult normed =
        c.backend().qk_rms_norm(s.qkv, c.value(*q_norm_), c.value(*k_norm_), shape_, "attn.qk_norm");
    s.qkv_before_norm = std::move(s.qkv);
    s.qkv = std::move(normed.y);
    s.qk_stats = std::move(normed.stats);
    c.mark(s.qkv_before_norm, keep);
    c.mark(s.qk_stats, keep);
    c.consumed({&s.qkv_before_norm, &s.qk_stats});
  }
  if (rope_theta_) c.backend().rope(s.qkv, shape_, *rope_theta_, false, "attn.rope");
  c.mark(s.qkv, keep);
  // Selective recomputation drops the attention core's tensors (§2.6).
  s.context = core(c, s, keep && c.options().recompute != Recompute::selective);
  c.mark(s.context, keep);
  c.consumed({&s.qkv});
  Tensor proj = c.linear(s.context, proj_weight_, LinearKind::row, "attn.proj", &s.proj_input);
  c.mark(s.proj_input, keep);
  c.consumed({&s.proj_input, &s.context});
  // The projection's backward reads its FP8 copy; flash's backward still reads the output.
  if (c.fp8(LinearKind::row) && !flash_) s.context.reset();
  return proj;
}

Tensor AttentionBlock::backward(LayerContext& c, Tensor dproj, NormSaved& in, AttentionSaved& s,
                                std::int32_t layer) {
  Backend& b = c.backend();
  Tensor dcontext =
      c.linear_backward(dproj, s.proj_input, proj_weight_, LinearKind::row, "attn.proj");
  c.ready(proj_weight_);
  dproj.reset();
  s.proj_input.reset();
  if (!flash_) s.context.reset();  // flash's backward reads the output too
  if (c.options().recompute == Recompute::selective) {
    // Re-run the attention core from the kept QKV (no communication, §2.6).
    c.set_tag(layer, Phase::recompute);
    Tensor context = core(c, s, true);
    context.reset();
    c.set_tag(layer, Phase::backward);
  }
  Tensor dqkv = core_backward(c, std::move(dcontext), s);
  if (rope_theta_) b.rope(dqkv, shape_, *rope_theta_, true, "attn.rope.backward");
  if (q_norm_) {
    Tensor dq_gamma = c.vector_grad(*q_norm_, "attn.q_norm.gamma.grad");
    Tensor dk_gamma = c.vector_grad(*k_norm_, "attn.k_norm.gamma.grad");
    dqkv = b.qk_rms_norm_backward(dqkv, s.qkv_before_norm, c.value(*q_norm_), c.value(*k_norm_),
                                  s.qk_stats, dq_gamma, dk_gamma, shape_,
                                  "attn.qk_norm.backward");
    c.vector_grad_done(*q_norm_, dq_gamma, "attn.q_norm.gamma");
    c.vector_grad_done(*k_norm_, dk_gamma, "attn.k_norm.gamma");
    s.qkv_before_norm.reset();
    s.qk_stats.reset();
  }
  Tensor din = c.linear_backward(dqkv, s.qkv_input, qkv_weight_, LinearKind::column, "attn.qkv");
  c.ready(qkv_weight_);
  if (qkv_bias_) {
    Tensor dbias = c.vector_grad(*qkv_bias_, "attn.qkv.bias.grad");
    b.bias_grad(dqkv, dbias, "attn.qkv.bias.backward");
    c.vector_grad_done(*qkv_bias_, dbias, "attn.qkv.bias");
  }
  dqkv.reset();
  in.y.reset();
  s.qkv_input.reset();
  return din;
}

Tensor AttentionBlock::core_backward(LayerContext& c, Tensor dcontext, AttentionSaved& s) {
  Backend& b = c.backend();
  if (flash_ && shape_.context_size > 1) {
    Tensor dqkv = ring_attention_backward(c, dcontext, s.qkv, s.context, s.lse);
    dcontext.reset();
    s.context.reset();
    s.lse.reset();
    s.qkv.reset();
    return dqkv;
  }
  Tensor dqkv = b.allocate(s.qkv.shape(), s.qkv.dtype(), MemoryCategory::temporaries, "attn.dqkv");
  if (flash_) {
    b.flash_attention_backward(dcontext, s.qkv, s.context, s.lse, dqkv, shape_,
                               c.shape().attention_dropout, "attn.flash.backward");
    dcontext.reset();
    s.context.reset();
    s.lse.reset();
    s.qkv.reset();
    return dqkv;
  }
  Tensor dprobs = b.attention_context_backward(dcontext, s.probs_dropped, s.qkv, dqkv, shape_,
                                               "attn.context.backward");
  dcontext.reset();
  s.probs_dropped.reset();
  Tensor dprobs_pre = s.dropout_mask.defined()
                          ? b.dropout_backward(dprobs, s.dropout_mask,
                                               c.shape().attention_dropout, nullptr,
                                               "attn.softmax_dropout.backward")
                          : dprobs;
  dprobs.reset();
  s.dropout_mask.reset();
  Tensor dscores = b.softmax_backward(dprobs_pre, s.probs, "attn.softmax.backward");
  dprobs_pre.reset();
  s.probs.reset();
  b.attention_scores_backward(dscores, s.qkv, dqkv, shape_, "attn.scores.backward");
  dscores.reset();
  s.qkv.reset();
  return dqkv;
}

}  // namespace trainsim
