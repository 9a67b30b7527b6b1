#pragma once
// Shared by the config tests: the text a user would see when loading fails.
#include <catch2/catch.hpp>

#include <string>

#include "util/diagnostics.h"

// The what() of the InputError that `load` throws (every message, one per line); fails the test
// when loading succeeds. Other exceptions propagate and fail the test too.
template <typename Load>
std::string input_error_text(Load load) {
  try {
    load();
  } catch (const reusesim::util::InputError& error) {
    return error.what();
  }
  FAIL("expected an InputError");
  return "";
}
