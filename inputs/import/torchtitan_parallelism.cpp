// The torchtitan import's parallelism: the data, tensor, context and pipeline degrees against
// the world size (2024's data_parallel_degree included), the batch and its micro batches, and
// how FSDP / DDP / HSDP, async TP, the loss and context parallelism map onto trainsim's.
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "inputs/import/torchtitan_importer.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

void TorchtitanImporter::degrees() {
  Degrees& d = degrees_;
  const auto degree = [&](Setting s, Int fallback, std::string_view meaning, Setting& keep) {
    keep = s;
    return s.node == nullptr ? fallback : config_.integer(s, 1, kMaxGpus, meaning);
  };
  d.tensor = degree(
      config_.find({"parallelism.tensor_parallel_degree", "training.tensor_parallel_degree"}), 1,
      "tensor-parallel GPUs", d.tensor_s);
  d.pipeline = degree(config_.find({"parallelism.pipeline_parallel_degree",
                                    "experimental.pipeline_parallel_degree"}),
                      1, "pipeline stages", d.pipeline_s);
  d.context = degree(
      config_.find({"parallelism.context_parallel_degree", "experimental.context_parallel_degree"}),
      1, "context-parallel GPUs", d.context_s);
  d.replicate = degree(config_.find({"parallelism.data_parallel_replicate_degree",
                                     "training.data_parallel_replicate_degree"}),
                       1, "DDP/HSDP replicas", d.replicate_s);

  // Early 2024: one data_parallel_degree, FSDP unless data_parallel_type says ddp.
  const Setting old_dp = config_.find("training.data_parallel_degree");
  const Setting old_type = config_.find("training.data_parallel_type");
  bool old_ddp = false;
  if (old_type.node != nullptr) old_ddp = config_.choice(old_type, {"fsdp", "ddp"}) == "ddp";
  Setting shard = config_.find(
      {"parallelism.data_parallel_shard_degree", "training.data_parallel_shard_degree"});
  if (old_dp.node != nullptr) {
    if (shard.node != nullptr || d.replicate_s.node != nullptr) {
      config_.fail(old_dp,
                   "2024's single data-parallel degree; the config also sets "
                   "data_parallel_shard/replicate_degree: keep one form");
    }
    shard = old_dp;
  }
  d.shard_s = shard;
  Int shard_value = -1;
  if (shard.node != nullptr) {
    shard_value = config_.integer(shard, -1, kMaxGpus, "FSDP GPUs; -1: the GPUs left over");
    if (shard_value == 0) config_.fail(shard, "expected -1 (the GPUs left over) or >= 1");
  }
  // Each degree is at most kMaxGpus: the product is taken in double for the message and
  // in integers only while it stays within --gpus.
  Int others = 1;
  double others_exact = 1;
  for (const Int x : {d.replicate, d.context, d.tensor, d.pipeline}) {
    others_exact *= static_cast<double>(x);
    if (others <= gpus_) others *= x;
  }
  const std::string product_text = fmt::format(
      "data_parallel_replicate_degree {} x context_parallel_degree {} x "
      "tensor_parallel_degree {} x pipeline_parallel_degree {}",
      d.replicate, d.context, d.tensor, d.pipeline);
  if (shard_value == -1) {
    if (others > gpus_ || gpus_ % others != 0) {
      throw ConfigError(config_.where(shard),
                        fmt::format("data_parallel_shard_degree -1 takes the GPUs left over, "
                                    "but {} = {:.0f} does not divide --gpus {}",
                                    product_text, others_exact, gpus_));
    }
    shard_value = gpus_ / others;
  } else if (others > gpus_ || others * shard_value != gpus_) {
    throw ConfigError(
        config_.where(shard),
        fmt::format("{} x data_parallel_shard_degree {} = {:.0f} GPUs, but --gpus is {}; "
                    "torchtitan requires the product to equal the world size",
                    product_text, shard_value, others_exact * static_cast<double>(shard_value),
                    gpus_));
  }
  d.shard = shard_value;
  if (old_ddp) {  // 2024's DDP over the whole data-parallel degree
    d.replicate = d.shard;
    d.shard = 1;
  }
  if (old_type.node != nullptr) {
    out_.notes.push_back(fmt::format("{}: {} over {} GPUs", config_.origin(old_type),
                                     old_ddp ? "DDP" : "FSDP", d.replicate * d.shard));
  } else if (old_dp.node != nullptr) {
    out_.notes.push_back(
        fmt::format("{}: early 2024's one data-parallel degree, sharded by "
                    "FSDP (data_parallel_type's default \"fsdp\")",
                    config_.origin(old_dp)));
  }

  // torchtitan's FSDP runs over dp_shard x cp (its "fsdp" mesh); DDP only alone.
  fsdp_ = d.shard > 1 || d.context > 1;
  if (!fsdp_ && d.replicate > 1 && (d.tensor > 1 || d.pipeline > 1)) {
    throw ConfigError(config_.where(d.replicate_s),
                      fmt::format("data_parallel_replicate_degree {} without sharding is DDP, "
                                  "which torchtitan does not combine with tensor or pipeline "
                                  "parallelism (\"DDP has not supported > 1D parallelism\"); "
                                  "use data_parallel_shard_degree instead",
                                  d.replicate));
  }

  const Setting ep = config_.find("parallelism.expert_parallel_degree");
  if (ep.node != nullptr && config_.integer(ep, 1, kMaxGpus, "expert-parallel GPUs") > 1) {
    config_.fail(ep, "llama3 has no experts; expected 1");
  }
  ignore(ep, "llama3 has no experts");
  const Setting etp = config_.find("parallelism.expert_tensor_parallel_degree");
  if (etp.node != nullptr && config_.integer(etp, 1, kMaxGpus, "expert tensor-parallel GPUs") > 1) {
    config_.fail(etp, "llama3 has no experts; expected 1");
  }
  ignore(etp, "llama3 has no experts");
}

void TorchtitanImporter::batch() {
  const Degrees& d = degrees_;
  const Setting seq = config_.find("training.seq_len");
  seq_len_ = seq.node == nullptr ? 2048 : config_.integer(seq, 1, kMaxSeqLen, "tokens");
  seq_s_ = seq;

  local_s_ = config_.find({"training.local_batch_size", "training.batch_size"});
  const Int local = local_s_.node == nullptr
                        ? 8
                        : config_.integer(local_s_, 1, kMaxBatch, "sequences per DP rank");
  const Int dp = d.replicate * d.shard;  // <= gpus: no overflow
  global_s_ = config_.find("training.global_batch_size");
  Int global = -1;
  if (global_s_.node != nullptr) {
    global = config_.integer(global_s_, -1, kMaxBatch, "sequences per step; -1: local x DP");
    if (global == 0) config_.fail(global_s_, "expected -1 (local_batch_size x DP) or >= 1");
  }
  if (global == -1) {
    if (local > kMaxBatch / dp) {
      config_.fail(local_s_, fmt::format("local_batch_size x DP {} = {} sequences exceeds "
                                         "trainsim's global batch range (at most {})",
                                         dp, local * dp, kMaxBatch));
    }
    global = local * dp;
  } else if (global % (local * dp) != 0) {
    config_.fail(global_s_,
                 fmt::format("must be a multiple of local_batch_size {} x DP {} (data_parallel_"
                             "replicate_degree x data_parallel_shard_degree) = {}, as torchtitan "
                             "requires for gradient accumulation",
                             local, dp, local * dp));
  }
  global_batch_ = global;
  accumulation_ = global / (local * dp);
  if (accumulation_ > 1) {
    out_.notes.push_back(fmt::format(
        "gradient accumulation: global_batch_size {} / (local_batch_size {} x DP {}) = {} "
        "forward-backward passes of local_batch_size per step",
        global, local, dp, accumulation_));
  }

  const Setting mb = config_.find("parallelism.pipeline_parallel_microbatch_size");
  const Setting n_mb = config_.find("experimental.pipeline_parallel_microbatches");  // 2024
  if (d.pipeline == 1) {
    micro_batch_ = local;
    micro_source_ =
        fmt::format("{}: without a pipeline a micro batch is the local batch", from(local_s_, "8"));
    ignore(mb, "no pipeline (pipeline_parallel_degree 1)");
    ignore(n_mb, "no pipeline (pipeline_parallel_degree 1)");
    return;
  }
  if (mb.node != nullptr && n_mb.node != nullptr) {
    config_.fail(n_mb,
                 "2024's number of micro batches; the config also sets "
                 "pipeline_parallel_microbatch_size: keep one");
  }
  if (n_mb.node != nullptr) {
    const Int n = config_.integer(n_mb, 1, kMaxBatch, "micro batches per local batch");
    if (local % n != 0) {
      config_.fail(n_mb, fmt::format("must divide the local batch size {}", local));
    }
    micro_batch_ = local / n;
    micro_source_ = fmt::format("{} / {}", from(local_s_, "8"), config_.origin(n_mb));
  } else if (d.pipeline_s.node != nullptr && d.pipeline_s.path.starts_with("experimental.")) {
    // 2024: the number of micro batches defaulted to the pipeline degree.
    if (local % d.pipeline != 0) {
      config_.fail(local_s_, fmt::format("torchtitan (2024) splits it into pipeline_parallel_"
                                         "degree {} micro batches: must divide",
                                         d.pipeline));
    }
    micro_batch_ = local / d.pipeline;
    micro_source_ = fmt::format("{} / {}: 2024's default of as many micro batches as stages",
                                from(local_s_, "8"), config_.origin(d.pipeline_s));
  } else {
    micro_batch_ = mb.node == nullptr ? 1 : config_.integer(mb, 1, kMaxBatch, "sequences");
    if (local % micro_batch_ != 0) {
      config_.fail(mb.node != nullptr ? mb : local_s_,
                   fmt::format("pipeline_parallel_microbatch_size {} must divide "
                               "local_batch_size {} (torchtitan's micro batches per step)",
                               micro_batch_, local));
    }
    micro_source_ = from(mb, "1");
  }
  if (accumulation_ > 1) {
    out_.notes.push_back(fmt::format(
        "pipeline with gradient accumulation: torchtitan runs the schedule {} times per step "
        "({} micro batches each, each with its fill and drain); trainsim runs one schedule over "
        "all {} micro batches, so it predicts a smaller bubble",
        accumulation_, local / micro_batch_, accumulation_ * (local / micro_batch_)));
  }
}

void TorchtitanImporter::other_parallelism() {
  const Degrees& d = degrees_;
  const Setting async_s = config_.find(
      {"parallelism.enable_async_tensor_parallel", "experimental.enable_async_tensor_parallel"});
  if (async_s.node != nullptr && config_.boolean(async_s)) {
    if (d.tensor > 1) {
      async_tp_ = true;
      out_.notes.push_back(
          fmt::format("{}: torchtitan's async TP (micro-pipelined all-gather and reduce-scatter "
                      "matmuls, which need torch.compile) is costed as trainsim's TP communication "
                      "overlap",
                      config_.origin(async_s)));
    } else {
      ignore(async_s, "no tensor parallelism");
    }
  } else {
    ignore(async_s, "");
  }
  const Setting loss_s =
      config_.find({"parallelism.disable_loss_parallel", "training.disable_loss_parallel"});
  if (loss_s.node != nullptr && config_.boolean(loss_s) && d.tensor > 1) {
    out_.notes.push_back(
        fmt::format("{}: torchtitan gathers the logits before the loss; "
                    "trainsim keeps the vocab-parallel loss",
                    config_.origin(loss_s)));
  } else {
    ignore(loss_s, d.tensor > 1 ? "vocab-parallel loss, as trainsim's" : "no tensor parallelism");
  }
  const Setting rotate_s = config_.find({"parallelism.context_parallel_rotate_method",
                                         "experimental.context_parallel_rotate_method"});
  const Setting balance_s = config_.find("parallelism.context_parallel_load_balancer");
  if (d.context > 1) {
    const std::string rotate = rotate_s.node == nullptr
                                   ? "allgather"
                                   : config_.choice(rotate_s, {"allgather", "alltoall"});
    out_.notes.push_back(fmt::format(
        "context parallelism with {} ({}): costed as trainsim's ring, which passes each "
        "rank's keys and values to the others in CP - 1 steps",
        rotate == "allgather" ? "the keys and values all-gathered" : "ring rotation by all-to-all",
        from(rotate_s, "\"allgather\"")));
    if (balance_s.node != nullptr) {
      const std::string b = config_.string(balance_s, "a load balancer name");
      if (b == "headtail") {
        ignore(balance_s, "head-tail chunks, as trainsim's 2 x CP chunks");
      } else {
        out_.notes.push_back(
            fmt::format("{}: trainsim balances the causal mask with 2 x CP "
                        "chunks (head-tail)",
                        config_.origin(balance_s)));
      }
    }
    if (fsdp_) {
      out_.notes.push_back(
          "FSDP shards over data_parallel_shard_degree x "
          "context_parallel_degree (torchtitan's fsdp mesh), as trainsim's "
          "ZeRO does over its data x context gradient group");
    }
  } else {
    ignore(rotate_s, "no context parallelism");
    ignore(balance_s, "no context parallelism");
  }

  const Setting reshard_s = config_.find(
      {"parallelism.fsdp_reshard_after_forward", "training.fsdp_reshard_after_forward"});
  const std::string reshard = reshard_s.node == nullptr
                                  ? "default"
                                  : config_.choice(reshard_s, {"default", "always", "never"});
  const Setting offload_s = config_.find("training.enable_cpu_offload");
  if (offload_s.node != nullptr && config_.boolean(offload_s) && fsdp_) {
    config_.fail(offload_s,
                 "FSDP's CPU offload of parameters and optimizer state is not "
                 "simulated; expected false");
  }
  ignore(offload_s, fsdp_ ? "" : "no FSDP");
  zero_ = 0;
  if (!fsdp_) {
    ignore(reshard_s, "no FSDP");
    zero_source_ = d.replicate > 1
                       ? fmt::format("{}: DDP, gradients all-reduced", from(d.replicate_s, "1"))
                       : "no data parallelism";
    return;
  }
  const std::string shard_text = d.shard_s.node != nullptr
                                     ? config_.origin(d.shard_s)
                                     : fmt::format(
                                           "torchtitan's default data_parallel_shard_degree "
                                           "-1 = {}",
                                           d.shard);
  if (d.pipeline > 1 && reshard != "always") {
    zero_ = 1;
    overlap_param_gather_ = true;
    zero_source_ = fmt::format(
        "{} with a pipeline: FSDP2 under torch's pipelining gathers "
        "once per step and reduce-scatters after the last backward",
        shard_text);
    out_.notes.push_back(fmt::format(
        "FSDP with a pipeline ({}): torchtitan keeps the parameters gathered from the first "
        "forward to the last backward of a step and reduce-scatters the gradients once; "
        "imported as ZeRO 1 with the parameter gather overlapped with the forward",
        from(reshard_s, "\"default\"")));
  } else if (reshard == "never") {
    zero_ = 2;
    zero_source_ = fmt::format("{}, {}: parameters kept from forward to backward", shard_text,
                               config_.origin(reshard_s));
    out_.notes.push_back(fmt::format(
        "{}: FSDP without resharding after forward gathers each layer once per micro batch "
        "and keeps it to the backward; approximated as ZeRO 2 (sharded gradients and "
        "optimizer state, replicated parameters)",
        config_.origin(reshard_s)));
  } else {
    zero_ = 3;
    zero_source_ = fmt::format(
        "{}: FSDP2 (fully_shard) shards parameters, gradients and "
        "optimizer state",
        shard_text);
    ignore(reshard_s, "resharded after forward, as ZeRO 3");
  }
  if (d.replicate > 1) {
    out_.notes.push_back(fmt::format(
        "HSDP (data_parallel_replicate_degree {} x data_parallel_shard_degree {}): torchtitan "
        "shards within groups of {} and all-reduces across the {} replicas; trainsim has one "
        "data dimension, so this is ZeRO {} over all {} (more gather traffic, less memory "
        "than HSDP)",
        d.replicate, d.shard, d.shard, d.replicate, zero_, d.replicate * d.shard));
  }
}

}  // namespace trainsim::inputs::import::detail
