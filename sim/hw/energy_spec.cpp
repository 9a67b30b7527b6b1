#include "hw/energy_spec.h"

namespace reusesim::hw {

std::vector<std::string> operand_types() { return {"int8", "int16", "int32", "fp16", "bf16", "fp32"}; }

std::int64_t operand_type_bits(const std::string& type) {
  if (type == "int8") return 8;
  if (type == "int16" || type == "fp16" || type == "bf16") return 16;
  if (type == "int32" || type == "fp32") return 32;
  return 0;
}

std::string accumulator_type(const std::string& operand_type, std::int64_t accumulator_bits) {
  const bool integer = operand_type.rfind("int", 0) == 0;
  return (integer ? "int" : "fp") + std::to_string(accumulator_bits);
}

}  // namespace reusesim::hw
