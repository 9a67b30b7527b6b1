#pragma once
// What the importers throw: on bad input, a message naming the file and the node, row or key (exit
// 2); when the written model is not the network imported, a broken invariant of the importer (exit 3).

#include <stdexcept>

namespace reusesim::import {

class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ImportInvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace reusesim::import
