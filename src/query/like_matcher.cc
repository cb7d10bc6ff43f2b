#include "query/like_matcher.h"

namespace lakeindex::query {

namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Offset just past the character starting at `pos` (REQUIRES pos < text.size()): a lead byte
// takes the continuation bytes its value announces, as far as they are present.
size_t NextChar(std::string_view text, size_t pos) {
  unsigned char lead = static_cast<unsigned char>(text[pos]);
  size_t extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  ++pos;
  for (; extra > 0 && pos < text.size() && IsContinuation(static_cast<unsigned char>(text[pos])); --extra) ++pos;
  return pos;
}

}  // namespace

LikeMatcher LikeMatcher::Compile(std::string_view pattern, std::string_view escape) {
  LikeMatcher m;
  bool has_escape = !escape.empty();
  char esc = has_escape ? escape[0] : '\0';
  std::vector<Segment> segs(1);
  bool any_wildcard = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (has_escape && c == esc) {
      if (i + 1 == pattern.size()) return m;  // dangling escape: kNever
      c = pattern[++i];
      segs.back().bytes.push_back(c);
      segs.back().any_char.push_back(false);
    } else if (c == '%') {
      segs.emplace_back();
      continue;
    } else if (c == '_') {
      segs.back().bytes.push_back('\0');
      segs.back().any_char.push_back(true);
      segs.back().has_wildcard = true;
      any_wildcard = true;
    } else {
      segs.back().bytes.push_back(c);
      segs.back().any_char.push_back(false);
    }
  }
  // Keep only non-empty segments; the leading/trailing flags record the anchoring: with a '%'
  // somewhere, an empty first/last segment means that side is unanchored.
  bool anchored_both = segs.size() == 1;
  m.leading_percent_ = !anchored_both && segs.front().bytes.empty();
  m.trailing_percent_ = !anchored_both && segs.back().bytes.empty();
  std::vector<Segment> kept;
  for (auto& s : segs) {
    if (!s.bytes.empty()) kept.push_back(std::move(s));
  }
  m.segments_ = std::move(kept);
  if (!any_wildcard) {
    if (anchored_both) {
      m.mode_ = Mode::kExact;
      m.literal_ = m.segments_.empty() ? std::string() : m.segments_[0].bytes;
      return m;
    }
    if (m.segments_.empty()) {
      m.mode_ = Mode::kAll;
      return m;
    }
    if (m.segments_.size() == 1) {
      m.literal_ = m.segments_[0].bytes;
      if (!m.leading_percent_ && m.trailing_percent_) m.mode_ = Mode::kPrefix;
      else if (m.leading_percent_ && !m.trailing_percent_) m.mode_ = Mode::kSuffix;
      else if (m.leading_percent_ && m.trailing_percent_) m.mode_ = Mode::kContains;
      if (m.mode_ != Mode::kNever) return m;
    }
  }
  m.mode_ = Mode::kGeneral;
  return m;
}

size_t LikeMatcher::MatchAt(const Segment& seg, std::string_view text, size_t pos) {
  for (size_t i = 0; i < seg.bytes.size(); ++i) {
    if (pos >= text.size()) return std::string_view::npos;
    if (seg.any_char[i]) {
      pos = NextChar(text, pos);
    } else {
      if (text[pos] != seg.bytes[i]) return std::string_view::npos;
      ++pos;
    }
  }
  return pos;
}

size_t LikeMatcher::FindFrom(const Segment& seg, std::string_view text, size_t pos, size_t* end) {
  if (!seg.has_wildcard) {
    size_t at = text.find(seg.bytes, pos);
    if (at != std::string_view::npos) *end = at + seg.bytes.size();
    return at;
  }
  while (pos < text.size()) {
    size_t e = MatchAt(seg, text, pos);
    if (e != std::string_view::npos) {
      *end = e;
      return pos;
    }
    pos = NextChar(text, pos);
  }
  return std::string_view::npos;
}

bool LikeMatcher::MatchGeneral(std::string_view text) const {
  size_t n = segments_.size();
  if (n == 0) return leading_percent_ || trailing_percent_ || text.empty();
  size_t first = 0, last = n;  // segments [first, last) still to place
  size_t pos = 0, limit = text.size();
  if (!leading_percent_) {
    pos = MatchAt(segments_[0], text, 0);
    if (pos == std::string_view::npos) return false;
    first = 1;
    if (n == 1 && !trailing_percent_) return pos == text.size();
  }
  if (!trailing_percent_ && last > first) {
    // The last segment must end exactly at the end of the text.
    const Segment& seg = segments_[last - 1];
    size_t start = std::string_view::npos;
    if (!seg.has_wildcard) {
      if (seg.bytes.size() <= text.size() - pos) start = text.size() - seg.bytes.size();
    } else {
      // Character boundaries are only known going forward; try each one (O(text * segment)).
      for (size_t s = pos; s < text.size(); s = NextChar(text, s)) {
        if (MatchAt(seg, text, s) == text.size()) {
          start = s;
          break;
        }
      }
    }
    if (start == std::string_view::npos || MatchAt(seg, text, start) != text.size()) return false;
    limit = start;
    --last;
  }
  std::string_view body = text.substr(0, limit);
  for (size_t i = first; i < last; ++i) {
    size_t end = 0;
    if (FindFrom(segments_[i], body, pos, &end) == std::string_view::npos) return false;
    pos = end;
  }
  return true;
}

bool LikeMatcher::Matches(std::string_view text) const {
  switch (mode_) {
    case Mode::kExact: return text == literal_;
    case Mode::kPrefix: return text.size() >= literal_.size() && text.compare(0, literal_.size(), literal_) == 0;
    case Mode::kSuffix:
      return text.size() >= literal_.size() &&
             text.compare(text.size() - literal_.size(), literal_.size(), literal_) == 0;
    case Mode::kContains: return text.find(literal_) != std::string_view::npos;
    case Mode::kAll: return true;
    case Mode::kGeneral: return MatchGeneral(text);
    case Mode::kNever: return false;
  }
  return false;
}

}  // namespace lakeindex::query
