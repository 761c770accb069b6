#include "models/parameter.hpp"

namespace trainsim {

Split split_for(Split one_d, Shape full, bool grid) {
  const bool one_d_split =
      one_d == Split::replicated || one_d == Split::rows || one_d == Split::columns;
  if (!grid || !one_d_split) return one_d;
  return one_d == Split::replicated || full.rows == 1 ? Split::column_chunks : Split::blocks;
}

Shape local_shape(Shape full, Split split, std::int64_t tp, std::int64_t q, std::int64_t ep) {
  switch (split) {
    case Split::experts:
      return {full.batch / ep, full.rows, full.cols};
    case Split::replicated:
      return full;
    case Split::rows:
      return {full.batch, full.rows / tp, full.cols};
    case Split::columns:
    case Split::gated_columns:
      return {full.batch, full.rows, full.cols / tp};
    case Split::blocks:
      return {full.batch, full.rows / q, full.cols / q};
    case Split::column_chunks:
      return {1, 1, full.numel() / (q * q)};
    case Split::cube_blocks:
    case Split::cube_blocks_swapped:
      return {full.batch, full.rows / (q * q), full.cols / q};
    case Split::cube_columns:
    case Split::cube_columns_swapped:
      return {full.batch, full.rows, full.cols / q};
  }
  return full;
}

}  // namespace trainsim
