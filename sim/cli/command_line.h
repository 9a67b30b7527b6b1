#pragma once
// What every subcommand shares: option parsing, --set and --format, and turning errors into
// messages and exit codes (0 ok, 2 bad input or usage, 3 internal error; trace: 4 some jobs
// failed, 130 interrupted).

#include <boost/program_options.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/model_loader.h"
#include "report/table.h"
#include "spec/accelerator_spec.h"
#include "spec/fidelity.h"
#include "workload/training.h"

namespace reusesim::cli {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitInternalError = 3;
constexpr int kExitJobsFailed = 4;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// A mistake on the command line itself.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file or program the command needs is missing, unreadable or unwritable (not a bug: exit 2).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  std::vector<std::string> overrides;  // --set key.path=value
  std::string format = "table";
};

// Adds --help and --set to a subcommand's options.
void add_set_option(boost::program_options::options_description& options, std::vector<std::string>& overrides);
// Adds --help, --set and --format to a subcommand's options.
void add_common_options(boost::program_options::options_description& options, CommonOptions& common);

// Parses the subcommand's arguments. Returns false when --help was given (help already printed).
bool parse_arguments(const std::string& command, const std::vector<std::string>& args,
                     const boost::program_options::options_description& options,
                     const boost::program_options::positional_options_description& positional,
                     boost::program_options::variables_map& values);

report::Format parse_format(const std::string& name);

// --phase prefill|decode, --sequence S and --context L, for the commands that build a network
// (run, analyze, footprint).
struct PhaseOptions {
  std::string phase = "prefill";
  std::int64_t sequence = 0;
  std::int64_t context = 0;
};
void add_phase_options(boost::program_options::options_description& options, PhaseOptions& phase);
// The phase the options ask for; UsageError for a bad combination.
config::Phase phase_of(const PhaseOptions& phase, const boost::program_options::variables_map& values);
// A decode step's KV cache (every kv_cache matmul's keys or values, cached and new, for `batch`
// samples of `element_bytes` each) must have addresses: UsageError when it passes 2^63 bytes.
void check_kv_cache_addressable(const workload::Network& network, std::int64_t decode_context, std::int64_t batch,
                                std::int64_t element_bytes);
// --mode infer|train, --optimizer sgd|momentum|adam (train only, and required with it),
// --checkpoint-segments N and --mixed-precision (train only), for the commands that size or run a
// training step (footprint, run).
struct ModeOptions {
  std::string mode;
  std::string optimizer;
  std::int64_t checkpoint_segments = 1;
  bool mixed_precision = false;
};
// --mode defaults to infer.
void add_mode_options(boost::program_options::options_description& options, ModeOptions& mode);
// What a training step runs with, nullopt for inference; UsageError for a bad combination.
std::optional<workload::TrainingOptions> training_options(const ModeOptions& mode);
// UsageError unless --checkpoint-segments divides the network's layers and, with --mixed-precision,
// `element_bytes` (the compute dtype's) is 2.
void check_training(const workload::TrainingOptions& training, const workload::Network& network,
                    std::int64_t element_bytes);

// --fidelity exact|fast (default exact), for run and replay.
void add_fidelity_option(boost::program_options::options_description& options, std::string& fidelity);
// The fidelity named by --fidelity, or a UsageError naming the option and the allowed values.
spec::Fidelity parse_fidelity(const std::string& fidelity);

std::int64_t positive_option(const std::string& option, std::int64_t value, std::int64_t max);

// Runs a subcommand body and maps every error to a message on stderr and an exit code. Standard
// output is checked too: a write that failed ("cannot write standard output: No space left on
// device") fails a command that would have exited 0 with exit code 2.
int run_guarded(const std::string& command, const std::function<int()>& body);

int analyze_command(const std::vector<std::string>& args);
int footprint_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int memtest_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int replay_command(const std::vector<std::string>& args);
int trace_command(const std::vector<std::string>& args);
int figure_command(const std::vector<std::string>& args);
int search_command(const std::vector<std::string>& args);
int import_command(const std::vector<std::string>& args);

// Print "reusesim COMMAND: error: PROBLEM" (bad input, exit 2) or "... internal error: ..." (exit 3)
// and return the exit code: run_guarded's messages, for problems found after the simulation,
// where exceptions may not be used.
int report_bad_input(const std::string& command, const std::string& problem);
int report_internal_error(const std::string& command, const std::string& problem);

// Prints what energy::curve_range_warnings says of `spec` to stderr, "reusesim COMMAND: warning: ...":
// after a replay, before its report (a run that fails shows its error alone).
void warn_of_energy_curves(const std::string& command, const spec::AcceleratorSpec& spec);

}  // namespace reusesim::cli
