#include "models/program.hpp"

#include <fmt/format.h>

#include <limits>

#include "models/errors.hpp"
#include "models/parallel_for.hpp"

namespace trainsim::program {

std::string_view to_string(Stream s) {
  switch (s) {
    case Stream::compute:
      return "compute";
    case Stream::tp:
      return "tp";
    case Stream::dp:
      return "dp";
    case Stream::pp_send:
      return "pp send";
    case Stream::pp_recv:
      return "pp recv";
    case Stream::tp_column:
      return "tp column";
    case Stream::tp_weight:
      return "tp weight";
    case Stream::tp_output:
      return "tp output";
    case Stream::tp_input_weight:
      return "tp input x weight";
    case Stream::tp_output_weight:
      return "tp output x weight";
    case Stream::host:
      return "host";
    case Stream::cp_send:
      return "cp send";
    case Stream::cp_recv:
      return "cp recv";
  }
  return "?";
}

std::string_view to_string(KernelClass c) {
  switch (c) {
    case KernelClass::elementwise:
      return "elementwise";
    case KernelClass::dropout:
      return "dropout";
    case KernelClass::layer_norm:
      return "layer_norm";
    case KernelClass::layer_norm_backward:
      return "layer_norm_backward";
    case KernelClass::softmax:
      return "softmax";
    case KernelClass::softmax_backward:
      return "softmax_backward";
    case KernelClass::reduction:
      return "reduction";
    case KernelClass::embedding:
      return "embedding";
    case KernelClass::embedding_backward:
      return "embedding_backward";
    case KernelClass::cross_entropy:
      return "cross_entropy";
    case KernelClass::optimizer:
      return "optimizer";
    case KernelClass::memset:
      return "memset";
    case KernelClass::attention:
      return "attention";
    case KernelClass::attention_backward:
      return "attention_backward";
  }
  return "?";
}

std::string_view to_string(SyncPoint p) {
  switch (p) {
    case SyncPoint::found_inf:
      return "found_inf";
    case SyncPoint::grad_norm:
      return "grad_norm";
    case SyncPoint::p2p:
      return "p2p";
    case SyncPoint::loss:
      return "loss";
    case SyncPoint::moe_tokens:
      return "moe_tokens";
  }
  return "?";
}

std::optional<KernelClass> kernel_class_from_string(std::string_view name) {
  for (int c = 0; c < kKernelClassCount; ++c) {
    if (to_string(static_cast<KernelClass>(c)) == name) return static_cast<KernelClass>(c);
  }
  return std::nullopt;
}

std::optional<SyncPoint> sync_point_from_string(std::string_view name) {
  for (int p = 0; p < kSyncPointCount; ++p) {
    if (to_string(static_cast<SyncPoint>(p)) == name) return static_cast<SyncPoint>(p);
  }
  return std::nullopt;
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::forward:
      return "forward";
    case Phase::backward:
      return "backward";
    case Phase::recompute:
      return "recompute";
    case Phase::optimizer:
      return "optimizer";
  }
  return "?";
}

std::string_view to_string(GroupKind k) {
  switch (k) {
    case GroupKind::tp:
      return "tp";
    case GroupKind::dp:
      return "dp";
    case GroupKind::pp:
      return "pp";
    case GroupKind::embedding:
      return "embedding";
    case GroupKind::optimizer:
      return "optimizer";
    case GroupKind::cp:
      return "cp";
    case GroupKind::ep:
      return "ep";
  }
  return "?";
}

std::string_view to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::all_reduce:
      return "all_reduce";
    case CollectiveKind::all_gather:
      return "all_gather";
    case CollectiveKind::reduce_scatter:
      return "reduce_scatter";
    case CollectiveKind::broadcast:
      return "broadcast";
    case CollectiveKind::reduce:
      return "reduce";
    case CollectiveKind::all_to_all:
      return "all_to_all";
    case CollectiveKind::sendrecv:
      return "sendrecv";
  }
  return "?";
}

std::string_view to_string(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::parameters:
      return "parameters";
    case MemoryCategory::gradients:
      return "gradients";
    case MemoryCategory::optimizer_state:
      return "optimizer_state";
    case MemoryCategory::activations:
      return "activations";
    case MemoryCategory::comm_buffers:
      return "comm_buffers";
    case MemoryCategory::temporaries:
      return "temporaries";
  }
  return "?";
}

Flops Gemm::flops() const {
  return Flops::of(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                   static_cast<double>(batch));
}

Gemm Gemm::of(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, DType dtype,
              bool transpose_a, bool transpose_b) {
  const auto dim = [](std::int64_t v, const char* field) {
    if (v < 0 || v > std::numeric_limits<Dim>::max()) {
      throw Infeasible(fmt::format("GEMM dimension {} = {} is outside 0 to {}", field, v,
                                   std::numeric_limits<Dim>::max()));
    }
    return static_cast<Dim>(v);
  };
  return Gemm{dim(m, "m"),   dim(n, "n"), dim(k, "k"), dim(batch, "batch"),
              dtype,          transpose_a, transpose_b, dtype,
              false};
}

Gemm Gemm::accumulating_into(DType c) const {
  Gemm g = *this;
  g.c_dtype = c;
  g.accumulate = true;
  return g;
}

Bytes Gemm::min_bytes() const {
  const std::int64_t e = bytes_per_element(dtype);
  const std::int64_t ce = bytes_per_element(c_dtype) * (accumulate ? 2 : 1);
  const std::int64_t m64 = m, n64 = n, k64 = k;
  return Bytes::of(batch * (e * (m64 * k64 + k64 * n64) + ce * m64 * n64));
}

Flops Op::flops() const {
  if (const auto* g = std::get_if<Gemm>(&payload)) return g->flops();
  if (const auto* k = std::get_if<Kernel>(&payload)) return k->flops;
  return Flops::zero();
}

Flops Op::tensor_core_flops() const {
  if (const auto* g = std::get_if<Gemm>(&payload)) return g->flops();
  if (const auto* k = std::get_if<Kernel>(&payload); k != nullptr && !memory_bound(kernel_class))
    return k->flops;
  return Flops::zero();
}

NameId NameTable::intern(std::string_view name) {
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(std::string(name), id);
  return id;
}

void merge_names(Program& program, std::span<NameTable> tables) {
  if (tables.empty()) return;
  // The first rank's table is the start of the merged one: taken over as it is.
  program.names = std::move(tables.front());
  // Per rank, its ids in the merged table; empty when they are its own.
  std::vector<std::vector<NameId>> id_of(tables.size());
  for (std::size_t r = 1; r < tables.size(); ++r) {
    // A rank's table holds its names in order of first use, so interning them in id order
    // assigns the ids a shared table would have assigned op by op.
    const NameTable& table = tables[r];
    std::vector<NameId>& ids = id_of[r];
    ids.resize(table.size());
    bool same = true;
    for (std::size_t k = 0; k < table.size(); ++k) {
      ids[k] = program.names.intern(table.name(static_cast<NameId>(k)));
      same = same && ids[k] == static_cast<NameId>(k);
    }
    if (same) ids.clear();
  }
  // Renumbering reads and writes every op of the ranks whose ids moved (most of a 3072-GPU
  // Program's 680 MB): each rank on its own, on all cores.
  for_each_in_parallel(tables.size(), [&](std::size_t r) {
    const std::vector<NameId>& ids = id_of[r];
    if (ids.empty()) return;
    for (Op& op : program.ranks[r].ops)
      op.name = ids[static_cast<std::size_t>(op.name)];
  });
}

Rank RankAxes::translate(Rank to, Rank from, Rank image) const {
  // Digit by digit in the mixed radix (T, C, D, P), each sum taken around its axis.
  Rank out = 0;
  Rank place = 1;
  for (const std::int32_t size : {tp, cp, dp, pp}) {
    const Rank digit =
        (to / place % size + image / place % size - from / place % size + size) % size;
    out += digit * place;
    place *= size;
  }
  return out;
}

std::size_t Program::op_count() const {
  std::size_t n = 0;
  for (const RankProgram& r : ranks)
    n += r.ops.size();
  return n;
}

std::string op_label(const Program& program, const Op& op) {
  const std::string_view name = program.names.name(op.name);
  if (op.tag.layer == Tag::kNoLayer) return std::string(name);
  return fmt::format("L{} {}", op.tag.layer, name);
}

}  // namespace trainsim::program
