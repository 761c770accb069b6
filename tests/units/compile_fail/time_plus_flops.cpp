// Must not compile with TRAINSIM_EXPECT_COMPILE_ERROR: adding FLOPs to a time is not physical
#include "units/units.hpp"

using namespace trainsim;

void probe() {
  [[maybe_unused]] Time t = Time::from_us(4);
  [[maybe_unused]] Bytes b = Bytes::of(1024);
  [[maybe_unused]] Flops f = Flops::of(1e9);
  [[maybe_unused]] Bandwidth bw = Bandwidth::gb_per_s(300);
#ifdef TRAINSIM_EXPECT_COMPILE_ERROR
  [[maybe_unused]] auto bad = t + f;
#else
  [[maybe_unused]] auto good = t + t;
#endif
}
