// Text that leaves the library: UTF-8 checks (JSON must be UTF-8; terminals show bytes), XML
// escaping (S3 requests, the plot's SVG), counts with thousands separators, and the "did you mean"
// of an unknown name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lakeindex {

// Whether `s` is well-formed UTF-8 (by lead bytes and continuation bytes).
bool IsValidUtf8(std::string_view s);

// `s` with each byte that is not part of a well-formed UTF-8 sequence written as \xHH (as DuckDB
// prints a BLOB), and, with `controls`, each ASCII control but TAB, LF and CR too. Text that is
// already clean comes back unchanged.
std::string EscapeBytes(std::string_view s, bool controls);

// `text` for an XML element or attribute value (& < > " ' as entities).
std::string XmlEscape(std::string_view text);

// 1234567 -> "1,234,567": counts as the command line and explain print them.
std::string Grouped(uint64_t n);

// Edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of two
// neighbours, each 1: the optimal string alignment distance), bytes compared ignoring ASCII case.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidates nearest `word` (at most `max` of them, nearest first, ties in the given order)
// among those within a typo of it: an edit distance of 1, or 2 for words of 6 characters and more
// ("foo" suggests no "f"). Empty when none is that near.
std::vector<std::string> NearestNames(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t max = 3);

// "; did you mean 'a'?" or "; did you mean 'a' or 'b'?" for NearestNames' answer, `quote`
// around each name ("" for options: --select); empty when there is none.
std::string DidYouMean(const std::vector<std::string>& nearest, std::string_view quote = "'");

}  // namespace lakeindex
