// `reusesim replay`: data-movement programs from a file (written by `reusesim run --dump-program`
// or by an external compiler, docs/program-format.md) replayed on an accelerator, with the same
// checks and the same report as `reusesim run`.

#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <utility>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/diagnostics.h"
#include "hw/accelerator.h"
#include "mapping/array_model.h"
#include "mapping/mapper.h"
#include "mapping/program_text.h"
#include "report/run_report.h"
#include "workload/shape.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    config::Diagnostics diagnostics;
    diagnostics.error(config::SourceLocation{path, 0, 0}, "", "cannot open file");
    diagnostics.throw_if_any();
  }
  std::string text((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  if (stream.bad()) throw std::runtime_error("cannot read " + path);
  return text;
}

// What the format cannot check alone: steps the accelerator could not time as written.
void check_against_accelerator(const std::vector<mapping::ProgramRecord>& records, const hw::AcceleratorSpec& spec,
                               const std::string& origin) {
  config::Diagnostics diagnostics;
  constexpr std::size_t kMaxReported = 20;
  const std::int64_t element_bytes = mapping::element_bytes(spec);
  for (const mapping::ProgramRecord& record : records) {
    const mapping::LayerProgram& program = record.program;
    for (std::size_t i = 0; i < program.steps.size() && diagnostics.size() < kMaxReported; ++i) {
      const mapping::Step& step = program.steps[i];
      const auto error = [&](const std::string& message) {
        diagnostics.error(config::SourceLocation{origin, 0, 0}, "",
                          "layer " + program.layer + " (batch " + std::to_string(record.batch) + "), step " +
                              std::to_string(i) + ": " + message);
      };
      try {
        if (step.kind == mapping::StepKind::compute) mapping::gemm_cycles(spec.compute, step.gemm);
        mapping::vector_cycles(spec.compute, step.vector_ops);
      } catch (const std::exception&) {
        error("its cycles on " + spec.name + " do not fit in 64 bits");
        continue;
      }
      // The array reads the whole k x n weight tile out of SRAM; the rest of `bytes` are inputs.
      if (step.kind == mapping::StepKind::compute &&
          static_cast<std::uint64_t>(step.gemm.k * step.gemm.n) > step.bytes / static_cast<std::uint64_t>(element_bytes)) {
        error("compute reads " + std::to_string(step.bytes) + " SRAM bytes, fewer than its k x n weight tile (" +
              std::to_string(step.gemm.k) + " x " + std::to_string(step.gemm.n) + " x " + std::to_string(element_bytes) +
              " bytes on " + spec.name + ")");
      }
    }
  }
  diagnostics.throw_if_any();
}

}  // namespace

int replay_command(const std::vector<std::string>& args) {
  return run_guarded("replay", [&] {
    CommonOptions common;
    std::string arch_file, program_file;
    po::options_description options("reusesim replay options");
    options.add_options()
        ("arch", po::value(&arch_file)->required(), "accelerator file (YAML)")
        ("program", po::value(&program_file)->required(),
         "data-movement program file (docs/program-format.md), e.g. from reusesim run --dump-program");
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("replay", args, options, {}, values)) return kExitOk;
    const report::Format format = parse_format(common.format);
    const hw::AcceleratorSpec spec = config::load_accelerator_file(arch_file, common.overrides);
    const std::string text = read_file(program_file);
    std::vector<mapping::ProgramRecord> records;
    try {
      records = mapping::read_programs(text, program_file, static_cast<std::uint64_t>(spec.dram.burst_bytes()));
    } catch (const mapping::ProgramFormatError& error) {
      std::cerr << error.what();
      return kExitBadInput;
    }
    check_against_accelerator(records, spec, program_file);
    std::vector<hw::LayerRun> runs;
    for (mapping::ProgramRecord& record : records) runs.push_back(hw::LayerRun{record.batch, std::move(record.program)});
    const std::vector<hw::LayerResult> results = replay_programs(spec, std::move(runs));
    // The report totals each batch: consecutive layers of one batch size, until a layer name repeats
    // (run --batch 1,1 replays the network twice at batch 1).
    report::RunReport report{spec.name, program_file, spec, {}};
    std::set<std::string> names;
    for (const hw::LayerResult& result : results) {
      if (report.batches.empty() || report.batches.back().back().batch != result.batch ||
          names.count(result.layer) > 0) {
        report.batches.emplace_back();
        names.clear();
      }
      names.insert(result.layer);
      report.batches.back().push_back(result);
    }
    std::cout << report::render_run(report, format);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
