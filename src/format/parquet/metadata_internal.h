// Helpers shared by metadata.cc and page_metadata.cc (not part of the public API).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "format/parquet/thrift_compact.h"

namespace lakeindex::parquet {

// Records which field ids (< 64) a struct had, to report a missing required one.
class RequiredFields {
 public:
  RequiredFields(const thrift::CompactReader& r, const char* what) : r_(r), what_(what) {}
  void Saw(int16_t id) {
    if (id >= 0 && id < 64) seen_ |= uint64_t(1) << id;
  }
  Status Check(std::initializer_list<int> ids) const {
    for (int id : ids) {
      if ((seen_ >> id & 1) == 0) {
        return r_.Error(std::string(what_) + " lacks required field " + std::to_string(id));
      }
    }
    return Status::OK();
  }

 private:
  const thrift::CompactReader& r_;
  const char* what_;
  uint64_t seen_ = 0;
};

inline Status ReadValue(thrift::CompactReader& r, thrift::CType t, bool* v) { return r.ReadBool(t, v); }
inline Status ReadValue(thrift::CompactReader& r, thrift::CType t, int16_t* v) { return r.ReadI16(t, v); }
inline Status ReadValue(thrift::CompactReader& r, thrift::CType t, int32_t* v) { return r.ReadI32(t, v); }
inline Status ReadValue(thrift::CompactReader& r, thrift::CType t, int64_t* v) { return r.ReadI64(t, v); }

template <typename T>
Status ReadOpt(thrift::CompactReader& r, thrift::CType t, std::optional<T>* out) {
  T v{};
  RETURN_IF_ERROR(ReadValue(r, t, &v));
  *out = v;
  return Status::OK();
}

inline Status ReadOptString(thrift::CompactReader& r, thrift::CType t,
                            std::optional<std::string>* out) {
  std::string_view v;
  RETURN_IF_ERROR(r.ReadBinary(t, &v));
  out->emplace(v);
  return Status::OK();
}

// Enums are i32 on the wire; every i32 is representable in our int32_t-based enums.
template <typename E>
Status ReadEnum(thrift::CompactReader& r, thrift::CType t, E* out) {
  int32_t v;
  RETURN_IF_ERROR(r.ReadI32(t, &v));
  *out = E(v);
  return Status::OK();
}

template <typename E>
Status ReadOptEnum(thrift::CompactReader& r, thrift::CType t, std::optional<E>* out) {
  E v{};
  RETURN_IF_ERROR(ReadEnum(r, t, &v));
  *out = v;
  return Status::OK();
}

template <typename T>
void WriteStructList(thrift::CompactWriter& w, int16_t id, const std::vector<T>& list) {
  w.FieldListBegin(id, thrift::CType::kStruct, list.size());
  for (const T& v : list) v.Write(w);
}

}  // namespace lakeindex::parquet
