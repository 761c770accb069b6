#pragma once
// A mixture-of-experts feed-forward block as Megatron-Core's MoELayer runs it
// (modern-models-reference §6): a router (a GEMM h → E, then softmax over the top-k logits
// of each token), E routed experts (each a SwiGLU MLP of width F, h → 2F → F → h, no biases),
// optional shared experts every token passes (one dense SwiGLU MLP of S·F), on every N-th layer.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace trainsim {

/// How tokens spread over the experts where no router runs on real logits (the meta backend;
/// the cpu backend routes by its own): `balanced`, every expert the same rows (Megatron's
/// --moe-router-force-load-balancing, which NVIDIA's published MoE runs use); `uniform`, each
/// token's k experts drawn uniformly at random, so the experts' loads scatter binomially around
/// the mean; `zipf`, expert popularity falling as 1/rank^s over a shuffled ranking (a skew
/// measured routers show before load balancing converges).
enum class ExpertRouting : std::uint8_t { balanced, uniform, zipf };

constexpr std::array<std::string_view, 3> kExpertRoutingNames{"balanced", "uniform", "zipf"};
constexpr std::string_view to_string(ExpertRouting r) {
  return kExpertRoutingNames[static_cast<std::size_t>(r)];
}
/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<ExpertRouting> expert_routing_from_string(std::string_view text) {
  for (std::size_t i = 0; i < kExpertRoutingNames.size(); ++i) {
    if (kExpertRoutingNames[i] == text) return static_cast<ExpertRouting>(i);
  }
  return std::nullopt;
}

struct MoeSpec {
  std::int64_t experts = 0;         ///< E routed experts per MoE layer
  std::int64_t top_k = 2;           ///< k experts each token is routed to (the scenario default)
  std::int64_t expert_ffn = 0;      ///< F, one expert's inner (gated) width
  std::int64_t shared_experts = 0;  ///< S shared experts, run as one MLP of S·F
  /// MoE on the layers l with l % every == 0 (Megatron's --moe-layer-freq N: layer 0 first);
  /// the others keep the dense MLP.
  std::int64_t every = 1;
  /// Rows per expert are capped at ceil(N·k/E · factor) of the N tokens a rank routes (its
  /// micro batch, or its sequence shard under SP or CP), the overflow dropped by lowest
  /// probability (Megatron's --moe-expert-capacity-factor with
  /// --moe-token-drop-policy probs); nullopt: dropless, Megatron's default.
  std::optional<double> capacity_factor{};
  ExpertRouting routing = ExpertRouting::balanced;
  double zipf_exponent = 1.0;  ///< s of `zipf` routing

  bool covers(std::int64_t layer) const { return layer % every == 0; }
  /// MoE layers among the first `layers`.
  std::int64_t moe_layers(std::int64_t layers) const { return (layers + every - 1) / every; }
  /// Width of the shared experts' MLP (0: none).
  std::int64_t shared_ffn() const { return shared_experts * expert_ffn; }
  /// Rows one expert takes from `tokens` routed tokens (nullopt: no cap).
  std::optional<std::int64_t> capacity(std::int64_t tokens) const;
  /// Parameters of the routed experts of one MoE layer (SwiGLU: 3·h·F each).
  std::int64_t expert_parameters(std::int64_t hidden) const {
    return experts * 3 * hidden * expert_ffn;
  }
  /// Router and shared experts of one MoE layer (the router replicated, the shared experts
  /// split over TP like the MLP).
  std::int64_t dense_parameters(std::int64_t hidden) const {
    return hidden * experts + 3 * hidden * shared_ffn();
  }
};

}  // namespace trainsim
