#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/dram_trace_loader.h"
#include "hw/memory_tester.h"
#include "report/memtest_report.h"

namespace reusesim::cli {

namespace po = boost::program_options;

int memtest_command(const std::vector<std::string>& args) {
  return run_guarded("memtest", [&] {
    CommonOptions common;
    std::string dram_name, pattern, trace;
    std::int64_t requests = 100'000, request_bytes = 64, outstanding = 0;
    bool wall_time = false, per_channel = false;
    po::options_description options("reusesim memtest options");
    options.add_options()
        ("dram", po::value(&dram_name)->required(), "DRAM preset (ddr4-2400, hbm2, ...) or DRAM file")
        ("pattern", po::value(&pattern),
         "seq_read, seq_write, seq_mix, random_read, random_mix, stride_row, bank_conflict or tile")
        ("trace", po::value(&trace), "request file: <hex address> <R|W> [earliest cycle] per line, # comments")
        ("requests", po::value(&requests)->default_value(100'000), "requests to generate (patterns)")
        ("request-bytes", po::value(&request_bytes)->default_value(64), "bytes per request (a multiple of the burst); the DMA engine splits a request at row and channel boundaries, "
         "read latency counts each piece a DRAM channel serves, row_hit_rate each column command (burst)")
        ("outstanding", po::value(&outstanding),
         "requests in flight at most (default: 32 per channel, at most 4096). They limit throughput: by Little's law "
         "a stream moves at most outstanding x request bytes per request latency, so 32 requests of 64 bytes at "
         "about 70 ns carry about 29 GB/s, one HBM2 channel's worth; spread over 8 channels they leave 7 idle")
        ("per-channel", po::bool_switch(&per_channel),
         "also one row per channel (channel 0, 1, ...) after the whole memory's (channel all); JSON always has them")
        ("wall-time", po::bool_switch(&wall_time),
         "also report wall_time_s and requests_per_wall_second (the simulator's speed; they vary run to run)");
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("memtest", args, options, {}, values)) return kExitOk;
    if (pattern.empty() == trace.empty()) throw UsageError("give exactly one of --pattern and --trace");
    if (!trace.empty() && !values["requests"].defaulted()) {
      throw UsageError("--requests applies to --pattern; a trace has as many requests as lines");
    }
    positive_option("--requests", requests, 100'000'000);
    positive_option("--request-bytes", request_bytes, std::int64_t{1} << 30);
    const report::Format format = parse_format(common.format);
    const spec::DramSpec spec = config::load_dram(dram_name, common.overrides);
    if (values.count("outstanding") == 0) outstanding = std::min<std::int64_t>(32 * spec.scheduled_channels(), 4096);
    positive_option("--outstanding", outstanding, 4096);
    if (request_bytes % spec.burst_bytes() != 0) {
      throw UsageError("--request-bytes: " + std::to_string(request_bytes) + " is not a multiple of the " +
                       std::to_string(spec.burst_bytes()) + "-byte burst of " + dram_name);
    }
    const timing::DramAddressMapper mapper(spec);
    std::vector<spec::MemoryRequest> stream;
    if (!pattern.empty()) {
      const auto names = timing::traffic_pattern_names();
      if (std::find(names.begin(), names.end(), pattern) == names.end()) {
        throw UsageError("--pattern: unknown pattern \"" + pattern + "\"" + util::did_you_mean(pattern, names));
      }
      stream = timing::make_traffic_pattern(pattern, requests, static_cast<std::uint64_t>(request_bytes), spec, mapper);
    } else {
      stream = config::load_dram_trace_file(trace, static_cast<std::uint64_t>(request_bytes));
    }
    report::MemtestResult result;
    result.pattern = pattern.empty() ? trace : pattern;
    result.memory = dram_name;
    result.spec = spec;
    result.requests = static_cast<std::int64_t>(stream.size());
    result.request_bytes = request_bytes;
    result.outstanding = outstanding;
    hw::MemoryTester tester("memtest", spec, std::move(stream), static_cast<std::uint64_t>(request_bytes), outstanding);
    const auto wall_start = std::chrono::steady_clock::now();
    sc_core::sc_start();
    if (wall_time) result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) > 0 || tester.completed() != result.requests ||
        tester.dma().stats().failed_requests > 0) {
      return report_internal_error("memtest", "the simulation stopped before every request completed");
    }
    result.dram = tester.dram().total_stats();
    result.channels = tester.dram().channel_stats();
    result.simulated_seconds = tester.finish_time().to_seconds();
    std::cout << report::render_memtest(result, format, per_channel);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
