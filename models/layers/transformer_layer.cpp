#include "models/layers/transformer_layer.hpp"

#include <optional>
#include <string>

namespace trainsim {

namespace {

std::string layer_name(std::int32_t layer, const char* what) {
  return "layers." + std::to_string(layer) + "." + what;
}

// residual + dropout(out + bias) (Megatron's fused bias-dropout-add), `out` freed after it.
// `block` names the kernel (BLOCK.bias_dropout_add), `bias_name` the bias's gather. A model
// trained without dropout (p = 0 in training) adds without a mask; eval mode keeps the
// inference variant's kernel.
DropoutResult bias_dropout_add(LayerContext& c, Tensor& out, std::optional<std::size_t> bias,
                               const Tensor& residual, double p, const std::string& block,
                               const std::string& bias_name) {
  DropoutResult result = [&] {
    const Tensor value =
        bias ? c.vector_value(*bias, bias_name + ".all_gather") : Tensor{};
    if (p == 0.0 && !c.options().forward_only) {
      return DropoutResult{
          c.backend().bias_add_residual(out, value, residual, block + ".bias_dropout_add"), {}};
    }
    return c.backend().bias_dropout_add(out, value, residual, p, block + ".bias_dropout_add");
  }();
  out.reset();
  return result;
}

// Its backward: the gradient of `out` (mask·dy/(1-p), or dy itself without a mask), the bias
// gradient accumulated and reported ready.
Tensor bias_dropout_add_backward(LayerContext& c, const Tensor& dy, const Tensor& mask,
                                 std::optional<std::size_t> bias, const std::string& block,
                                 const std::string& bias_name) {
  if (!mask.defined()) {
    if (bias) {
      Tensor dbias = c.vector_grad(*bias, bias_name + ".grad");
      c.backend().bias_grad(dy, dbias, bias_name + ".backward");
      c.vector_grad_done(*bias, dbias, bias_name);
    }
    return dy;
  }
  Tensor dbias = bias ? c.vector_grad(*bias, bias_name + ".grad") : Tensor{};
  Tensor dout = c.backend().dropout_backward(dy, mask, c.shape().hidden_dropout,
                                             bias ? &dbias : nullptr, block + ".dropout.backward");
  if (bias) c.vector_grad_done(*bias, dbias, bias_name);
  return dout;
}

}  // namespace

TransformerLayer::TransformerLayer(LayerContext& c, std::int32_t layer) : layer_(layer) {
  // With SP the norms and the biases added on the sequence shard have partial gradients.
  const bool sp = c.sequence_parallel();
  attn_norm_ = NormBlock::add(c, layer_name(layer, "attn.ln"), layer, sp);
  attention_ = AttentionBlock::add(c, layer_name(layer, "attn"), layer, sp);
  mlp_norm_ = NormBlock::add(c, layer_name(layer, "mlp.ln"), layer, sp);
  const std::optional<MoeSpec>& moe = c.shape().layer.moe;
  if (moe && moe->covers(layer)) {
    moe_ = MoeBlock::add(c, layer_name(layer, "moe"), layer);
  } else {
    mlp_ = MlpBlock::add(c, layer_name(layer, "mlp"), layer, sp);
  }
}

Tensor TransformerLayer::forward(LayerContext& c, const Tensor& x, LayerSaved& s, bool keep) {
  // Eval mode: the fused bias-dropout-add kernels drop nothing.
  const double dropout = c.options().forward_only ? 0.0 : c.shape().hidden_dropout;
  s.x = x;

  s.attn_norm = attn_norm_.forward(c, x, keep, "attn.ln");
  Tensor proj = attention_.forward(c, s.attn_norm, s.attention, keep);
  DropoutResult attn_out =
      bias_dropout_add(c, proj, attention_.output_bias(), x, dropout, "attn", "attn.proj.bias");
  s.x1 = std::move(attn_out.y);
  s.attn_residual_mask = std::move(attn_out.mask);
  c.mark(s.x1, keep);
  c.mark(s.attn_residual_mask, keep);
  c.consumed({&s.x, &s.attn_residual_mask});

  s.mlp_norm = mlp_norm_.forward(c, s.x1, keep, "mlp.ln");
  Tensor fc2 =
      moe_ ? moe_->forward(c, s.mlp_norm, s.moe, keep) : mlp_.forward(c, s.mlp_norm, s.mlp, keep);
  DropoutResult mlp_out =
      bias_dropout_add(c, fc2, mlp_.output_bias(), s.x1, dropout, "mlp", "mlp.fc2.bias");
  s.mlp_residual_mask = std::move(mlp_out.mask);
  c.mark(s.mlp_residual_mask, keep);
  c.consumed({&s.x1, &s.mlp_residual_mask});
  // The next layer's (or the final norm's) input, kept also by full recomputation.
  c.mark(mlp_out.y, !c.options().forward_only);
  return std::move(mlp_out.y);
}

Tensor TransformerLayer::backward(LayerContext& c, Tensor dy, LayerSaved s) {
  Backend& b = c.backend();
  // MLP block (§1.3 B1-B7, §2.3). g's backward is the identity; ḡ's is an all-gather.
  Tensor dfc2 = bias_dropout_add_backward(c, dy, s.mlp_residual_mask, mlp_.output_bias(), "mlp",
                                          "mlp.fc2.bias");
  s.mlp_residual_mask.reset();
  Tensor dmlp_in = moe_ ? moe_->backward(c, std::move(dfc2), s.mlp_norm, s.moe)
                        : mlp_.backward(c, std::move(dfc2), s.mlp_norm, s.mlp);
  Tensor dx1 = mlp_norm_.backward(c, std::move(dmlp_in), s.x1, s.mlp_norm, "mlp.ln");
  b.accumulate(dx1, dy, "mlp.residual.backward");
  dy.reset();

  // Attention block (§1.3 B7-B16).
  Tensor dproj = bias_dropout_add_backward(c, dx1, s.attn_residual_mask,
                                           attention_.output_bias(), "attn", "attn.proj.bias");
  s.attn_residual_mask.reset();
  Tensor dattn_in = attention_.backward(c, std::move(dproj), s.attn_norm, s.attention, layer_);
  Tensor dx = attn_norm_.backward(c, std::move(dattn_in), s.x, s.attn_norm, "attn.ln");
  b.accumulate(dx, dx1, "attn.residual.backward");
  return dx;
}

}  // namespace trainsim
