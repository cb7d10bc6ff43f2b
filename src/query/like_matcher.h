// SQL LIKE, compiled once per pattern and matched against many strings.
//
// Semantics follow DuckDB: case-sensitive; '%' matches any sequence of characters, '_' exactly
// one character, where a character is one UTF-8 code point (a lead byte and its continuation
// bytes; stray continuation bytes count as characters of their own); everything else matches its
// own bytes. With an escape character, escape + c matches c literally (for any c). A pattern
// ending in an unescaped escape character is rejected by the parser, and matches nothing here.
//
// Matching is O(text * pattern) in the worst case (segments between '%' are placed greedily
// leftmost, which is exact for LIKE), never exponential. Patterns without '_' use fast paths:
// exact, 'prefix%', '%suffix', '%infix%' and '%'.
// Thread safety: immutable after Compile; Matches may be called concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lakeindex::query {

class LikeMatcher {
 public:
  enum class Mode { kExact, kPrefix, kSuffix, kContains, kAll, kGeneral, kNever };

  // `escape` is "" (none) or one byte.
  static LikeMatcher Compile(std::string_view pattern, std::string_view escape);

  bool Matches(std::string_view text) const;
  Mode mode() const { return mode_; }
  // The literal text of the fast-path modes (kExact, kPrefix, kSuffix, kContains).
  const std::string& literal() const { return literal_; }

 private:
  // A run of pattern characters between '%'s: literal bytes, with '_' wildcards marked.
  struct Segment {
    std::string bytes;
    std::vector<bool> any_char;  // any_char[i]: position i is '_' (bytes[i] unused)
    bool has_wildcard = false;
  };

  // End offset of `seg` matched at `pos`, or npos.
  static size_t MatchAt(const Segment& seg, std::string_view text, size_t pos);
  // Leftmost match of `seg` at or after `pos`; sets *end. Returns npos if none.
  static size_t FindFrom(const Segment& seg, std::string_view text, size_t pos, size_t* end);
  bool MatchGeneral(std::string_view text) const;

  Mode mode_ = Mode::kNever;
  std::string literal_;
  std::vector<Segment> segments_;
  bool leading_percent_ = false;
  bool trailing_percent_ = false;
};

}  // namespace lakeindex::query
