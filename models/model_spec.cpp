#include "models/model_spec.hpp"

#include <fmt/format.h>

namespace trainsim {

std::string ModelSpec::non_gpt_features() const {
  std::string out;
  const auto add = [&](std::string item) { out += (out.empty() ? "" : ", ") + item; };
  if (key_value_heads() != heads) add(fmt::format("kv_heads {}", key_value_heads()));
  if (head_size && *head_size * heads != hidden) add(fmt::format("head_dim {}", *head_size));
  if (activation != Activation::gelu) add(fmt::format("activation {}", to_string(activation)));
  if (norm != NormKind::layernorm) add(fmt::format("norm {}", to_string(norm)));
  if (position != PositionKind::learned) add(fmt::format("position {}", to_string(position)));
  if (attention != AttentionKind::standard) add(fmt::format("attention {}", to_string(attention)));
  if (qk_norm) add("qk_norm");
  if (attention_window) {
    add(fmt::format("attention_window {} every {}", attention_window->size,
                    attention_window->every));
  }
  if (!tied_embeddings) add("tied_embeddings false");
  if (!bias) add("bias false");
  if (moe) add(fmt::format("moe {} experts top {}", moe->experts, moe->top_k));
  return out;
}

std::int64_t ModelSpec::parameters_per_layer() const {
  const std::int64_t h = hidden;
  const std::int64_t biases = bias ? 1 : 0;
  const std::int64_t qkv = h * qkv_width() + biases * qkv_width();
  const std::int64_t out_proj = attention_width() * h + biases * h;
  const std::int64_t fc1 = h * fc1_width() + biases * fc1_width();
  const std::int64_t fc2 = ffn * h + biases * h;
  const std::int64_t qk_norms = qk_norm ? 2 * head_dim() : 0;
  return qkv + out_proj + fc1 + fc2 + 2 * norm_parameters() + qk_norms;
}

std::int64_t ModelSpec::layer_parameters(std::int64_t layer) const {
  if (!moe_layer(layer)) return parameters_per_layer();
  const std::int64_t h = hidden;
  const std::int64_t mlp = h * fc1_width() + ffn * h + (bias ? fc1_width() + h : 0);
  return parameters_per_layer() - mlp + moe->dense_parameters(h) + moe->expert_parameters(h);
}

std::int64_t ModelSpec::active_parameters() const {
  std::int64_t inactive = 0;
  if (moe) {
    const std::int64_t per_expert = 3 * hidden * moe->expert_ffn;
    inactive = moe->moe_layers(layers) * (moe->experts - moe->top_k) * per_expert;
  }
  return parameters() - inactive;
}

std::int64_t ModelSpec::embedding_parameters() const {
  const std::int64_t positions = position == PositionKind::learned ? seq_len * hidden : 0;
  const std::int64_t output = tied_embeddings ? 0 : vocab * hidden;
  return vocab * hidden + output + positions;
}

std::int64_t ModelSpec::parameters() const {
  std::int64_t sum = 0;
  for (std::int64_t l = 0; l < layers; ++l)
    sum += layer_parameters(l);
  return sum + embedding_parameters() + norm_parameters();
}

Flops ModelSpec::attention_core_forward_flops(std::int64_t micro_batch) const {
  // QK^T and P·V: each 2·b·a·s·s·d_h multiply-add FLOPs (= 2·b·s²·h for GPT); grouped-query
  // attention shares K and V between heads but every query head still multiplies.
  const double b = static_cast<double>(micro_batch);
  const double s = static_cast<double>(seq_len);
  const double dense = 2.0 * (2.0 * b * s * s * static_cast<double>(attention_width()));
  return Flops::of(attention_flops == AttentionFlops::causal ? dense / 2.0 : dense);
}

Flops ModelSpec::layer_forward_flops(std::int64_t micro_batch) const {
  const double tokens = static_cast<double>(micro_batch * seq_len);
  const double h = static_cast<double>(hidden);
  const auto width = [](std::int64_t w) { return static_cast<double>(w); };
  // QKV, the projection, FC1 (gate and up with SwiGLU) and FC2.
  const double linears = 2.0 * tokens *
                         (width(qkv_width()) * h + width(attention_width()) * h +
                          h * width(fc1_width()) + width(ffn) * h);
  return Flops::of(linears) + attention_core_forward_flops(micro_batch);
}

Flops ModelSpec::layer_forward_flops(std::int64_t micro_batch, std::int64_t layer) const {
  if (!moe_layer(layer)) return layer_forward_flops(micro_batch);
  const double tokens = static_cast<double>(micro_batch * seq_len);
  const double h = static_cast<double>(hidden);
  const double mlp = 2.0 * tokens * (h * static_cast<double>(fc1_width() + ffn));
  // Each token through k routed experts and the shared ones: 3 GEMMs of h x F (SwiGLU).
  const double experts = 2.0 * tokens * 3.0 * h *
                         static_cast<double>(moe->top_k * moe->expert_ffn + moe->shared_ffn());
  return layer_forward_flops(micro_batch) - Flops::of(mlp) + Flops::of(experts);
}

Flops ModelSpec::router_forward_flops(std::int64_t micro_batch) const {
  if (!moe) return Flops::of(0.0);
  const double tokens = static_cast<double>(micro_batch * seq_len);
  return Flops::of(2.0 * tokens *
                   static_cast<double>(hidden * moe->experts * moe->moe_layers(layers)));
}

Flops ModelSpec::logit_forward_flops(std::int64_t micro_batch) const {
  const double tokens = static_cast<double>(micro_batch * seq_len);
  return Flops::of(2.0 * tokens * static_cast<double>(hidden) * static_cast<double>(vocab));
}

Flops ModelSpec::layers_forward_flops(std::int64_t micro_batch) const {
  if (!moe) return layer_forward_flops(micro_batch) * static_cast<double>(layers);
  Flops sum = Flops::of(0.0);
  for (std::int64_t l = 0; l < layers; ++l)
    sum += layer_forward_flops(micro_batch, l);
  return sum;
}

Flops ModelSpec::forward_flops(std::int64_t global_batch) const {
  return layers_forward_flops(global_batch) + logit_forward_flops(global_batch);
}

Flops ModelSpec::model_flops(std::int64_t global_batch) const {
  return forward_flops(global_batch) * 3.0;
}

Flops ModelSpec::hardware_flops(std::int64_t global_batch, Recompute recompute) const {
  const Flops router = router_forward_flops(global_batch);
  switch (recompute) {
    case Recompute::none:
      return model_flops(global_batch) + router * 3.0;
    case Recompute::selective:
      return model_flops(global_batch) + router * 3.0 +
             attention_core_forward_flops(global_batch) * static_cast<double>(layers);
    case Recompute::full:
      return model_flops(global_batch) + router * 4.0 + layers_forward_flops(global_batch);
  }
  return model_flops(global_batch);
}

namespace paper_formulas {

double narayanan_parameters(const ModelSpec& m) {
  const double l = static_cast<double>(m.layers);
  const double h = static_cast<double>(m.hidden);
  const double v = static_cast<double>(m.vocab);
  const double s = static_cast<double>(m.seq_len);
  return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (v + s) / (12.0 * l * h));
}

namespace {
double korthikanti_form(const ModelSpec& m, std::int64_t batch, double attention_divisor) {
  const double b = static_cast<double>(batch);
  const double l = static_cast<double>(m.layers);
  const double h = static_cast<double>(m.hidden);
  const double v = static_cast<double>(m.vocab);
  const double s = static_cast<double>(m.seq_len);
  return 72.0 * b * s * l * h * h * (1.0 + s / (attention_divisor * h) + v / (12.0 * h * l));
}
}  // namespace

double korthikanti_model_flops(const ModelSpec& m, std::int64_t global_batch) {
  return korthikanti_form(m, global_batch, 6.0);
}

double korthikanti_selective_hardware_flops(const ModelSpec& m, std::int64_t global_batch) {
  return korthikanti_form(m, global_batch, 3.0);
}

double narayanan_full_recompute_flops(const ModelSpec& m, std::int64_t global_batch) {
  const double b = static_cast<double>(global_batch);
  const double l = static_cast<double>(m.layers);
  const double h = static_cast<double>(m.hidden);
  const double v = static_cast<double>(m.vocab);
  const double s = static_cast<double>(m.seq_len);
  return 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
}

}  // namespace paper_formulas
}  // namespace trainsim
