#include "reproductions/tensor_schemes.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainsim::reproductions {

void check_states_plan(const reports::SchemeResult& row, const Scenario& stated) {
  if (row.problem) {
    throw std::runtime_error(
        fmt::format("{}: the {} scheme cannot run the stated configuration: {}", stated.name,
                    row.name, *row.problem));
  }
  const TensorParallel& ran = row.plan.tensor;
  const TensorParallel& file = stated.parallel.tensor;
  if (ran.kind != file.kind || ran.size != file.size || ran.depth != file.depth ||
      ran.grid_order != file.grid_order || row.plan.data.size != stated.parallel.data.size ||
      row.plan.recompute != stated.parallel.recompute) {
    throw std::logic_error(
        fmt::format("{}: the {} scheme compared is not the plan its scenario file states",
                    stated.name, row.name));
  }
}

double step_ratio(const reports::SchemeResult& a, const reports::SchemeResult& b) {
  if (!a.step_time || !b.step_time) return NAN;
  return *a.step_time / *b.step_time;
}

std::string memory_note(std::span<const reports::SchemeResult> rows) {
  std::string over;
  for (const reports::SchemeResult& r : rows) {
    if (r.step_time && !r.fits) over += (over.empty() ? "" : ", ") + r.name;
  }
  return over.empty() ? over : over + " over memory";
}

}  // namespace trainsim::reproductions
