#include "spec/energy_spec.h"

namespace reusesim::spec {

std::vector<std::string> operand_types() {
  return {"int4", "int8", "int16", "int32", "fp8_e4m3", "fp8_e5m2", "fp16", "bf16", "fp32"};
}

std::vector<std::string> number_formats() { return {"int", "fp", "bf"}; }

std::string accumulator_type(const std::string& operand_type, std::int64_t accumulator_bits) {
  const bool integer = operand_type.rfind("int", 0) == 0;
  return (integer ? "int" : "fp") + std::to_string(accumulator_bits);
}

}  // namespace reusesim::spec
