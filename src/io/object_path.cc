// Validation of object keys, shared by every store so that a key that is valid on one store is
// valid on all of them (tables move between memory, local and remote stores unchanged).

#include "io/object_path.h"

#include <string>
#include <string_view>

#include "lakeindex/object_store.h"

namespace lakeindex {

namespace {

std::string Quoted(std::string_view path) {
  std::string out = "'";
  for (char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

// Checks the characters and the segments of `path`; a prefix may be empty or end in '/'.
Status CheckKey(std::string_view path, bool is_prefix) {
  const char* what = is_prefix ? "object prefix " : "object path ";
  if (path.empty()) {
    if (is_prefix) return Status::OK();
    return Status::InvalidArgument("object path is empty");
  }
  if (path.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument(what + Quoted(path) + " contains a NUL byte");
  }
  if (path.find('\\') != std::string_view::npos) {
    return Status::InvalidArgument(what + Quoted(path) + " contains a backslash");
  }
  if (path.front() == '/') {
    return Status::InvalidArgument(what + Quoted(path) + " is absolute");
  }
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(begin, end - begin);
    // The last segment of a prefix may be any partial name ("data/ab" lists "data/abc",
    // "data/" lists everything under data), so only whole segments are checked.
    const bool partial = is_prefix && end == path.size();
    if (!partial) {
      if (segment.empty()) {
        return Status::InvalidArgument(what + Quoted(path) + " has an empty segment");
      }
      if (segment == "." || segment == "..") {
        return Status::InvalidArgument(what + Quoted(path) + " has a '" + std::string(segment) +
                                       "' segment");
      }
      if (segment.starts_with(kTempObjectPrefix)) {
        return Status::InvalidArgument(what + Quoted(path) + " uses the reserved prefix '" +
                                       std::string(kTempObjectPrefix) + "'");
      }
    }
    begin = end + 1;
  }
  return Status::OK();
}

}  // namespace

Status ValidateObjectPath(std::string_view path) { return CheckKey(path, /*is_prefix=*/false); }

Status ValidateObjectPrefix(std::string_view prefix) {
  return CheckKey(prefix, /*is_prefix=*/true);
}

}  // namespace lakeindex
