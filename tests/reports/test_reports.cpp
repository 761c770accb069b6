#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "reports/scenario_run.hpp"
#include "reports/summary.hpp"
#include "reports/summary_table.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::program;

namespace {

// Two GPUs, one TP group; rank 1 is represented by rank 0. One GEMM, one all-reduce, one
// activation allocated and freed.
Program tiny_program() {
  Program p;
  p.world_size = 2;
  p.groups.push_back(Group{0, GroupKind::tp, {0, 1}, 0});
  RankProgram r;
  r.rank = 0;
  const NameId gemm_name = p.names.intern("mlp.fc1");
  const NameId ar_name = p.names.intern("mlp.allreduce");
  const NameId mem_name = p.names.intern("act");
  r.ops.push_back(Op{Alloc{1, Bytes::of(1000), MemoryCategory::activations}, Stream::compute,
                     Tag{0, 0, 0, Phase::forward}, mem_name, 0, 0});
  r.ops.push_back(Op{Gemm{1024, 1024, 1024, 1, DType::bf16, false, false}, Stream::compute,
                     Tag{0, 0, 0, Phase::forward}, gemm_name, 0, 0});
  r.dep_pool.push_back(1);
  r.ops.push_back(Op{Collective{CollectiveKind::all_reduce, 0, Bytes::of(4096), DType::bf16},
                     Stream::tp, Tag{0, 0, 0, Phase::forward}, ar_name, 0, 1});
  r.ops.push_back(Op{Free{1}, Stream::compute, Tag{0, 0, 0, Phase::forward}, mem_name, 0, 0});
  p.ranks.push_back(std::move(r));
  p.representative = {0, 0};
  return p;
}

sim::SimulationResult tiny_result() {
  sim::SimulationResult r;
  r.iteration_time = Time::from_ms(2);
  sim::RankTimeline t;
  t.rank = 0;
  t.ops = {{Time::zero(), Time::zero()},
           {Time::zero(), Time::from_ms(1)},
           {Time::from_ms(1), Time::from_ms(2)},
           {Time::from_ms(2), Time::from_ms(2)}};
  t.finished = Time::from_ms(2);
  r.timelines.push_back(t);
  r.tensor_core_flops = {tiny_program().ranks[0].ops[1].tensor_core_flops()};  // the GEMM
  sim::RankMemory m;
  m.rank = 0;
  m.peak = Bytes::of(1000);
  m.peak_op = 0;  // the activation allocation
  m.at_peak[static_cast<std::size_t>(MemoryCategory::activations)] = Bytes::of(1000);
  m.timeline.push_back({Time::zero(), m.at_peak});
  m.timeline.push_back({Time::from_ms(2), {}});
  r.memory.push_back(m);
  sim::TimeBreakdown b;
  b.compute = Time::from_ms(1);
  b.exposed_comm[static_cast<std::size_t>(GroupKind::tp)] = Time::from_ms(1);
  r.breakdown.push_back(b);
  return r;
}

Scenario tiny_scenario() {
  Scenario s;
  s.name = "tiny";
  s.gpus = 2;
  s.model = ModelSpec{1, 64, 4, 256, 16, 128, DType::bf16};
  s.training.global_batch = 2;
  s.training.micro_batch = 1;
  s.parallel.tensor.size = 2;
  return s;
}

hw::HardwareProfile tiny_hardware() {
  hw::HardwareProfile h;
  h.name = "tiny-gpu";
  h.gpu.peak[DType::bf16] = FlopRate::tflops(100);
  h.gpu.memory = Bytes::of(999);
  h.provenance["gpu.memory"] = "guess: test";
  return h;
}

}  // namespace

TEST_CASE("summary: FLOP rates, MFU and HFU follow from the program and the iteration time") {
  const Program p = tiny_program();
  const reports::Summary s = reports::summarize(tiny_scenario(), tiny_hardware(), p, tiny_result());
  // The GEMM counts once for each of the two world ranks it represents.
  CHECK(s.hardware_flops.count() == doctest::Approx(2.0 * 2.0 * 1024.0 * 1024.0 * 1024.0));
  CHECK(s.hardware_rate_per_gpu.flops_per_second() ==
        doctest::Approx(s.hardware_flops.count() / 2.0 / 2e-3));
  CHECK(s.hfu == doctest::Approx(s.hardware_rate_per_gpu.flops_per_second() / 100e12));
  CHECK(s.mfu == doctest::Approx(s.model_flops.count() / 2e-3 / 2.0 / 100e12));
  CHECK(s.tokens_per_s == doctest::Approx(32.0 / 2e-3));
  CHECK(s.memory.peak == Bytes::of(1000));
  CHECK_FALSE(s.memory.fits);  // 1000 B > 999 B capacity
  CHECK(s.memory.peak_during == "forward, micro batch 0: L0 act");
}

TEST_CASE("summary: a result of another Program is refused, not summed") {
  sim::SimulationResult other = tiny_result();
  other.tensor_core_flops.push_back(Flops::zero());  // two recorded ranks' worth
  CHECK_THROWS_AS(reports::summarize(tiny_scenario(), tiny_hardware(), tiny_program(), other),
                  std::invalid_argument);
}

TEST_CASE("summary table names every breakdown row and the memory verdict") {
  const Scenario scenario = tiny_scenario();
  const reports::Summary s =
      reports::summarize(scenario, tiny_hardware(), tiny_program(), tiny_result());
  const std::string text = reports::format_summary(scenario, tiny_hardware(), s);
  CHECK(text.find("iteration time") != std::string::npos);
  CHECK(text.find("exposed TP communication") != std::string::npos);
  CHECK(text.find("DOES NOT FIT") != std::string::npos);
  INFO(text);
  CHECK(text.find("(forward, micro batch 0: L0 act)") != std::string::npos);
  CHECK(text.find("1 figure of profile 'tiny-gpu' is a guess") != std::string::npos);
}

TEST_CASE("json report has the specified top-level keys and is deterministic") {
  const Scenario scenario = tiny_scenario();
  const reports::Summary s =
      reports::summarize(scenario, tiny_hardware(), tiny_program(), tiny_result());
  const auto j = reports::to_json(scenario, s);
  for (const char* key : {"iteration_time_s", "tokens_per_s", "tflops_per_gpu", "mfu", "hfu",
                          "breakdown_s", "memory"}) {
    CHECK_MESSAGE(j.contains(key), key);
  }
  CHECK(j["memory"].contains("peak_bytes"));
  CHECK(j["memory"]["fits"] == false);
  CHECK(j["breakdown_s"]["exposed_tp_comm"].get<double>() == doctest::Approx(1e-3));
  CHECK(j.dump() == reports::to_json(scenario, s).dump());
}

TEST_CASE(
    "chrome trace: valid JSON, one process per GPU, one thread per used stream, memory counter") {
  std::ostringstream out;
  reports::write_chrome_trace(out, tiny_program(), tiny_result());
  const auto trace = nlohmann::json::parse(out.str());
  int complete = 0, threads = 0, counters = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") ++complete;
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
    if (e["ph"] == "C") ++counters;
  }
  CHECK(complete == 2);  // the GEMM and the all-reduce; memory events are counters
  CHECK(threads == 2);   // compute and tp: the streams the tiny Program uses
  CHECK(counters == 2);
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "collective") {
      CHECK(e["tid"] == static_cast<int>(Stream::tp));
      CHECK(e["ts"].get<double>() == doctest::Approx(1000.0));
      CHECK(e["name"] == "L0 mlp.allreduce");
    }
  }
}

TEST_CASE("chrome trace of a pipeline: a schedule track with one F<mb>/B<mb> block per pass") {
  sim::ReplayOptions traced;  // as `simulate --trace` runs it: with the memory counters
  traced.record_memory_timeline = true;
  const reports::ScenarioRun run = reports::run_scenario_file(
      std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "scenarios/tests/tiny-pp2-interleaved.yaml",
      ProgramScope::representative, traced);
  std::ostringstream out;
  reports::write_chrome_trace(out, run.program, run.result);
  const auto trace = nlohmann::json::parse(out.str());
  // Per GPU, the blocks of the schedule track in time order; sends and receives on tracks of
  // their own (they progress concurrently).
  std::map<int, std::vector<std::pair<double, std::string>>> blocks;
  std::map<int, std::set<std::string>> tracks;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] == kStreamCount)
      blocks[e["pid"].get<int>()].emplace_back(e["ts"].get<double>(), e["name"]);
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tracks[e["pid"].get<int>()].insert(e["args"]["name"].get<std::string>());
  }
  for (const int gpu : {0, 4}) {
    CHECK(tracks[gpu].contains("pp send stream"));
    CHECK(tracks[gpu].contains("pp recv stream"));
  }
  const auto order = [&](int gpu) {
    auto list = blocks[gpu];
    std::sort(list.begin(), list.end());
    std::string names;
    for (const auto& [ts, name] : list)
      names += (names.empty() ? "" : " ") + name;
    return names;
  };
  // Megatron's interleaved order (§7.4, p = 2, v = 2, m = 4): warm-up 2(p-1) + (v-1)p = 4 on
  // stage 0, 2 on stage 1 (GPU 4), chunk 1 written ".c1".
  CHECK(order(0) == "F0 F1 F0.c1 F1.c1 F2 B0.c1 F3 B1.c1 F2.c1 B0 F3.c1 B1 B2.c1 B3.c1 B2 B3");
  CHECK(order(4) == "F0 F1 F0.c1 B0.c1 F1.c1 B1.c1 F2 B0 F3 B1 F2.c1 B2.c1 F3.c1 B3.c1 B2 B3");
}

TEST_CASE(
    "chrome trace with a host model: a host track of issuing and waits, no sync as a kernel") {
  const std::filesystem::path root(TRAINSIM_SOURCE_ROOT);
  const Scenario scenario =
      inputs::load_scenario(root / "scenarios/tests/tiny-pp2-interleaved.yaml");
  hw::HardwareProfile hw = inputs::load_hardware_profile(scenario.hardware_file);
  hw::HostSpec host;
  host.framework = "test";
  host.gemm = host.kernel = Time::from_us(30);
  host.collective = host.p2p = Time::from_us(40);
  host.sync_latency = Time::from_us(10);
  host.sync_points.fill(true);
  hw.host = host;
  const reports::ScenarioRun run = reports::run_scenario(scenario, hw);
  std::ostringstream out;
  reports::write_chrome_trace(out, run.program, run.result);
  const auto trace = nlohmann::json::parse(out.str());
  const int host_tid = static_cast<int>(Stream::host);
  int issuing = 0;
  int waits = 0;
  bool named = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["tid"] == host_tid)
      named = named || e["args"]["name"] == "host stream";
    if (e["ph"] != "X") continue;
    CHECK(e["dur"].get<double>() >= 0.0);
    CHECK(e["ts"].get<double>() < 1e9);  // nothing at Time::max()
    if (e["tid"] != host_tid) continue;
    if (e["cat"] == "host issue") ++issuing;
    if (e["cat"] == "host sync") ++waits;
  }
  CHECK(named);
  CHECK(issuing > 0);
  CHECK(waits > 0);  // the loss and gradient-norm reads, the pipeline's synchronisations
  CHECK(run.summary.breakdown.host > Time::zero());
}

TEST_CASE("atomic writes replace the file whole and leave no temporary behind") {
  const auto dir = std::filesystem::temp_directory_path() / "trainsim_atomic_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = dir / "out.json";
  documents::write_atomically(file, "first");
  documents::write_atomically(file, "second");
  std::ifstream in(file);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(contents == "second");
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 1);
  CHECK_THROWS_WITH_AS(documents::write_atomically(dir / "missing" / "x.json", "x"),
                       doctest::Contains("does not exist"), std::runtime_error);
  // A writer that fails leaves the previous file intact.
  CHECK_THROWS(documents::write_atomically(file, [](std::ostream& o) {
    o << "partial";
    throw std::runtime_error("boom");
  }));
  std::ifstream again(file);
  std::string kept((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  CHECK(kept == "second");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a writer killed mid-write leaves the old file and no temporary, stale ones go") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("trainsim_atomic_kill_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = dir / "trace.json";
  documents::write_atomically(file, "before");
  // A child that is killed (SIGKILL: no unwinding, no cleanup) while its writer runs.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      documents::write_atomically(file, [](std::ostream& out) {
        out << std::string(1 << 20, 'x');
        out.flush();
        ::raise(SIGKILL);
      });
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  const auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  // Without O_TMPFILE (overlayfs before Linux 6.6, NFS) the writer's named temporary stays
  // until the next write removes it (below); with it, nothing is left at all.
  const int probe = ::open(dir.c_str(), O_TMPFILE | O_WRONLY, 0600);
  if (probe >= 0) {
    ::close(probe);
    CHECK(entries() == std::vector<std::string>{"trace.json"});
  }
  std::ifstream in(file);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) ==
        "before");
  // A temporary of a dead writer (the child's pid, gone now) is removed by the next write; a
  // live writer's (ours) and other files' are left alone.
  const auto dead = dir / (".trace.json.tmp." + std::to_string(child));
  const auto live = dir / (".trace.json.tmp.1");  // init: alive
  const auto other = dir / (".other.json.tmp." + std::to_string(child));
  for (const auto& f : {dead, live, other})
    std::ofstream(f) << "left";
  documents::write_atomically(file, "after");
  CHECK(entries() == std::vector<std::string>{".other.json.tmp." + std::to_string(child),
                                              ".trace.json.tmp.1", "trace.json"});
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan description names the grid or cube and its order") {
  ParallelPlan p;
  p.tensor.kind = TensorKind::two_d;
  p.tensor.size = 4;
  CHECK(reports::plan_description(p).starts_with("TP 4 (2d, 2 x 2 grid, row-major) × PP 1 × DP 1"));
  p.tensor.kind = TensorKind::three_d;
  p.tensor.size = 64;
  p.tensor.grid_order = GridOrder::output_major;
  p.data.size = 2;
  p.data.zero = 1;
  CHECK(reports::plan_description(p) ==
        "TP 64 (3d, 4 x 4 x 4 cube, output-major) × PP 1 × DP 2 (ZeRO-1), recompute none");
}

TEST_CASE("breakdown: a wait is charged to what each op in the chain waited for") {
  // The last stage's tied-embedding all-reduce is queued on the DP stream behind the gradient
  // all-reduce: the optimizer's wait is mostly DP time, not embedding time. And the first
  // stage's waits for the second stage's gradients are pipeline bubble.
  // Without the host model: this tiny model is host-bound, its waits the host's.
  const Scenario scenario = inputs::load_scenario(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                                  "scenarios/tests/tiny-pp2-tp2-dp2.yaml");
  hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  hardware.host.reset();
  const reports::ScenarioRun run = reports::run_scenario(scenario, hardware);
  const sim::TimeBreakdown& b = run.result.breakdown.front();
  const auto exposed = [&](GroupKind k) { return b.exposed_comm[static_cast<std::size_t>(k)]; };
  CHECK(exposed(GroupKind::dp) > exposed(GroupKind::embedding));
  CHECK(b.bubble > Time::zero());
  Time total = b.compute + b.recompute + b.optimizer + b.bubble + b.other + b.host;
  for (const Time t : b.exposed_comm)
    total += t;
  CHECK(total == run.summary.iteration_time);
}
