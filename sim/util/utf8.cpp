#include "util/utf8.h"

#include <cstdio>

namespace reusesim::util {

std::optional<std::size_t> invalid_utf8_offset(const std::string& text) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The sequence length and the range of its second byte, which excludes overlong forms,
    // surrogates and code points above U+10FFFF (RFC 3629, section 4).
    std::size_t length = 0;
    unsigned low = 0x80, high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) low = 0xa0;
      if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (byte(i + 1) < low || byte(i + 1) > high) return i;
    for (std::size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return i;
    }
    i += length;
  }
  return std::nullopt;
}

std::string describe_byte(char byte) {
  char text[16];
  std::snprintf(text, sizeof text, "the byte 0x%02x", static_cast<unsigned char>(byte));
  return text;
}

}  // namespace reusesim::util
