#include "lakeindex/status.h"

namespace lakeindex {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kIOError: return "IO error";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kAlreadyExists: return "Already exists";
    case StatusCode::kInternal: return "Internal error";
    case StatusCode::kOutcomeUnknown: return "Outcome unknown";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + MessageNaming(parameter_);
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_).About(parameter_);
}

}  // namespace lakeindex
