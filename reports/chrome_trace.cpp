#include "reports/chrome_trace.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <tuple>
#include <variant>

namespace trainsim::reports {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

// Microseconds with six decimals: exact to the picosecond.
std::string micros(Time t) {
  const std::int64_t ps = t.ps();
  const char* sign = ps < 0 ? "-" : "";
  const std::int64_t magnitude = ps < 0 ? -ps : ps;
  return fmt::format("{}{}.{:06d}", sign, magnitude / 1'000'000, magnitude % 1'000'000);
}

struct Category {
  std::string_view name;
  std::string args;
};

Category describe(const program::Program& program, const program::Op& op) {
  using namespace program;
  return std::visit(
      [&program](const auto& p) -> Category {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, Gemm>) {
          return {"gemm", fmt::format(R"("m":{},"n":{},"k":{},"batch":{},"gflop":{:.6g})", p.m, p.n,
                                      p.k, p.batch, p.flops().count() * 1e-9)};
        } else if constexpr (std::is_same_v<T, Kernel>) {
          return {"kernel", fmt::format(R"("bytes":{})", (p.read + p.written).count())};
        } else if constexpr (std::is_same_v<T, Collective>) {
          const Group& g = program.groups[static_cast<std::size_t>(p.group)];
          return {
              "collective",
              fmt::format(R"("collective":"{}","group":{},"group_kind":"{}","ranks":{},"bytes":{})",
                          to_string(p.kind), p.group, to_string(g.kind), g.ranks.size(),
                          p.size.count())};
        } else if constexpr (std::is_same_v<T, Send>) {
          return {"send", fmt::format(R"("peer":{},"bytes":{})", p.peer, p.size.count())};
        } else if constexpr (std::is_same_v<T, Recv>) {
          return {"recv", fmt::format(R"("peer":{},"bytes":{})", p.peer, p.size.count())};
        } else {
          return {"memory", ""};
        }
      },
      op.payload);
}

// One pass of a pipeline schedule on one GPU: consecutive compute-stream ops of one micro
// batch, chunk and direction.
struct PassBlock {
  bool forward = true;
  std::int32_t micro_batch = 0;
  std::int16_t chunk = 0;
  Time start;
  Time end;
};

bool has_transfers(const program::Program& program) {
  for (const program::RankProgram& r : program.ranks) {
    for (const program::Op& op : r.ops) {
      if (std::holds_alternative<program::Send>(op.payload) ||
          std::holds_alternative<program::Recv>(op.payload))
        return true;
    }
  }
  return false;
}

// The rank's forward and backward passes (recomputation counts as backward), in order.
std::vector<PassBlock> pass_blocks(const program::RankProgram& rank,
                                   const sim::RankTimeline& timeline) {
  using namespace program;
  std::vector<PassBlock> blocks;
  for (std::size_t i = 0; i < rank.ops.size() && i < timeline.ops.size(); ++i) {
    const Op& op = rank.ops[i];
    if (op.stream != Stream::compute || !op.is_compute() || op.tag.phase == Phase::optimizer)
      continue;
    const bool forward = op.tag.phase == Phase::forward;
    const sim::OpTiming& t = timeline.ops[i];
    if (!blocks.empty() && blocks.back().forward == forward &&
        blocks.back().micro_batch == op.tag.micro_batch && blocks.back().chunk == op.tag.chunk) {
      blocks.back().end = t.end;
      continue;
    }
    blocks.push_back({forward, op.tag.micro_batch, op.tag.chunk, t.start, t.end});
  }
  return blocks;
}

// One end of a flow arrow: the op it starts or ends on.
struct FlowEnd {
  program::Rank rank = 0;
  program::Stream stream = program::Stream::compute;
  Time start;
  Time end;
};

// A send's k-th occurrence towards a peer meets that peer's k-th receive from it (programs
// match point-to-point transfers in order); a group's k-th collective is the same call on
// every member.
struct FlowIndex {
  std::map<std::tuple<program::Rank, program::Rank, std::int64_t>, FlowEnd> sends;  // from, to, k
  std::map<std::tuple<program::Rank, program::Rank, std::int64_t>, FlowEnd> recvs;  // from, to, k
  std::map<std::pair<program::GroupId, std::int64_t>, std::vector<FlowEnd>> collectives;
};

FlowIndex flow_index(const program::Program& program, const sim::SimulationResult& result,
                     const std::vector<std::size_t>& written) {
  using namespace program;
  FlowIndex index;
  for (const std::size_t r : written) {
    if (r >= result.timelines.size()) continue;
    const RankProgram& rank = program.ranks[r];
    const sim::RankTimeline& timeline = result.timelines[r];
    std::map<Rank, std::int64_t> sent;
    std::map<Rank, std::int64_t> received;
    std::map<GroupId, std::int64_t> called;
    for (std::size_t i = 0; i < rank.ops.size() && i < timeline.ops.size(); ++i) {
      const Op& op = rank.ops[i];
      const sim::OpTiming& t = timeline.ops[i];
      if (t.end == Time::max()) continue;
      const FlowEnd end{rank.rank, op.stream, t.start, t.end};
      if (const auto* s = std::get_if<Send>(&op.payload)) {
        index.sends[{rank.rank, s->peer, sent[s->peer]++}] = end;
      } else if (const auto* v = std::get_if<Recv>(&op.payload)) {
        index.recvs[{v->peer, rank.rank, received[v->peer]++}] = end;
      } else if (const auto* c = std::get_if<Collective>(&op.payload)) {
        index.collectives[{c->group, called[c->group]++}].push_back(end);
      }
    }
  }
  return index;
}

std::string flow_event(char phase, std::int64_t id, std::string_view name, const FlowEnd& at,
                       Time ts) {
  return fmt::format(
      R"({{"name":"{}","cat":"flow","ph":"{}","id":{},"pid":{},"tid":{},"ts":{}{}}})", name, phase,
      id, at.rank, static_cast<int>(at.stream), micros(ts), phase == 'f' ? R"(,"bp":"e")" : "");
}

}  // namespace

std::vector<std::size_t> selected_ranks(const program::Program& program,
                                        const ChromeTraceOptions& options) {
  std::vector<std::size_t> out;
  if (options.ranks.empty()) {
    for (std::size_t r = 0; r < program.ranks.size(); ++r)
      out.push_back(r);
    return out;
  }
  for (const program::Rank wanted : options.ranks) {
    const auto it =
        std::find_if(program.ranks.begin(), program.ranks.end(),
                     [wanted](const program::RankProgram& p) { return p.rank == wanted; });
    if (it == program.ranks.end()) {
      std::string recorded;
      for (const program::RankProgram& p : program.ranks)
        recorded += (recorded.empty() ? "" : ", ") + std::to_string(p.rank);
      throw std::invalid_argument(fmt::format(
          "GPU {} was not recorded; the recorded GPUs are {} (simulate --full records every GPU)",
          wanted, recorded));
    }
    const auto index = static_cast<std::size_t>(it - program.ranks.begin());
    if (std::find(out.begin(), out.end(), index) == out.end()) out.push_back(index);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_chrome_trace(std::ostream& out, const program::Program& program,
                        const sim::SimulationResult& result, const ChromeTraceOptions& options) {
  using namespace program;
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&out, &first](const std::string& event) {
    if (!first) out << ",\n";
    out << event;
    first = false;
  };

  const bool pipelined = has_transfers(program);
  const std::vector<std::size_t> written = selected_ranks(program, options);
  for (const std::size_t r : written) {
    const RankProgram& rank = program.ranks[r];
    emit(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"GPU {}"}}}})",
                     rank.rank, rank.rank));
    emit(fmt::format(
        R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})",
        rank.rank, rank.rank));
    // Name only the streams this GPU uses (a 1D rank has no 2D/3D communicator tracks).
    std::array<bool, kStreamCount> used{};
    for (const Op& op : rank.ops)
      used[static_cast<std::size_t>(op.stream)] = true;
    // The host's track: its syncs, and with a host model its stretches of issuing and waiting.
    constexpr auto host_tid = static_cast<std::size_t>(Stream::host);
    used[host_tid] =
        used[host_tid] || (r < result.timelines.size() && !result.timelines[r].host.empty());
    for (int s = 0; s < kStreamCount; ++s) {
      if (!used[static_cast<std::size_t>(s)]) continue;
      emit(fmt::format(
          R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{} stream"}}}})",
          rank.rank, s, to_string(static_cast<Stream>(s))));
    }
    if (r >= result.timelines.size()) continue;
    const sim::RankTimeline& timeline = result.timelines[r];
    // A pipeline's schedule, readable at a glance: one block per pass, "F3" / "B3" (chunk c
    // of an interleaved stage: "F3.c1"), on a track of its own.
    if (pipelined) {
      const int tid = kStreamCount;
      emit(fmt::format(
          R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"schedule"}}}})",
          rank.rank, tid));
      for (const PassBlock& b : pass_blocks(rank, timeline)) {
        std::string name = fmt::format("{}{}", b.forward ? 'F' : 'B', b.micro_batch);
        if (b.chunk > 0) name += fmt::format(".c{}", b.chunk);
        emit(fmt::format(
            R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"micro_batch":{},"chunk":{}}}}})",
            name, b.forward ? "forward" : "backward", rank.rank, tid, micros(b.start),
            micros(b.end - b.start), b.micro_batch, b.chunk));
      }
    }
    for (const sim::HostSpan& h : timeline.host) {
      const std::string name =
          h.sync < 0
              ? std::string("issuing")
              : fmt::format("wait: {}", escaped(program::op_label(
                                            program, rank.ops[static_cast<std::size_t>(h.sync)])));
      emit(fmt::format(
          R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{}}}})",
          name, h.sync < 0 ? "host issue" : "host sync", rank.rank, host_tid, micros(h.start),
          micros(h.end - h.start)));
    }
    for (std::size_t i = 0; i < rank.ops.size() && i < timeline.ops.size(); ++i) {
      const Op& op = rank.ops[i];
      if (op.is_memory_event()) continue;
      const sim::OpTiming& t = timeline.ops[i];
      if (t.end == Time::max()) continue;  // a host sync (its waits are the spans above)
      const Category c = describe(program, op);
      std::string args = fmt::format(R"("phase":"{}","micro_batch":{})", to_string(op.tag.phase),
                                     op.tag.micro_batch);
      if (op.tag.layer != Tag::kNoLayer) args += fmt::format(R"(,"layer":{})", op.tag.layer);
      if (!c.args.empty()) args += "," + c.args;
      const std::string name = program::op_label(program, op);
      emit(fmt::format(
          R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
          escaped(name), c.name, rank.rank, static_cast<int>(op.stream), micros(t.start),
          micros(t.end - t.start), args));
    }
    if (r < result.memory.size()) {
      for (const sim::MemoryPoint& p : result.memory[r].timeline) {
        std::string args;
        for (int c = 0; c < kMemoryCategoryCount; ++c) {
          if (c > 0) args += ",";
          args += fmt::format(R"("{}":{:.6f})", to_string(static_cast<MemoryCategory>(c)),
                              p.live[static_cast<std::size_t>(c)].as_double() / (1 << 30));
        }
        emit(fmt::format(R"x({{"name":"memory (GiB)","ph":"C","pid":{},"ts":{},"args":{{{}}}}})x",
                         rank.rank, micros(p.at), args));
      }
    }
  }
  // Flow arrows, after every op they bind to.
  const FlowIndex index = flow_index(program, result, written);
  std::int64_t id = 0;
  for (const auto& [key, send] : index.sends) {
    const auto recv = index.recvs.find(key);
    if (recv == index.recvs.end()) continue;
    ++id;
    emit(flow_event('s', id, "transfer", send, send.start));
    emit(flow_event('f', id, "transfer", recv->second, recv->second.start));
  }
  for (const auto& [key, members] : index.collectives) {
    if (members.size() < 2) continue;
    const auto by_start = [](const FlowEnd& a, const FlowEnd& b) {
      return std::tie(a.start, a.rank) < std::tie(b.start, b.rank);
    };
    const FlowEnd& first_in = *std::min_element(members.begin(), members.end(), by_start);
    const FlowEnd& last_in = *std::max_element(members.begin(), members.end(), by_start);
    if (first_in.rank == last_in.rank) continue;
    ++id;
    emit(flow_event('s', id, "waits for the last member", first_in, first_in.start));
    emit(flow_event('f', id, "waits for the last member", last_in, last_in.start));
  }
  out << "\n]}\n";
}

}  // namespace trainsim::reports
