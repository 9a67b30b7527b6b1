#pragma once
// Small string helpers every folder uses.

#include <cstdint>
#include <string>
#include <vector>

namespace reusesim::util {

// 12345678 -> "12,345,678".
inline std::string group_digits(std::int64_t value) {
  const std::string digits = std::to_string(value < 0 ? -value : value);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return value < 0 ? "-" + grouped : grouped;
}

// `items` with `separator` between each two: join({"a", "b"}, ", ") is "a, b".
inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) joined += (i == 0 ? "" : separator) + items[i];
  return joined;
}

// True for a non-empty string of the digits 0-9 and nothing else.
inline bool all_digits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// `text` split at every `separator`: split("a:b", ':') is {"a", "b"}, split("", ':') is {""}.
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// `word` as a POSIX shell reads it back as one word: as it is when it holds only characters no
// shell treats specially, else in single quotes (a quote inside as '\'').
inline std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=/.,:%@") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// `words` as one command line a POSIX shell reads back as them, each quoted by shell_quote: every
// command ReuseSim prints for the user to run goes through it.
inline std::string shell_command(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) line += (line.empty() ? "" : " ") + shell_quote(word);
  return line;
}

}  // namespace reusesim::util
