#pragma once
// UTF-8 checks for every text input: names read from files end up in JSON and CSV reports, which
// must be valid UTF-8, so readers refuse anything else where it is written. Plain C++.

#include <cstddef>
#include <optional>
#include <string>

namespace reusesim::util {

// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all of `text` is UTF-8.
std::optional<std::size_t> invalid_utf8_offset(const std::string& text);
// How messages name a byte that is not UTF-8: "the byte 0x9e".
std::string describe_byte(char byte);

}  // namespace reusesim::util
