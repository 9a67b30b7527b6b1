#include "cli/command_line.h"

#include <iostream>

#include "config/diagnostics.h"
#include "mapping/mapper.h"
#include "workload/shape.h"

namespace reusesim::cli {

namespace po = boost::program_options;

void add_common_options(po::options_description& options, CommonOptions& common) {
  options.add_options()
      ("help,h", "show this help")
      ("set", po::value(&common.overrides)->composing(),
       "override a field before validation: key.path=value (repeatable; list elements by name or index; "
       "a key with dots in brackets: a[b.c]=v)")
      ("format", po::value(&common.format)->default_value("table"), "output: table, csv or json");
}

bool parse_arguments(const std::string& command, const std::vector<std::string>& args,
                     const po::options_description& options, const po::positional_options_description& positional,
                     po::variables_map& values) {
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
    if (values.count("help") > 0) {
      std::cout << "usage: reusesim " << command << " [options]\n" << options << "\n";
      return false;
    }
    po::notify(values);
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

int report_internal_error(const std::string& command, const std::string& problem) {
  std::cerr << "reusesim " << command << ": internal error: " << problem << "\n";
  return kExitInternalError;
}

int run_guarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const config::InputError& error) {
    std::cerr << error.what();
    return kExitBadInput;
  } catch (const mapping::MappingError& error) {
    return report_bad_input(command, error.what());
  } catch (const workload::CountOverflow& error) {
    return report_bad_input(command, error.what());
  } catch (const FileError& error) {
    return report_bad_input(command, error.what());
  } catch (const UsageError& error) {
    const int exit_code = report_bad_input(command, error.what());
    std::cerr << "try: reusesim " << command << " --help\n";
    return exit_code;
  } catch (const std::exception& error) {
    return report_internal_error(command, error.what());
  }
}

}  // namespace reusesim::cli
