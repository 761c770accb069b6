#include "models/layers/moe.hpp"

#include <numeric>

#include "models/expert_routing.hpp"

namespace trainsim {

ExpertExchange ExpertExchange::plan(const std::vector<std::int64_t>& counts, std::int64_t members,
                                    std::int64_t position) {
  const auto n = static_cast<std::size_t>(members);
  const std::size_t experts = counts.size() / n;
  const std::size_t local = experts / n;
  const auto count = [&](std::size_t member, std::size_t expert) {
    return counts[member * experts + expert];
  };
  const auto mine = static_cast<std::size_t>(position);
  ExpertExchange x;
  x.send.assign(n, 0);
  x.recv.assign(n, 0);
  x.rows.assign(local, 0);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t g = 0; g < local; ++g) {
      x.send[j] += count(mine, j * local + g);
      const std::int64_t received = count(j, mine * local + g);
      x.recv[j] += received;
      x.rows[g] += received;
      x.source_major_rows.push_back(received);
    }
  }
  for (std::size_t g = 0; g < local; ++g) {
    for (std::size_t j = 0; j < n; ++j) {
      x.to_expert_major.push_back(static_cast<std::int64_t>(j * local + g));
      x.expert_major_rows.push_back(count(j, mine * local + g));
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t g = 0; g < local; ++g)
      x.to_source_major.push_back(static_cast<std::int64_t>(g * n + j));
  }
  return x;
}

MoeBlock MoeBlock::add(LayerContext& c, const std::string& prefix, std::int32_t layer) {
  const TransformerShape& s = c.shape();
  MoeBlock block;
  block.spec_ = *s.layer.moe;
  block.layer_ = layer;
  const std::int64_t h = s.hidden;
  const std::int64_t e = block.spec_.experts;
  const std::int64_t f = block.spec_.expert_ffn;
  // Each TP rank routes its own sequence shard: the router's gradient is partial per rank.
  block.router_ = c.add_parameter(prefix + ".router.weight", {1, h, e}, Split::replicated,
                                  Split::replicated, layer, c.sequence_parallel());
  block.fc1_ = c.add_parameter(prefix + ".experts.fc1.weight", {e, h, 2 * f}, Split::experts,
                               Split::experts, layer);
  block.fc2_ = c.add_parameter(prefix + ".experts.fc2.weight", {e, f, h}, Split::experts,
                               Split::experts, layer);
  if (block.spec_.shared_experts > 0) {
    block.shared_ = MlpBlock::add(c, prefix + ".shared", layer, c.sequence_parallel(),
                                  block.spec_.shared_ffn());
  }
  return block;
}

Tensor MoeBlock::forward(LayerContext& c, NormSaved& in, MoeSaved& s, bool keep) {
  Backend& b = c.backend();
  s.x = in.y;
  c.mark(s.x, keep);
  Tensor logits = b.matmul(s.x, c.value(router_), false, false, "moe.router");
  const std::int64_t tokens = s.x.shape().rows;
  s.routing =
      b.route(logits,
              {spec_.top_k, spec_.capacity(tokens),
               expert_shares(spec_, c.options().expert.size, tokens, layer_, c.micro_batch())},
              "moe.route");
  logits.reset();  // the softmax's backward needs its output only
  c.mark(s.routing.probs, keep);
  c.mark(s.routing.experts, keep);
  c.mark(s.routing.slots, keep);
  c.consumed({&s.routing.experts});
  Tensor permuted = b.permute_tokens(s.x, s.routing, "moe.permute");
  Tensor rows_in = dispatch(c, permuted, s);
  permuted.reset();
  s.fc1 = experts_linear(c, rows_in, fc1_, s.exchange.rows, "moe.fc1", s.fc1_input);
  rows_in.reset();
  c.mark(s.fc1_input, keep);
  c.mark(s.fc1, keep);
  c.consumed({&s.fc1_input});
  Tensor activated = b.swiglu(s.fc1, "moe.swiglu");
  c.consumed({&s.fc1});
  Tensor fc2 = experts_linear(c, activated, fc2_, s.exchange.rows, "moe.fc2", s.fc2_input);
  activated.reset();
  c.mark(s.fc2_input, keep);
  c.consumed({&s.fc2_input});
  s.expert_out = from_experts(c, fc2, s.exchange, "moe.combine");
  fc2.reset();
  c.mark(s.expert_out, keep);
  Tensor out = b.unpermute_tokens(s.expert_out, s.routing, "moe.unpermute");
  c.consumed({&s.expert_out, &s.routing.probs, &s.routing.slots});
  if (shared_) {
    s.shared_in.y = s.x;
    Tensor shared = shared_->forward(c, s.shared_in, s.shared, keep);
    b.accumulate(out, shared, "moe.shared.add");
  }
  c.consumed({&s.x, &in.y, &in.stats, &in.gamma});
  return out;
}

Tensor MoeBlock::experts_linear(LayerContext& c, const Tensor& x, std::size_t weight,
                                std::span<const std::int64_t> rows, const std::string& name,
                                Tensor& saved_input) {
  Backend& b = c.backend();
  if (!c.options().fp8) {
    saved_input = x;
    return b.grouped_matmul(x, c.value(weight), rows, false, name);
  }
  // Transformer Engine's GroupedLinear in FP8: the rows cast once, the columnwise copy kept
  // for the weight gradient, the experts' FP8 weights cached for the step.
  Fp8Tensor in =
      b.quantize_fp8(x, *c.options().fp8, program::MemoryCategory::temporaries, name + ".fp8_cast");
  saved_input = std::move(in.columnwise);
  const Fp8Tensor w = c.fp8_weight(weight, name);
  return b.grouped_matmul(in.rowwise, w.rowwise, rows, false, name);
}

Tensor MoeBlock::experts_linear_backward(LayerContext& c, const Tensor& dy,
                                         const Tensor& saved_input, std::size_t weight,
                                         std::span<const std::int64_t> rows,
                                         const std::string& name) {
  Backend& b = c.backend();
  if (!c.options().fp8) {
    Tensor dx = b.grouped_matmul(dy, c.value(weight), rows, true, name + ".dgrad");
    b.grouped_matmul_weight_grad(saved_input, dy, rows, c.grad(weight), name + ".wgrad");
    c.ready(weight);
    return dx;
  }
  // dY (E5M2) cast once for the dgrad and wgrad GEMMs.
  Fp8Tensor dq = b.quantize_fp8(dy, *c.options().fp8, program::MemoryCategory::temporaries,
                                name + ".dgrad.fp8_cast");
  const Fp8Tensor w = c.fp8_weight(weight, name);
  Tensor dx = b.grouped_matmul(dq.rowwise, w.columnwise, rows, true, name + ".dgrad");
  dq.rowwise.reset();
  b.grouped_matmul_weight_grad(saved_input, dq.columnwise, rows, c.grad(weight), name + ".wgrad");
  c.ready(weight);
  return dx;
}

Tensor MoeBlock::dispatch(LayerContext& c, const Tensor& permuted, MoeSaved& s) {
  const std::int64_t members = c.options().expert.size;
  Backend& b = c.backend();
  if (members == 1) {
    // The grouped GEMM's row counts go to the host (TE's GroupedLinear takes them as a list).
    b.host_read(s.routing.counts, program::SyncPoint::moe_tokens, "moe.tokens_per_expert");
    s.exchange = ExpertExchange::plan(s.routing.tokens_per_expert, 1, 0);
    return permuted;
  }
  const std::vector<std::int64_t> counts =
      b.gather_counts(s.routing, CommGroup::expert, "moe.tokens_per_expert");
  s.exchange = ExpertExchange::plan(counts, members, c.options().expert.rank);
  return to_experts(c, permuted, s.exchange, "moe.dispatch");
}

Tensor MoeBlock::to_experts(LayerContext& c, const Tensor& rows, const ExpertExchange& x,
                            const std::string& name) {
  if (c.options().expert.size == 1) return rows;
  Backend& b = c.backend();
  const Tensor received = b.all_to_all(rows, x.send, x.recv, CommGroup::expert,
                                       stream_of(CommGroup::expert), name + ".all_to_all");
  return b.sort_chunks(received, x.source_major_rows, x.to_expert_major, name + ".sort");
}

Tensor MoeBlock::from_experts(LayerContext& c, const Tensor& rows, const ExpertExchange& x,
                              const std::string& name) {
  if (c.options().expert.size == 1) return rows;
  Backend& b = c.backend();
  const Tensor sorted = b.sort_chunks(rows, x.expert_major_rows, x.to_source_major, name + ".sort");
  return b.all_to_all(sorted, x.recv, x.send, CommGroup::expert, stream_of(CommGroup::expert),
                      name + ".all_to_all");
}

Tensor MoeBlock::backward(LayerContext& c, Tensor dy, NormSaved& in, MoeSaved& s) {
  Backend& b = c.backend();
  // Autograd's reverse order: the shared experts (added last), then the routed path.
  Tensor dx_shared;
  if (shared_) dx_shared = shared_->backward(c, dy, s.shared_in, s.shared);
  Tensor dprobs;
  Tensor dexpert_out =
      b.unpermute_tokens_backward(dy, s.expert_out, s.routing, dprobs, "moe.unpermute.backward");
  dy.reset();
  s.expert_out.reset();
  // The combine's gradient goes the dispatch's way, the dispatch's the combine's.
  Tensor dfc2 = to_experts(c, dexpert_out, s.exchange, "moe.combine.backward");
  dexpert_out.reset();
  const std::vector<std::int64_t>& rows = s.exchange.rows;
  Tensor dactivated = experts_linear_backward(c, dfc2, s.fc2_input, fc2_, rows, "moe.fc2");
  dfc2.reset();
  s.fc2_input.reset();
  Tensor dfc1 = b.swiglu_backward(dactivated, s.fc1, "moe.swiglu.backward");
  dactivated.reset();
  s.fc1.reset();
  Tensor dinput = experts_linear_backward(c, dfc1, s.fc1_input, fc1_, rows, "moe.fc1");
  dfc1.reset();
  s.fc1_input.reset();
  Tensor dpermuted = from_experts(c, dinput, s.exchange, "moe.dispatch.backward");
  dinput.reset();
  Tensor dx = b.permute_tokens_backward(dpermuted, s.routing, "moe.permute.backward");
  dpermuted.reset();
  Tensor dlogits =
      b.route_backward(dprobs, s.routing, spec_.experts, c.shape().dtype, "moe.route.backward");
  dprobs.reset();
  s.routing = {};
  Tensor drouter = b.matmul(dlogits, c.value(router_), false, true, "moe.router.dgrad");
  b.matmul_accumulate(s.x, dlogits, true, false, c.grad(router_), "moe.router.wgrad");
  c.ready(router_);
  dlogits.reset();
  s.x.reset();
  in.y.reset();
  b.accumulate(dx, drouter, "moe.router.backward.add");
  if (dx_shared.defined()) b.accumulate(dx, dx_shared, "moe.shared.backward.add");
  return dx;
}

}  // namespace trainsim
