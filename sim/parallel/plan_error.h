#pragma once
// A parallel plan the model cannot take (docs/systems.md): what does not divide or split, naming
// the plan's key and the layer. The driver reports it as bad input.

#include <stdexcept>

namespace reusesim::parallel {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reusesim::parallel
