#pragma once
// What the importers throw on bad input: a message naming the file and the node, row or key.

#include <stdexcept>

namespace reusesim::import {

class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reusesim::import
