#include "models/layers/output_head.hpp"

namespace trainsim {

OutputHead OutputHead::add(LayerContext& c, std::optional<std::size_t> word_embedding,
                           std::int32_t chunk) {
  OutputHead head;
  const std::size_t first = c.parameters().size();
  head.norm_ = NormBlock::add(c, "final.ln", program::Tag::kNoLayer, c.sequence_parallel());
  head.owns_weight_ = !word_embedding;
  head.weight_ = word_embedding ? *word_embedding
                                : c.add_parameter("output.weight",
                                                  {1, c.shape().vocab, c.shape().hidden},
                                                  Split::rows, Split::cube_blocks_swapped,
                                                  program::Tag::kNoLayer);
  for (std::size_t i = first; i < c.parameters().size(); ++i)
    c.parameters()[i].chunk = chunk;
  return head;
}

Tensor OutputHead::forward(LayerContext& c, Tensor x, const Tensor& labels, double loss_scale,
                           bool keep, HeadSaved& saved) {
  Backend& b = c.backend();
  const bool tp = c.vocab_split();
  const CommGroup group = c.vocab_group();
  const std::int32_t none = program::Tag::kNoLayer;
  c.set_tag(none, program::Phase::forward);
  NormSaved final_norm = norm_.forward(c, x, keep, "final.ln");
  // Output layer: f (identity forward; with SP an all-gather), column-parallel over the
  // vocabulary, tied weight.
  Tensor logits = c.linear(final_norm.y, weight_, LinearKind::output, "output.logits");
  if (!keep) {
    // Inference: the final norm's input and output are consumed.
    x.reset();
    final_norm = {};
  }
  // Megatron computes the cross entropy in fp32 (fp16_lm_cross_entropy off).
  Tensor logits32 = b.cast(logits, DType::fp32, "loss.cast");
  logits.reset();
  Tensor max = b.row_max(logits32, "loss.max");
  if (tp) b.all_reduce({&max, 1}, group, ReduceOp::max, stream_of(group), "loss.max.all_reduce");
  CrossEntropyStats stats =
      b.cross_entropy_stats(logits32, max, labels, c.vocab_begin(), "loss.exp_sum");
  max.reset();
  if (tp) {
    b.all_reduce({&stats.target_logit, 1}, group, ReduceOp::sum, stream_of(group),
                 "loss.target.all_reduce");
    b.all_reduce({&stats.sum_exp, 1}, group, ReduceOp::sum, stream_of(group),
                 "loss.sum_exp.all_reduce");
  }
  Tensor loss = b.cross_entropy_loss(logits32, stats, loss_scale, "loss.softmax");
  c.hooks().after_forward(none);
  c.end_pass();
  if (!keep) return loss;
  b.mark_saved(logits32);
  saved.softmax = std::move(logits32);
  saved.x = std::move(x);
  saved.norm = std::move(final_norm);
  return loss;
}

Tensor OutputHead::backward(LayerContext& c, HeadSaved& s, const Tensor& labels, double loss_scale,
                            bool final_here) {
  Backend& b = c.backend();
  b.cross_entropy_backward(s.softmax, labels, c.vocab_begin(), loss_scale, "loss.backward");
  Tensor dlogits = b.cast(s.softmax, c.shape().dtype, "loss.backward.cast");
  s.softmax.reset();
  // Output layer (y = x·Wᵀ): dgrad, then f's backward overlapping the wgrad.
  Tensor dfinal =
      c.linear_backward(dlogits, s.norm.y, weight_, LinearKind::output, "output");
  dlogits.reset();
  s.norm.y.reset();
  if (final_here) c.ready(weight_);
  return norm_.backward(c, std::move(dfinal), s.x, s.norm, "final.ln");
}

}  // namespace trainsim
