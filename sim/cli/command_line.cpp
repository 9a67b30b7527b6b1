#include "cli/command_line.h"

#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <streambuf>

#include "energy/energy_model.h"
#include "import/import_error.h"
#include "mapping/mapper.h"
#include "util/checked_math.h"
#include "util/diagnostics.h"
#include "util/output_files.h"
#include "workload/shape.h"
#include "workload/training.h"

namespace reusesim::cli {

namespace po = boost::program_options;

void add_set_option(po::options_description& options, std::vector<std::string>& overrides) {
  options.add_options()
      ("help,h", "show this help")
      ("set", po::value(&overrides)->composing(),
       "override a field before validation: key.path=value (repeatable; list elements by name or index; "
       "a key with dots in brackets: a[b.c]=v)");
}

void add_common_options(po::options_description& options, CommonOptions& common) {
  add_set_option(options, common.overrides);
  options.add_options()("format", po::value(&common.format)->default_value("table"), "output: table, csv or json");
}

namespace {

// The positional arguments as the usage line names them: the option's name in capitals, "..."
// when it repeats ("FILE..."), by option name.
std::vector<std::pair<std::string, std::string>> positional_names(
    const po::positional_options_description& positional) {
  std::vector<std::pair<std::string, std::string>> names;
  const unsigned count = positional.max_total_count();
  for (unsigned i = 0; i < count; ++i) {
    const std::string& option = positional.name_for_position(i);
    if (!names.empty() && names.back().first == option) break;  // the rest repeat it
    std::string shown;
    for (char c : option) shown += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    names.emplace_back(option, shown + (count == UINT_MAX ? "..." : ""));
  }
  return names;
}

}  // namespace

bool parse_arguments(const std::string& command, const std::vector<std::string>& args,
                     const po::options_description& options, const po::positional_options_description& positional,
                     po::variables_map& values) {
  const std::vector<std::pair<std::string, std::string>> names = positional_names(positional);
  std::string usage = "usage: reusesim " + command;
  for (const auto& [option, shown] : names) usage += " " + shown;
  usage += " [options]";
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
    if (values.count("help") > 0) {
      std::cout << usage << "\n" << options << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::required_option& error) {
    // A positional argument is named as the usage names it, not as the option it stands for.
    for (const auto& [option, shown] : names) {
      if (error.get_option_name() == "--" + option) {
        const po::option_description* described = options.find_nothrow(option, false);
        std::string what = described != nullptr ? described->description() : "";
        for (const char* aside : {" (also positional)", "; also positional"}) {
          if (const std::size_t at = what.find(aside); at != std::string::npos) what.erase(at, std::strlen(aside));
        }
        throw UsageError("missing argument " + shown + (what.empty() ? "" : ", the " + what) + "; " + usage);
      }
    }
    throw UsageError(error.what());
  } catch (const po::error& error) {
    throw UsageError(error.what());
  }
  return true;
}

report::Format parse_format(const std::string& name) {
  const auto format = report::format_from_name(name);
  if (!format) throw UsageError("--format: expected table, csv or json, got \"" + name + "\"");
  return *format;
}

namespace {

// The longest sequence or context --sequence and --context take: 2^24 tokens, beyond any model's
// positions today.
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;

}  // namespace

void add_phase_options(boost::program_options::options_description& options, PhaseOptions& phase) {
  options.add_options()
      ("phase", boost::program_options::value(&phase.phase)->default_value("prefill"),
       "prefill (the model's whole input sequence at once) or decode (one new token per sample after --context "
       "tokens, whose keys and values attention reads from the KV cache; transformers only)")
      ("sequence", boost::program_options::value(&phase.sequence),
       "with --phase prefill: tokens per sample (default: the model's input sequence)")
      ("context", boost::program_options::value(&phase.context),
       "with --phase decode: tokens already in each sample's KV cache (at least 1)");
}

config::Phase phase_of(const PhaseOptions& phase, const boost::program_options::variables_map& values) {
  if (phase.phase != "prefill" && phase.phase != "decode") {
    throw UsageError("--phase: expected prefill or decode, got \"" + phase.phase + "\"");
  }
  const bool context_given = values.count("context") > 0, sequence_given = values.count("sequence") > 0;
  if (phase.phase == "prefill") {
    if (context_given) {
      throw UsageError("--context applies to --phase decode (a prefill's tokens are the model's input sequence)");
    }
    if (sequence_given) return {positive_option("--sequence", phase.sequence, kMaxTokens), 0};
    return {};
  }
  if (sequence_given) throw UsageError("--sequence applies to --phase prefill (a decode step is one token per sample)");
  if (!context_given || phase.context < 1 || phase.context > kMaxTokens) {
    throw UsageError("--phase decode needs --context N, the tokens already in the KV cache, from 1 to " +
                     std::to_string(kMaxTokens));
  }
  return {0, phase.context};
}

void check_kv_cache_addressable(const workload::Network& network, std::int64_t decode_context, std::int64_t batch,
                                std::int64_t element_bytes) {
  // In long double: the point is to find a count past 64 bits.
  long double bytes = 0;
  for (const workload::NetworkLayer& layer : network.layers) {
    if (layer.cached_steps == 0) continue;
    bytes += static_cast<long double>(layer.input_shapes[1].elements()) * static_cast<long double>(batch) *
             static_cast<long double>(element_bytes);
  }
  if (bytes <= static_cast<long double>(INT64_MAX)) return;
  std::ostringstream size;
  size << std::setprecision(3) << static_cast<double>(bytes);
  throw UsageError("--context " + std::to_string(decode_context) + " at batch " + std::to_string(batch) +
                   ": the KV cache would hold " + size.str() +
                   " bytes of keys and values, more than a 64-bit address space (2^63 bytes) can place");
}

void add_mode_options(boost::program_options::options_description& options, ModeOptions& mode) {
  options.add_options()
      ("mode", boost::program_options::value(&mode.mode)->default_value("infer"),
       "infer or train (a training step: forward, backward and the optimizer's update)")
      ("optimizer", boost::program_options::value(&mode.optimizer), "train only, and required with it: sgd, momentum or adam")
      ("checkpoint-segments", boost::program_options::value(&mode.checkpoint_segments)->default_value(1),
       "train only: split the layers into N equal segments; all but the last run their forward pass again in the "
       "backward pass, keeping only the tensors that cross segments (default 1: every activation is kept)")
      ("mixed-precision", boost::program_options::bool_switch(&mode.mixed_precision),
       "train only: compute at a 2-byte dtype with fp32 master weights and fp32 optimizer state");
}

void add_fidelity_option(boost::program_options::options_description& options, std::string& fidelity) {
  options.add_options()(
      "fidelity", boost::program_options::value(&fidelity)->default_value("exact"),
      "exact (every DRAM burst through the controller) or fast (whole transfers on channel servers calibrated on "
      "the exact controller: bytes and MACs exact, time within the bound of docs/performance.md, \"Fast mode\")");
}

spec::Fidelity parse_fidelity(const std::string& fidelity) {
  if (const std::optional<spec::Fidelity> parsed = util::from_name<spec::Fidelity>(fidelity)) return *parsed;
  throw UsageError("--fidelity: expected exact or fast, got \"" + fidelity + "\"");
}

std::optional<workload::TrainingOptions> training_options(const ModeOptions& mode) {
  if (mode.mode != "infer" && mode.mode != "train") {
    throw UsageError("--mode: expected infer or train, got \"" + mode.mode + "\"");
  }
  if (mode.mode == "infer") {
    if (!mode.optimizer.empty()) throw UsageError("--optimizer applies to --mode train only");
    if (mode.checkpoint_segments != 1) throw UsageError("--checkpoint-segments applies to --mode train only");
    if (mode.mixed_precision) throw UsageError("--mixed-precision applies to --mode train only");
    return std::nullopt;
  }
  if (mode.checkpoint_segments < 1) {
    throw UsageError("--checkpoint-segments: expected the number of segments, at least 1 (1: no checkpointing), got " +
                     std::to_string(mode.checkpoint_segments));
  }
  if (mode.optimizer.empty()) throw UsageError("--optimizer is required with --mode train (sgd, momentum or adam)");
  if (const auto optimizer = util::from_name<workload::Optimizer>(mode.optimizer)) {
    return workload::TrainingOptions{*optimizer, mode.checkpoint_segments, mode.mixed_precision};
  }
  throw UsageError("--optimizer: expected sgd, momentum or adam, got \"" + mode.optimizer + "\"");
}

void check_training(const workload::TrainingOptions& training, const workload::Network& network,
                    std::int64_t element_bytes) {
  if (const std::string problem = workload::checkpoint_problem(network, training.checkpoint_segments); !problem.empty()) {
    throw UsageError("--checkpoint-segments: " + problem);
  }
  if (training.mixed_precision && element_bytes != 2) {
    throw UsageError("--mixed-precision computes at 2-byte elements (fp16 or bf16) beside fp32 master weights; the "
                     "elements here have " + std::to_string(element_bytes) + " bytes");
  }
}

std::int64_t positive_option(const std::string& option, std::int64_t value, std::int64_t max) {
  if (value < 1 || value > max) {
    throw UsageError(option + ": expected a positive integer up to " + std::to_string(max) + ", got " +
                     std::to_string(value));
  }
  return value;
}

int report_bad_input(const std::string& command, const std::string& problem) {
  std::cerr << "reusesim " << command << ": error: " << problem << "\n";
  return kExitBadInput;
}

void warn_of_energy_curves(const std::string& command, const spec::AcceleratorSpec& spec) {
  for (const std::string& warning : energy::curve_range_warnings(spec)) {
    std::cerr << "reusesim " << command << ": warning: " << warning << "\n";
  }
}

int report_internal_error(const std::string& command, const std::string& problem) {
  std::cerr << "reusesim " << command << ": internal error: " << problem << "\n";
  return kExitInternalError;
}

namespace {

// std::cout's buffer while a command runs: it writes to standard output and keeps the errno of the
// first write that failed (a full disk, /dev/full, a closed descriptor), which the exit code must
// report. It never throws (output is printed after the simulation too).
class CheckedStdout : public std::streambuf {
 public:
  // What an enclosing command buffered goes out first, so nested commands (check's files) keep order.
  CheckedStdout() : previous_(std::cout.rdbuf(this)) {
    previous_->pubsync();
    setp(buffer_, buffer_ + sizeof buffer_);
  }
  ~CheckedStdout() override { std::cout.rdbuf(previous_); }
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;

  // Writes what is buffered: 0, or the errno of the first write that failed.
  int flush_error() {
    write_buffer();
    return error_;
  }

 protected:
  int_type overflow(int_type c) override {
    write_buffer();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override { return flush_error() == 0 ? 0 : -1; }

 private:
  void write_buffer() {
    // After a failure the rest is dropped: the command fails anyway.
    if (error_ == 0) error_ = util::write_all(STDOUT_FILENO, pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof buffer_);
  }

  std::streambuf* previous_;
  char buffer_[1 << 16];
  int error_ = 0;
};

int guarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const util::InputError& error) {
    std::cerr << error.what();
    return kExitBadInput;
  } catch (const mapping::MappingError& error) {
    return report_bad_input(command, error.what());
  } catch (const util::CountOverflow& error) {
    return report_bad_input(command, error.what());
  } catch (const FileError& error) {
    return report_bad_input(command, error.what());
  } catch (const import::ImportError& error) {
    return report_bad_input(command, error.what());
  } catch (const UsageError& error) {
    const int exit_code = report_bad_input(command, error.what());
    std::cerr << "try: reusesim " << command << " --help\n";
    return exit_code;
  } catch (const std::exception& error) {
    return report_internal_error(command, error.what());
  }
}

}  // namespace

int run_guarded(const std::string& command, const std::function<int()>& body) {
  CheckedStdout standard_output;
  const int exit_code = guarded(command, body);
  if (const int error = standard_output.flush_error(); error != 0) {
    const std::string reason = std::strerror(error);
    const int file_error = report_bad_input(command, "cannot write standard output: " + reason);
    return exit_code == kExitOk ? file_error : exit_code;
  }
  return exit_code;
}

}  // namespace reusesim::cli
