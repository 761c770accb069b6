// nccl-tests' text output as raw rows (calibrate/nccl_tests_log.hpp): a real GB200 NVL72
// excerpt, the old (≤ 2022) and new (2025-10+) layouts, and the errors.
#include "calibrate/nccl_tests_log.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

const std::filesystem::path kData =
    std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "tests/calibrate/data/nccl-tests";

RawMeasurements parse(const std::string& text, const std::string& name = "all_reduce_perf.log") {
  std::istringstream in(text);
  return parse_nccl_tests_log(in, name);
}

std::string error_of(const std::string& text, const std::string& name = "all_reduce_perf.log") {
  try {
    (void)parse(text, name);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

const std::string kHeader =
    "#  Rank  0 Group  0 Pid   1 on  host-a device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid   1 on  host-a device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
    "time   algbw   busbw  #wrong\n";

TEST_CASE("the real GB200 NVL72 all-reduce: 72 ranks over 18 hosts, out-of-place times") {
  const RawMeasurements m = read_nccl_tests_log(kData / "all_reduce_perf-gb200-nvl72.log");
  REQUIRE(m.rows.size() == 5);
  for (const RawMeasurement& r : m.rows) {
    CHECK(r.benchmark == Benchmark::all_reduce);
    CHECK(r.group_size == 72);
    CHECK(r.tier == Tier::inter_node);
    CHECK(r.repetitions == 20);
    CHECK(r.verified);
  }
  CHECK(m.rows[0].bytes == Bytes::of(536870912));
  CHECK(m.rows[0].time.us() == doctest::Approx(1806.7));
  CHECK(m.rows[3].time.us() == doctest::Approx(10094.0));  // printed without decimals
  CHECK(m.environment.at("gpu") == "NVIDIA Graphics Device");
  CHECK(m.environment.at("ranks") == "72");
  CHECK(m.environment.at("hosts") == "18");
}

TEST_CASE("the old layout: no redop/root, 'error' for '#wrong', the program from the file name") {
  const RawMeasurements m = read_nccl_tests_log(kData / "sendrecv_perf-old-format.log");
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[0].benchmark == Benchmark::send_recv);
  CHECK(m.rows[0].group_size == 2);
  CHECK(m.rows[0].tier == Tier::intra_node);
  CHECK(m.rows[2].time.us() == doctest::Approx(760.0));
  CHECK(m.environment.at("gpu") == "NVIDIA A100-SXM4-80GB");
}

TEST_CASE("the new layout: version and program lines, unchecked rows, 16 ranks on 2 hosts") {
  // Named after another program: the program line decides.
  const RawMeasurements m = read_nccl_tests_log(kData / "all_gather_perf-new-format.log");
  REQUIRE(m.rows.size() == 4);
  CHECK(m.rows[0].benchmark == Benchmark::all_gather);
  CHECK(m.rows[0].group_size == 16);
  CHECK(m.rows[0].tier == Tier::inter_node);
  CHECK(m.rows[0].repetitions == 50);
  CHECK(m.rows[0].verified);  // N/A: validation off, the timing stands
  CHECK(m.rows[0].algorithm.find("unchecked") != std::string::npos);
  CHECK(m.environment.at("nccl-tests") == "2.17.6");
  CHECK(m.environment.at("nccl") == "22703");
  CHECK(m.environment.at("ranks per host") == "8 on gpu-node-0, 8 on gpu-node-1");
}

TEST_CASE("rows: zero-byte rows skipped, #wrong > 0 not verified, large times in exponent form") {
  const RawMeasurements m =
      parse(kHeader +
            "           0             0     float     sum      -1     5.10    0.00    0.00      0"
            "     5.00    0.00    0.00      0\n"
            "     1048576        262144     float     sum      -1    20.00   52.43   52.43      3"
            "    20.00   52.43   52.43      0\n"
            "   8589934592    2147483648     float     sum      -1  1.2e+05   71.58   71.58      0"
            "  1.2e+05   71.58   71.58      0\n");
  REQUIRE(m.rows.size() == 2);
  CHECK_FALSE(m.rows[0].verified);
  CHECK(m.rows[1].time.us() == doctest::Approx(1.2e5));
  CHECK(m.rows[0].line == 5);
}

TEST_CASE("bad logs: the error names file, line, column, field and what is valid") {
  CHECK(error_of("hello\n").find("all_reduce_perf.log:1:1: a data row before the column header") !=
        std::string::npos);
  CHECK(error_of("# nothing here\n").find("no data rows") != std::string::npos);
  const std::string row =
      "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0"
      "    20.00   52.43   52.43      0\n";
  CHECK(error_of(kHeader + row, "mystery.log").find("which collective?") != std::string::npos);
  CHECK(error_of("# Collective test starting: hypercube_perf\n" + kHeader + row)
            .find("'hypercube_perf' is none of them") != std::string::npos);
  // One rank only.
  CHECK(error_of("#  Rank  0 Group  0 Pid 1 on a device 0 [0x01] GPU\n"
                 "#  size count type redop root time algbw busbw #wrong\n" +
                 row)
            .find("1 device line(s)") != std::string::npos);
  // busbw / algbw is not the bus factor of 2 ranks' all-reduce (1.0).
  CHECK(error_of(
            kHeader +
            "     1048576        262144     float     sum      -1    20.00   52.43  100.00      0"
            "    20.00   52.43   52.43      0\n")
            .find("busbw / algbw = 1.907, but all_reduce over the 2 ranks") != std::string::npos);
  CHECK(error_of(kHeader + "     1048576        262144     float     sum      -1    fast   52.43"
                           "   52.43      0    20.00   52.43   52.43      0\n")
            .find(":4:57: time (us): expected a finite number >= 0, got 'fast'") !=
        std::string::npos);
  CHECK(error_of(kHeader + "     1048576        262144     float     sum      -1    20.00\n")
            .find("a data row of 6 fields") != std::string::npos);
  CHECK(error_of(kHeader + "    -1048576        262144     float     sum      -1    20.00   52.43"
                           "   52.43      0    20.00   52.43   52.43      0\n")
            .find("size: expected an integer in [0, ") != std::string::npos);
  CHECK_THROWS_AS((void)read_nccl_tests_log(kData / "missing.log"), ConfigError);
}

}  // namespace
}  // namespace trainsim::calibrate
