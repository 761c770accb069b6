// `trainsim gemm-shapes`' pieces: the unique GEMMs of a recorded Program, and the shapes CSV
// written and read back, with errors that name file, line, column and what is valid.

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <variant>

#include "calibrate/gemm_shapes.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

program::Program tiny_program() {
  const Scenario s = inputs::load_scenario(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                           "scenarios" / "tests" / "tiny-tp2-dp2.yaml");
  return build_program(s, ProgramScope::representative);
}

TEST_CASE("every GEMM of the Program appears once, with its count") {
  const program::Program program = tiny_program();
  std::vector<GemmShape> shapes;
  collect_gemm_shapes(program, shapes);
  std::int64_t gemms = 0;
  std::set<decltype(GemmShape{}.key())> seen;
  for (const program::RankProgram& rank : program.ranks) {
    for (const program::Op& op : rank.ops) {
      const auto* g = std::get_if<program::Gemm>(&op.payload);
      if (g == nullptr) continue;
      ++gemms;
      seen.insert(
          GemmShape{g->m, g->n, g->k, g->batch, g->dtype, g->transpose_a, g->transpose_b, 0}.key());
    }
  }
  REQUIRE(gemms > 0);
  CHECK(shapes.size() == seen.size());
  std::int64_t counted = 0;
  std::set<decltype(GemmShape{}.key())> listed;
  for (const GemmShape& s : shapes) {
    counted += s.count;
    CHECK(s.count > 0);
    listed.insert(s.key());
  }
  CHECK(counted == gemms);
  CHECK(listed == seen);

  // A second Program's shapes merge: counts add up, nothing is listed twice.
  collect_gemm_shapes(program, shapes);
  CHECK(shapes.size() == seen.size());
  std::int64_t twice = 0;
  for (const GemmShape& s : shapes)
    twice += s.count;
  CHECK(twice == 2 * gemms);
}

TEST_CASE("the shapes CSV reads back what was written") {
  const std::vector<GemmShape> shapes{{2048, 12288, 4096, 1, DType::bf16, false, true, 96},
                                      {127, 3, 5, 32, DType::fp32, true, false, 1}};
  std::ostringstream out;
  write_gemm_shapes(out, shapes);
  CHECK(out.str() ==
        "m,n,k,batch,dtype,transpose_a,transpose_b,count\n"
        "2048,12288,4096,1,bf16,0,1,96\n"
        "127,3,5,32,fp32,1,0,1\n");
  std::istringstream in(out.str());
  const std::vector<GemmShape> back = parse_gemm_shapes(in, "shapes.csv");
  REQUIRE(back.size() == 2);
  CHECK(back[0].key() == shapes[0].key());
  CHECK(back[1].key() == shapes[1].key());
  CHECK(back[0].count == 96);
}

TEST_CASE("bad shapes files name file, line, column, the value and what is valid") {
  auto parse = [](const std::string& text) {
    std::istringstream in(text);
    return parse_gemm_shapes(in, "shapes.csv");
  };
  const std::string header = "m,n,k,batch,dtype,transpose_a,transpose_b,count\n";
  CHECK_THROWS_WITH_AS(parse("m,n,k\n1,2,3\n"), doctest::Contains("shapes.csv:1:1: header"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(header + "0,2,3,1,bf16,0,0,1\n"),
                       "shapes.csv:2:1: m: expected an integer in [1, 2147483647], got '0'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(header + "1,2,3,1,bf8,0,0,1\n"),
                       doctest::Contains("shapes.csv:2:5: dtype: expected one of"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(header + "1,2,3,1,bf16,2,0,1\n"),
                       "shapes.csv:2:6: transpose_a: expected an integer in [0, 1], got '2'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(header + "1,2,3\n"),
                       doctest::Contains("shapes.csv:2:1: expected 8 cells"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(""), doctest::Contains("no header"), ConfigError);
}

}  // namespace
}  // namespace trainsim::calibrate
