// Text that leaves the library: UTF-8 checks (JSON must be UTF-8; terminals show bytes) and XML
// escaping (S3 requests, the plot's SVG).
#pragma once

#include <string>
#include <string_view>

namespace lakeindex {

// Whether `s` is well-formed UTF-8 (by lead bytes and continuation bytes).
bool IsValidUtf8(std::string_view s);

// `s` with each byte that is not part of a well-formed UTF-8 sequence written as \xHH (as DuckDB
// prints a BLOB), and, with `controls`, each ASCII control but TAB, LF and CR too. Text that is
// already clean comes back unchanged.
std::string EscapeBytes(std::string_view s, bool controls);

// `text` for an XML element or attribute value (& < > " ' as entities).
std::string XmlEscape(std::string_view text);

}  // namespace lakeindex
