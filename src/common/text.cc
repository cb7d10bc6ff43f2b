#include "common/text.h"

#include <algorithm>
#include <cstdio>

namespace lakeindex {

namespace {

// The length of the well-formed UTF-8 sequence at s[i], or 0.
size_t SequenceAt(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

std::string Grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string EscapeBytes(std::string_view s, bool controls) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 0 || (controls && c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      out += buf;
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; };
  // Three rows of the optimal-string-alignment table: i-2, i-1, i.
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);  // two letters swapped
      }
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

std::vector<std::string> NearestNames(std::string_view word, const std::vector<std::string>& candidates, size_t max) {
  std::vector<std::pair<size_t, size_t>> near;  // (distance, candidate index)
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t d = EditDistance(word, candidates[i]);
    if (d <= std::max<size_t>(1, std::min<size_t>(2, word.size() / 3))) near.emplace_back(d, i);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t k = 0; k < near.size() && out.size() < max; ++k) out.push_back(candidates[near[k].second]);
  return out;
}

std::string DidYouMean(const std::vector<std::string>& nearest, std::string_view quote) {
  if (nearest.empty()) return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < nearest.size(); ++i) {
    if (i > 0) out += i + 1 == nearest.size() ? " or " : ", ";
    out += std::string(quote) + nearest[i] + std::string(quote);
  }
  return out + "?";
}

}  // namespace lakeindex
