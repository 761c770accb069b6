#pragma once
// A reproduction's report as bytes (models/byte_codec.hpp), for the processes of
// `mpirun -np N trainsim validate` to exchange: each runs its share of the reproductions and
// every process then holds every report, bit for bit, as if it had run them all. A claim map's
// evaluator (a function, used only while the map runs) does not travel.

#include "models/byte_codec.hpp"
#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

void encode(ByteWriter& out, const ReproductionReport& report);
ReproductionReport decode_report(ByteReader& in);

}  // namespace trainsim::reproductions
