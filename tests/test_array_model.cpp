// Compute-array cycle model: exact SCALE-Sim v2 fold counts and cycles for the three systolic
// dataflows, vector-MAC passes, utilisation, the vector unit, errors, and a brute-force
// fold-by-fold cross-check. Derivations are inline.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "config/accelerator_loader.h"
#include "spec/accelerator_spec.h"
#include "timing/array_timing.h"
#include "util/checked_math.h"
#include "workload/shape.h"

using reusesim::timing::ArrayCycles;
using reusesim::timing::gemm_cycles;
using reusesim::timing::GemmShape;
using reusesim::timing::vector_cycles;
namespace spec = reusesim::spec;

namespace {

spec::ComputeSpec systolic(std::int64_t rows, std::int64_t cols, spec::Dataflow dataflow) {
  spec::ComputeSpec spec;
  spec.kind = spec::ArrayKind::systolic;
  spec.rows = rows;
  spec.cols = cols;
  spec.dataflow = dataflow;
  spec.clock_mhz = 1000;
  spec.vector_ops_per_cycle = 16;
  return spec;
}

spec::ComputeSpec vector_mac(std::int64_t units, std::int64_t lanes) {
  spec::ComputeSpec spec;
  spec.kind = spec::ArrayKind::vector_mac;
  spec.units = units;
  spec.lanes = lanes;
  spec.clock_mhz = 250;
  spec.vector_ops_per_cycle = 16;
  return spec;
}

GemmShape gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  return shape;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("16x16 systolic array, GEMM M=100 N=32 K=48, all three dataflows", "[array]") {
  // M*N*K = 100*32*48 = 153600 MACs; the array does 256 MACs per cycle.
  SECTION("ws: (K, N) on (R, C), M streamed") {
    // folds = ceil(48/16) * ceil(32/16) = 3 * 2 = 6; per fold 2*16 + 16 + 100 - 2 = 146; 6 * 146 = 876.
    const ArrayCycles result = gemm_cycles(systolic(16, 16, spec::Dataflow::ws), gemm(100, 32, 48));
    CHECK(result.folds == 6);
    CHECK(result.cycles == 876);
    CHECK(result.utilization == Approx(153600.0 / (876.0 * 256.0)));  // 0.6849
  }
  SECTION("os: (M, N) on (R, C), K streamed") {
    // folds = ceil(100/16) * ceil(32/16) = 7 * 2 = 14; per fold 48 + 16 + 16 - 2 = 78; 14 * 78 = 1092.
    const ArrayCycles result = gemm_cycles(systolic(16, 16, spec::Dataflow::os), gemm(100, 32, 48));
    CHECK(result.folds == 14);
    CHECK(result.cycles == 1092);
    CHECK(result.utilization == Approx(153600.0 / (1092.0 * 256.0)));  // 0.5495
  }
  SECTION("is: (K, M) on (R, C), N streamed") {
    // folds = ceil(48/16) * ceil(100/16) = 3 * 7 = 21; per fold 2*16 + 16 + 32 - 2 = 78; 21 * 78 = 1638.
    const ArrayCycles result = gemm_cycles(systolic(16, 16, spec::Dataflow::is), gemm(100, 32, 48));
    CHECK(result.folds == 21);
    CHECK(result.cycles == 1638);
    CHECK(result.utilization == Approx(153600.0 / (1638.0 * 256.0)));  // 0.3663
  }
}

TEST_CASE("a GEMM smaller than the array: one fold, fill and drain dominate", "[array]") {
  // M=N=K=4 on 16x16: 64 MACs, one fold whatever the dataflow.
  const GemmShape tiny = gemm(4, 4, 4);
  // os: 4 + 16 + 16 - 2 = 34 cycles; utilisation 64 / (34 * 256) = 0.00735.
  const ArrayCycles os = gemm_cycles(systolic(16, 16, spec::Dataflow::os), tiny);
  CHECK(os.folds == 1);
  CHECK(os.cycles == 34);
  CHECK(os.utilization == Approx(64.0 / (34.0 * 256.0)));
  // ws: 2*16 + 16 + 4 - 2 = 50 cycles; is: the same (N = M = 4 streamed).
  const ArrayCycles ws = gemm_cycles(systolic(16, 16, spec::Dataflow::ws), tiny);
  CHECK(ws.folds == 1);
  CHECK(ws.cycles == 50);
  CHECK(ws.utilization == Approx(64.0 / (50.0 * 256.0)));
  CHECK(gemm_cycles(systolic(16, 16, spec::Dataflow::is), tiny).cycles == 50);
}

TEST_CASE("dimensions that do not divide the array cost whole folds", "[array]") {
  const spec::ComputeSpec ws8 = systolic(8, 8, spec::Dataflow::ws);
  // K=8, N=16 divide 8x8: folds = 1 * 2 = 2; per fold 2*8 + 8 + 10 - 2 = 32; 64 cycles.
  const ArrayCycles even = gemm_cycles(ws8, gemm(10, 16, 8));
  CHECK(even.folds == 2);
  CHECK(even.cycles == 64);
  // K=9, N=17: folds = ceil(9/8) * ceil(17/8) = 2 * 3 = 6; per fold still 32; 192 cycles,
  // 3x the time for 1.195x the work (10*17*9 = 1530 vs 10*16*8 = 1280 MACs).
  const ArrayCycles ragged = gemm_cycles(ws8, gemm(10, 17, 9));
  CHECK(ragged.folds == 6);
  CHECK(ragged.cycles == 192);
  CHECK(ragged.utilization == Approx(1530.0 / (192.0 * 64.0)));  // 0.1245
  CHECK(even.utilization == Approx(1280.0 / (64.0 * 64.0)));      // 0.3125
  CHECK(ragged.utilization < even.utilization);
}

TEST_CASE("non-square arrays: R and C are not interchangeable", "[array]") {
  // 32 rows x 8 cols, GEMM M=40 N=20 K=10.
  // os: folds = ceil(40/32) * ceil(20/8) = 2 * 3 = 6; per fold 10 + 32 + 8 - 2 = 48; 288.
  const ArrayCycles os = gemm_cycles(systolic(32, 8, spec::Dataflow::os), gemm(40, 20, 10));
  CHECK(os.folds == 6);
  CHECK(os.cycles == 288);
  // ws: folds = ceil(10/32) * ceil(20/8) = 1 * 3 = 3; per fold 2*32 + 8 + 40 - 2 = 110; 330.
  const ArrayCycles ws = gemm_cycles(systolic(32, 8, spec::Dataflow::ws), gemm(40, 20, 10));
  CHECK(ws.folds == 3);
  CHECK(ws.cycles == 330);
  // The transposed array, 8 x 32, ws: folds = ceil(10/8) * ceil(20/32) = 2 * 1 = 2;
  // per fold 2*8 + 32 + 40 - 2 = 86; 172.
  const ArrayCycles ws_t = gemm_cycles(systolic(8, 32, spec::Dataflow::ws), gemm(40, 20, 10));
  CHECK(ws_t.folds == 2);
  CHECK(ws_t.cycles == 172);
  // is on 32 x 8: folds = ceil(10/32) * ceil(40/8) = 1 * 5 = 5; per fold 2*32 + 8 + 20 - 2 = 90; 450.
  const ArrayCycles is = gemm_cycles(systolic(32, 8, spec::Dataflow::is), gemm(40, 20, 10));
  CHECK(is.folds == 5);
  CHECK(is.cycles == 450);
}

TEST_CASE("256x256 weight-stationary TPU-like array on a 4096x4096 GEMV", "[array]") {
  // M=1 (one input vector), N=4096 outputs, K=4096 inputs.
  // folds = ceil(4096/256) * ceil(4096/256) = 16 * 16 = 256; per fold 2*256 + 256 + 1 - 2 = 767;
  // 256 * 767 = 196352 cycles. Utilisation 4096*4096 / (196352 * 65536) = 16777216 / 12868124672:
  // every weight is loaded for a single use.
  const ArrayCycles result = gemm_cycles(systolic(256, 256, spec::Dataflow::ws), gemm(1, 4096, 4096));
  CHECK(result.folds == 256);
  CHECK(result.cycles == 196352);
  CHECK(result.utilization == Approx(16777216.0 / 12868124672.0));  // 0.0013
  CHECK(result.utilization < 0.0014);
}

TEST_CASE("double-buffered stationary tiles: later folds start max(T, R) apart", "[array]") {
  spec::ComputeSpec array = systolic(256, 256, spec::Dataflow::ws);
  array.double_buffered_stationary = true;
  // The 4096 x 4096 GEMV: the first fold 2*256 + 256 + 1 - 2 = 767; each of the other 255 waits
  // for its tile to shift in, max(T, R) = max(1, 256) = 256: 767 + 255 * 256 = 66047 cycles, a
  // tile per 256 cycles instead of per 767.
  CHECK(gemm_cycles(array, gemm(1, 4096, 4096)).cycles == 66047);
  // 16 x 16, M=100 N=32 K=48 (the 6 folds of 146 cycles above): 146 + 5 * max(100, 16) = 646;
  // the load hides behind the stream, and the fill and drain are paid once.
  spec::ComputeSpec small = systolic(16, 16, spec::Dataflow::ws);
  small.double_buffered_stationary = true;
  CHECK(gemm_cycles(small, gemm(100, 32, 48)).cycles == 646);
  // is keeps the inputs in place: 21 folds of 78, N = 32 streamed: 78 + 20 * max(32, 16) = 718.
  small.dataflow = spec::Dataflow::is;
  CHECK(gemm_cycles(small, gemm(100, 32, 48)).cycles == 718);
  // One fold has nothing to overlap: as without the second register.
  CHECK(gemm_cycles(small, gemm(8, 8, 8)).cycles == gemm_cycles(systolic(16, 16, spec::Dataflow::is), gemm(8, 8, 8)).cycles);
}

TEST_CASE("vector_mac 16 units x 16 lanes", "[array]") {
  const spec::ComputeSpec snowflake = vector_mac(16, 16);
  SECTION("K=3 (a first conv layer with 1x1 kernels on RGB): 13 of 16 lanes idle") {
    // passes = M * ceil(N/16) = 100 * ceil(64/16) = 400; per pass ceil(3/16) = 1 cycle; 400 cycles.
    // Utilisation 100*64*3 / (400 * 256) = 19200 / 102400 = 3/16.
    const ArrayCycles result = gemm_cycles(snowflake, gemm(100, 64, 3));
    CHECK(result.folds == 400);
    CHECK(result.cycles == 400);
    CHECK(result.utilization == Approx(3.0 / 16.0));
  }
  SECTION("K=4096 GEMV: the lanes are full") {
    // passes = 1 * ceil(4096/16) = 256; per pass ceil(4096/16) = 256 cycles; 65536 cycles.
    // Utilisation 4096*4096 / (65536 * 256) = 1.
    const ArrayCycles result = gemm_cycles(snowflake, gemm(1, 4096, 4096));
    CHECK(result.folds == 256);
    CHECK(result.cycles == 65536);
    CHECK(result.utilization == Approx(1.0));
  }
  SECTION("N not a multiple of the units") {
    // passes = 2 * ceil(40/16) = 2 * 3 = 6; per pass ceil(32/16) = 2; 12 cycles.
    // Utilisation 2*40*32 / (12 * 256) = 2560 / 3072 = 5/6 (8 of 16 units idle in the last pass).
    const ArrayCycles result = gemm_cycles(snowflake, gemm(2, 40, 32));
    CHECK(result.folds == 6);
    CHECK(result.cycles == 12);
    CHECK(result.utilization == Approx(5.0 / 6.0));
  }
  SECTION("K not a multiple of the lanes") {
    // passes = 3 * ceil(16/16) = 3; per pass ceil(27/16) = 2 (3x3x3 kernel); 6 cycles.
    // Utilisation 3*16*27 / (6 * 256) = 1296 / 1536 = 0.84375.
    const ArrayCycles result = gemm_cycles(snowflake, gemm(3, 16, 27));
    CHECK(result.folds == 3);
    CHECK(result.cycles == 6);
    CHECK(result.utilization == Approx(0.84375));
  }
}

// lane_dimension: what a vMAC's 16 lanes consume side by side (16 units x 16 lanes, 256 MACs).
TEST_CASE("vector_mac lanes along a kernel row leave the row's tail lanes idle", "[array]") {
  spec::ComputeSpec snowflake = vector_mac(16, 16);
  snowflake.lane_dimension = spec::LaneDimension::kernel_row;
  SECTION("AlexNet conv1, 11x11x3: rows of 33 values") {
    // A row of 11 x 3 = 33 values takes ceil(33/16) = 3 cycles (33 of 48 lane slots busy); K = 121 x 3
    // = 363 is 11 rows: 33 cycles a pass. passes = M * ceil(64/16) = 10 * 4 = 40; 40 x 33 = 1320
    // cycles. Utilisation 10*64*363 / (1320 * 256) = 232320 / 337920 = 33/48. Lanes along K would
    // take ceil(363/16) = 23 cycles a pass (363/368 busy).
    GemmShape conv1 = gemm(10, 64, 363);
    conv1.k_row = 33;
    const ArrayCycles result = gemm_cycles(snowflake, conv1);
    CHECK(result.folds == 40);
    CHECK(result.cycles == 1320);
    CHECK(result.utilization == Approx(33.0 / 48.0));
  }
  SECTION("ResNet-50 conv1, 7x7x3: rows of 21 values") {
    // ceil(21/16) = 2 cycles a row (21 of 32 lane slots), 7 rows: 14 cycles a pass; 1 x 4 passes.
    GemmShape conv1 = gemm(1, 64, 147);
    conv1.k_row = 21;
    const ArrayCycles result = gemm_cycles(snowflake, conv1);
    CHECK(result.cycles == 56);
    CHECK(result.utilization == Approx(21.0 / 32.0));
  }
  SECTION("a K tile that cuts a row ends on a shorter one") {
    // K tile 40 of rows of 33: one row (3 cycles) and 7 values (1 cycle): 4 cycles a pass, 1 pass.
    GemmShape tile = gemm(1, 16, 40);
    tile.k_row = 33;
    CHECK(gemm_cycles(snowflake, tile).cycles == 4);
  }
  SECTION("without a row (a linear layer) the row is all of K") {
    CHECK(gemm_cycles(snowflake, gemm(1, 16, 363)).cycles == 23);
  }
}

TEST_CASE("vector_mac lanes along output channels", "[array]") {
  spec::ComputeSpec snowflake = vector_mac(16, 16);
  snowflake.lane_dimension = spec::LaneDimension::output_channels;
  // Lanes take 16 of N, units 16 of M, one K value a cycle: passes = ceil(20/16) * ceil(40/16) =
  // 2 * 3 = 6, K = 27 cycles each: 162 cycles. Utilisation 20*40*27 / (162 * 256) = 21600 / 41472.
  const ArrayCycles result = gemm_cycles(snowflake, gemm(20, 40, 27));
  CHECK(result.folds == 6);
  CHECK(result.cycles == 162);
  CHECK(result.utilization == Approx(21600.0 / 41472.0));
}

TEST_CASE("utilisation reaches 1 only without fill and drain", "[array]") {
  // os 4x4, M=N=4, K=1000: one fold, 1000 + 4 + 4 - 2 = 1006 cycles; 16000 / (1006 * 16) = 0.994.
  const ArrayCycles os = gemm_cycles(systolic(4, 4, spec::Dataflow::os), gemm(4, 4, 1000));
  CHECK(os.cycles == 1006);
  CHECK(os.utilization == Approx(1000.0 / 1006.0));
  CHECK(os.utilization < 1.0);
  // vector_mac with dividing dims has no fill: exactly 1.
  CHECK(gemm_cycles(vector_mac(4, 8), gemm(3, 8, 16)).utilization == 1.0);
}

TEST_CASE("vector unit: ceil(ops / vector_ops_per_cycle)", "[array]") {
  const spec::ComputeSpec spec = systolic(16, 16, spec::Dataflow::ws);  // vector_ops_per_cycle = 16
  CHECK(vector_cycles(spec, 0) == 0);
  CHECK(vector_cycles(spec, 1) == 1);
  CHECK(vector_cycles(spec, 16) == 1);
  CHECK(vector_cycles(spec, 17) == 2);
  CHECK(vector_cycles(spec, 1000) == 63);  // 62.5 rounds up
  // 55*55*96 ReLU outputs = 290400 ops / 16 = 18150 exactly.
  CHECK(vector_cycles(spec, 290400) == 18150);
  spec::ComputeSpec one = spec;
  one.vector_ops_per_cycle = 1;
  CHECK(vector_cycles(one, 12345) == 12345);
  // No a + b - 1 overflow near the top of the range.
  CHECK(vector_cycles(spec, INT64_MAX) == INT64_MAX / 16 + 1);
}

TEST_CASE("vector unit GEMM: two ops a MAC, ceil(2 x MACs / vector_ops_per_cycle)", "[array]") {
  using reusesim::timing::gemm_cycles_on;
  using reusesim::timing::GemmUnit;
  const spec::ComputeSpec spec = systolic(16, 16, spec::Dataflow::ws);  // vector_ops_per_cycle = 16
  // M 1, N 10, K 128: 1,280 MACs = 2,560 ops / 16 = 160 cycles (the array: 8 folds of 2*16 + 16 + 1 - 2
  // = 47 cycles = 376).
  CHECK(reusesim::timing::vector_gemm_cycles(spec, gemm(1, 10, 128)) == 160);
  CHECK(gemm_cycles_on(spec, gemm(1, 10, 128), GemmUnit::vector) == 160);
  CHECK(gemm_cycles_on(spec, gemm(1, 10, 128), GemmUnit::array) == 376);
  // 3 MACs = 6 ops: one cycle of 16 ops, not a fraction.
  CHECK(gemm_cycles_on(spec, gemm(1, 1, 3), GemmUnit::vector) == 1);
  // Groups are more MACs, one after the other on the lanes: GPT-2's decode A V on tpu_v4i's 1,024
  // ops a cycle, 12 heads of M 1, N 64, K 1,024: 2 x 786,432 / 1,024 = 1,536 cycles.
  spec::ComputeSpec wide = spec;
  wide.vector_ops_per_cycle = 1024;
  CHECK(gemm_cycles_on(wide, GemmShape{1, 64, 1024, 12}, GemmUnit::vector) == 1536);
  CHECK_THROWS_WITH(gemm_cycles_on(spec, gemm(1, 0, 3), GemmUnit::vector), "GEMM dimension N must be positive, got 0");
}

TEST_CASE("errors: zero dimensions, empty arrays, overflow", "[array]") {
  const spec::ComputeSpec ws = systolic(16, 16, spec::Dataflow::ws);
  CHECK_THROWS_WITH(gemm_cycles(ws, gemm(0, 32, 48)), "GEMM dimension M must be positive, got 0");
  CHECK_THROWS_WITH(gemm_cycles(ws, gemm(100, 0, 48)), "GEMM dimension N must be positive, got 0");
  CHECK_THROWS_WITH(gemm_cycles(ws, gemm(100, 32, 0)), "GEMM dimension K must be positive, got 0");
  CHECK_THROWS_AS(gemm_cycles(ws, gemm(-1, 32, 48)), std::invalid_argument);
  CHECK_THROWS_AS(gemm_cycles(vector_mac(16, 16), gemm(100, 32, 0)), std::invalid_argument);

  CHECK_THROWS_WITH(gemm_cycles(systolic(0, 16, spec::Dataflow::os), gemm(1, 1, 1)),
                    "systolic array rows must be positive, got 0");
  CHECK_THROWS_WITH(gemm_cycles(systolic(16, 0, spec::Dataflow::os), gemm(1, 1, 1)),
                    "systolic array cols must be positive, got 0");
  CHECK_THROWS_WITH(gemm_cycles(vector_mac(0, 16), gemm(1, 1, 1)), "vector_mac units must be positive, got 0");
  CHECK_THROWS_WITH(gemm_cycles(vector_mac(16, 0), gemm(1, 1, 1)), "vector_mac lanes must be positive, got 0");

  spec::ComputeSpec no_vector = ws;
  no_vector.vector_ops_per_cycle = 0;
  CHECK_THROWS_WITH(vector_cycles(no_vector, 10), "vector_ops_per_cycle must be positive, got 0");
  CHECK_THROWS_WITH(vector_cycles(ws, -1), "vector op count must not be negative, got -1");

  // folds = 4 * 4 = 16 on a 1x1 ws array; per fold 2 + 1 + 2^62 - 2 = 2^62 + 1; 16 * that overflows.
  CHECK_THROWS_AS(gemm_cycles(systolic(1, 1, spec::Dataflow::ws), gemm(std::int64_t{1} << 62, 4, 4)),
                  reusesim::util::CountOverflow);
  // vector_mac: M * ceil(N / units) = 2^62 * 4 overflows.
  CHECK_THROWS_AS(gemm_cycles(vector_mac(1, 1), gemm(std::int64_t{1} << 62, 4, 1)), reusesim::util::CountOverflow);
}

TEST_CASE("closed form equals a brute-force fold-by-fold sum", "[array]") {
  // For random arrays and GEMMs, walk every fold of every dataflow, add the per-fold formula, and
  // count the MACs each fold really does (the tile it covers times the streamed dimension): the
  // folds must cover exactly M*N*K MACs, and the closed form must match cycles, folds and utilisation.
  std::mt19937_64 rng(20200823);
  std::uniform_int_distribution<std::int64_t> array_dim(1, 48);
  std::uniform_int_distribution<std::int64_t> gemm_dim(1, 300);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t r = array_dim(rng), c = array_dim(rng);
    const GemmShape shape = gemm(gemm_dim(rng), gemm_dim(rng), gemm_dim(rng));
    for (spec::Dataflow dataflow : {spec::Dataflow::os, spec::Dataflow::ws, spec::Dataflow::is}) {
      std::int64_t rows_dim = 0, cols_dim = 0, streamed = 0;
      if (dataflow == spec::Dataflow::os) rows_dim = shape.m, cols_dim = shape.n, streamed = shape.k;
      if (dataflow == spec::Dataflow::ws) rows_dim = shape.k, cols_dim = shape.n, streamed = shape.m;
      if (dataflow == spec::Dataflow::is) rows_dim = shape.k, cols_dim = shape.m, streamed = shape.n;
      std::int64_t cycles = 0, folds = 0, macs = 0;
      for (std::int64_t row0 = 0; row0 < rows_dim; row0 += r) {
        for (std::int64_t col0 = 0; col0 < cols_dim; col0 += c) {
          ++folds;
          cycles += dataflow == spec::Dataflow::os ? streamed + r + c - 2 : 2 * r + c + streamed - 2;
          macs += std::min(r, rows_dim - row0) * std::min(c, cols_dim - col0) * streamed;
        }
      }
      INFO("array " << r << "x" << c << " dataflow " << static_cast<int>(dataflow) << " GEMM M=" << shape.m
                    << " N=" << shape.n << " K=" << shape.k);
      REQUIRE(macs == shape.m * shape.n * shape.k);
      const ArrayCycles result = gemm_cycles(systolic(r, c, dataflow), shape);
      CHECK(result.folds == folds);
      CHECK(result.cycles == cycles);
      CHECK(result.utilization == Approx(static_cast<double>(macs) / (static_cast<double>(cycles) * r * c)));
      CHECK(result.utilization > 0.0);
      CHECK(result.utilization <= 1.0);
    }
    // vector_mac: walk M rows and groups of `units` outputs; each pass takes ceil(K / lanes) cycles.
    const std::int64_t units = array_dim(rng), lanes = array_dim(rng);
    std::int64_t cycles = 0, passes = 0, macs = 0;
    for (std::int64_t m = 0; m < shape.m; ++m) {
      for (std::int64_t n0 = 0; n0 < shape.n; n0 += units) {
        ++passes;
        cycles += ceil_div(shape.k, lanes);
        macs += std::min(units, shape.n - n0) * shape.k;
      }
    }
    REQUIRE(macs == shape.m * shape.n * shape.k);
    const ArrayCycles result = gemm_cycles(vector_mac(units, lanes), shape);
    CHECK(result.folds == passes);
    CHECK(result.cycles == cycles);
    CHECK(result.utilization == Approx(static_cast<double>(macs) / (static_cast<double>(cycles) * units * lanes)));
    CHECK(result.utilization <= 1.0);
  }
}

// A depthwise 3x3 conv of 8 channels on 6x6 outputs (batch 1): per channel M = 36, K = 9, N = 1.
TEST_CASE("groups whose blocks fit the array run side by side, block-diagonally", "[array]") {
  GemmShape depthwise = gemm(36, 1, 9);
  depthwise.groups = 8;
  SECTION("ws 32 x 16: three channels a fold") {
    // Each channel's block is 9 rows x 1 column: b = min(floor(32 / 9), floor(16 / 1)) = 3
    // channels a fold (rows 0-26 busy), folds = ceil(8 / 3) = 3, each 2*32 + 16 + 36 - 2 = 114
    // cycles: 342 (one channel after the other: 8 folds, 912).
    const ArrayCycles result = gemm_cycles(systolic(32, 16, spec::Dataflow::ws), depthwise);
    CHECK(reusesim::timing::groups_per_fold(systolic(32, 16, spec::Dataflow::ws), depthwise) == 3);
    CHECK(result.folds == 3);
    CHECK(result.cycles == 342);
    // 8 * 36 * 9 = 2,592 MACs in 342 cycles of 512 PEs.
    CHECK(result.utilization == Approx(2592.0 / (342.0 * 512.0)));
  }
  SECTION("ws 16 x 16: one 9-row block at a time") {
    // b = min(1, 16) = 1: 8 folds of 2*16 + 16 + 36 - 2 = 82 = 656.
    CHECK(gemm_cycles(systolic(16, 16, spec::Dataflow::ws), depthwise).cycles == 656);
  }
  SECTION("os 16 x 16: blocks of M x N = 36 x 1 do not fit 16 rows") {
    // rows-dim M = 36 > 16: one group at a time, ceil(36 / 16) = 3 folds each of 9 + 16 + 16 - 2
    // = 39 cycles: 8 * 3 * 39 = 936.
    CHECK(gemm_cycles(systolic(16, 16, spec::Dataflow::os), depthwise).cycles == 936);
  }
  SECTION("a grouped (not depthwise) conv: 4 groups of K = 8, N = 4 on ws 16 x 16") {
    // b = min(floor(16 / 8), floor(16 / 4)) = 2 groups a fold; folds = 2, each 2*16 + 16 + 36 - 2
    // = 82 cycles: 164.
    GemmShape grouped = gemm(36, 4, 8);
    grouped.groups = 4;
    CHECK(gemm_cycles(systolic(16, 16, spec::Dataflow::ws), grouped).cycles == 164);
  }
  SECTION("vector_mac: groups one after the other") {
    // Units share their lanes' inputs: 8 groups * 36 * ceil(1 / 4) = 288 passes of ceil(9 / 8) = 2
    // cycles = 576.
    const ArrayCycles result = gemm_cycles(vector_mac(4, 8), depthwise);
    CHECK(result.folds == 288);
    CHECK(result.cycles == 576);
  }
}

TEST_CASE("several arrays in a core split a GEMM's columns, streamed rows or groups, whichever ends first", "[array]") {
  const auto arrays_of = [](std::int64_t count, std::int64_t edge) {
    spec::ComputeSpec spec = systolic(edge, edge, spec::Dataflow::ws);
    spec.arrays = count;
    return spec;
  };
  SECTION("a GEMV's columns: four 128 x 128 arrays take 128 columns each") {
    // ws, M = 1, K = 128, N = 512. Columns: each array 128, one fold of 2*128 + 128 + 1 - 2 = 383.
    // Streamed rows: ceil(1 / 4) = 1 row but all 512 columns, 4 folds of 383 = 1,532; groups: 1 group,
    // the same 1,532. One 128 x 512 array: one fold of 2*128 + 512 + 1 - 2 = 767.
    const ArrayCycles four = gemm_cycles(arrays_of(4, 128), gemm(1, 512, 128));
    CHECK(four.cycles == 383);
    CHECK(four.folds == 1);
    // 65,536 MACs in 383 cycles of 4 x 16,384 PEs.
    CHECK(four.utilization == Approx(65536.0 / (383.0 * 65536.0)));
    CHECK(gemm_cycles(systolic(128, 512, spec::Dataflow::ws), gemm(1, 512, 128)).cycles == 767);
  }
  SECTION("a narrow GEMM's streamed rows: two 4 x 4 arrays take 50 rows each") {
    // ws, M = 100, K = 4, N = 4. Columns: ceil(4 / 2) = 2 each, one fold of 2*4 + 4 + 100 - 2 = 110.
    // Streamed rows: 50 each, one fold of 2*4 + 4 + 50 - 2 = 60. Groups: 1, 110. The rows win: 60.
    CHECK(gemm_cycles(arrays_of(2, 4), gemm(100, 4, 4)).cycles == 60);
  }
  SECTION("a depthwise conv's groups: two 4 x 4 arrays take 8 channels each") {
    // ws, 16 groups of M = 10, K = 9, N = 1 (9 rows > 4: no blocks side by side). Columns:
    // ceil(1 / 2) = 1, unchanged: 16 x ceil(9 / 4) = 48 folds of 2*4 + 4 + 10 - 2 = 20 = 960.
    // Rows: 5 each, 48 folds of 15 = 720. Groups: 8 each, 24 folds of 20 = 480.
    GemmShape depthwise = gemm(10, 1, 9);
    depthwise.groups = 16;
    const ArrayCycles result = gemm_cycles(arrays_of(2, 4), depthwise);
    CHECK(result.cycles == 480);
    CHECK(result.folds == 24);
  }
  SECTION("the columns when they end first, and one array is today's model") {
    // ws 4 x 4, M = 8, K = 4, N = 8 on two arrays. Columns: 4 each, one fold of 8 + 4 + 8 - 2 = 18.
    // Rows: 4 each but 8 columns, 2 folds of 8 + 4 + 4 - 2 = 14 = 28. The columns: 18, 1 fold.
    CHECK(gemm_cycles(arrays_of(2, 4), gemm(8, 8, 4)).cycles == 18);
    // One array: 2 folds of 18 = 36, as without the key.
    CHECK(gemm_cycles(arrays_of(1, 4), gemm(8, 8, 4)).cycles == 36);
    CHECK(gemm_cycles(systolic(4, 4, spec::Dataflow::ws), gemm(8, 8, 4)).cycles == 36);
  }
  SECTION("the peak counts every array") {
    // 4 x 128 x 128 MACs a cycle at 1 GHz, 2 ops a MAC: 131.072e12 ops/s.
    CHECK(arrays_of(4, 128).macs_per_cycle() == 65536);
    CHECK(arrays_of(4, 128).peak_ops_per_second() == Approx(131.072e12));
  }
}

// The SRAM roof, from the shipped configs and a starved variant.
TEST_CASE("SRAM roof: binds only when a buffer cannot feed the array's per-cycle demand", "[array]") {
  const std::string configs = std::string(REUSESIM_SOURCE_DIR) + "/configs/";
  // snowflake: 16 units x 16 lanes of 16-bit operands at 250 MHz, buffers at 250 MHz.
  //   inputs: 16 lanes x 2 B = 32 B/cycle from maps (4 banks x 32 B = 128 B/cycle): 4x the demand.
  //   weights: 256 x 2 B = 512 B/cycle from weights (16 banks x 32 B = 512 B/cycle): exactly the demand.
  CHECK_FALSE(reusesim::timing::sram_bound_ops_per_second(
                  reusesim::config::load_accelerator_file(configs + "snowflake.yaml")).has_value());
  // tpu_v1: ws 256 x 256 int8; 256 inputs x 1 B per cycle from the unified buffer, 8 banks x 32 B = 256 B.
  CHECK_FALSE(reusesim::timing::sram_bound_ops_per_second(
                  reusesim::config::load_accelerator_file(configs + "tpu_v1.yaml")).has_value());
  // small (ws 16 x 16 int8 at 1 GHz) with the input buffer cut to 1 bank x 4 B: 4 of the 16 B a cycle
  // the array wants, so a quarter of its 2 x 256 x 1e9 = 512 Gops/s peak: 128 Gops/s.
  const auto starved = reusesim::timing::sram_bound_ops_per_second(reusesim::config::load_accelerator_file(
      configs + "small.yaml", {"sram.buffers.inputs.banks=1"}));
  REQUIRE(starved.has_value());
  CHECK(*starved == Approx(128e9));
  // os wants 16 inputs and 16 weights a cycle; weights halved to 2 banks x 4 B = 8 B: half the peak.
  const auto os_half = reusesim::timing::sram_bound_ops_per_second(reusesim::config::load_accelerator_file(
      configs + "small.yaml", {"compute.dataflow=os", "sram.buffers.weights.banks=2"}));
  REQUIRE(os_half.has_value());
  CHECK(*os_half == Approx(256e9));
  // The same on two arrays: the inputs are broadcast (16 B a cycle), each array takes its own 16
  // weight columns (32 B a cycle against 8): a quarter of the 1.024e12 ops/s peak, 256e9 again.
  const auto os_two_arrays = reusesim::timing::sram_bound_ops_per_second(reusesim::config::load_accelerator_file(
      configs + "small.yaml", {"compute.dataflow=os", "sram.buffers.weights.banks=2", "compute.arrays=2"}));
  REQUIRE(os_two_arrays.has_value());
  CHECK(*os_two_arrays == Approx(256e9));
}
