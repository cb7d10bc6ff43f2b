#include "format/arrow/flatbuffer.h"

#include <algorithm>
#include <cstring>

namespace lakeindex::arrow {

namespace {

void Pad(std::string* out, size_t align, size_t then = 0) {
  while ((out->size() + then) % align != 0) out->push_back('\0');
}

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
void PutAt(std::string* out, size_t at, T v) {
  std::memcpy(out->data() + at, &v, sizeof(T));
}

}  // namespace

FlatTable::Field& FlatTable::Add(int id, Kind kind, int size) {
  Field& f = fields_.emplace_back();
  f.id = id;
  f.kind = kind;
  f.size = size;
  return f;
}

FlatTable& FlatTable::Scalar(int id, uint64_t v, int size) {
  Add(id, Kind::kScalar, size).scalar = v;
  return *this;
}

FlatTable& FlatTable::String(int id, std::string v) {
  Add(id, Kind::kString, 4).text = std::move(v);
  return *this;
}

FlatTable& FlatTable::Table(int id, FlatTable v) {
  Add(id, Kind::kTable, 4).tables.push_back(std::move(v));
  return *this;
}

FlatTable& FlatTable::Tables(int id, std::vector<FlatTable> v) {
  Add(id, Kind::kTables, 4).tables = std::move(v);
  return *this;
}

FlatTable& FlatTable::Structs(int id, std::vector<std::pair<int64_t, int64_t>> v) {
  Add(id, Kind::kStructs, 4).structs = std::move(v);
  return *this;
}

size_t FlatTable::WriteTo(std::string* out) const {
  // The fields' places relative to the table's start (8-aligned), largest first, after the
  // table's soffset to its vtable.
  std::vector<size_t> order(fields_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fields_[a].size > fields_[b].size; });
  std::vector<size_t> place(fields_.size());
  size_t end = 4;
  int max_id = -1;
  for (size_t i : order) {
    const size_t size = size_t(fields_[i].size);
    end = (end + size - 1) / size * size;
    place[i] = end;
    end += size;
    max_id = std::max(max_id, fields_[i].id);
  }
  const size_t vtable_size = 4 + 2 * size_t(max_id + 1);
  Pad(out, 2);
  const size_t vtable = out->size();
  std::vector<uint16_t> entries(size_t(max_id + 1), 0);
  for (size_t i = 0; i < fields_.size(); ++i) entries[size_t(fields_[i].id)] = uint16_t(place[i]);
  Put<uint16_t>(out, uint16_t(vtable_size));
  Put<uint16_t>(out, uint16_t(end));
  for (uint16_t e : entries) Put<uint16_t>(out, e);
  Pad(out, 8);
  const size_t table = out->size();
  out->resize(table + end, '\0');
  PutAt<int32_t>(out, table, int32_t(table - vtable));
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].kind == Kind::kScalar) std::memcpy(out->data() + table + place[i], &fields_[i].scalar, size_t(fields_[i].size));
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].kind == Kind::kScalar) continue;
    const size_t at = table + place[i];
    const size_t object = WriteObject(fields_[i], out);
    PutAt<uint32_t>(out, at, uint32_t(object - at));
  }
  return table;
}

size_t FlatTable::WriteObject(const Field& f, std::string* out) {
  switch (f.kind) {
    case Kind::kString: {
      Pad(out, 4);
      const size_t at = out->size();
      Put<uint32_t>(out, uint32_t(f.text.size()));
      out->append(f.text);
      out->push_back('\0');
      return at;
    }
    case Kind::kTable:
      return f.tables[0].WriteTo(out);
    case Kind::kTables: {
      Pad(out, 4);
      const size_t at = out->size();
      Put<uint32_t>(out, uint32_t(f.tables.size()));
      out->resize(at + 4 + 4 * f.tables.size(), '\0');
      for (size_t i = 0; i < f.tables.size(); ++i) {
        const size_t slot = at + 4 + 4 * i;
        const size_t table = f.tables[i].WriteTo(out);
        PutAt<uint32_t>(out, slot, uint32_t(table - slot));
      }
      return at;
    }
    case Kind::kStructs: {
      Pad(out, 8, 4);  // the elements 8-aligned after the count
      const size_t at = out->size();
      Put<uint32_t>(out, uint32_t(f.structs.size()));
      for (const auto& [a, b] : f.structs) {
        Put<int64_t>(out, a);
        Put<int64_t>(out, b);
      }
      return at;
    }
    case Kind::kScalar:
      break;
  }
  return 0;
}

std::string FlatTable::Finish() const {
  std::string out(4, '\0');  // the root table's uoffset
  const size_t root = WriteTo(&out);
  PutAt<uint32_t>(&out, 0, uint32_t(root));
  return out;
}

}  // namespace lakeindex::arrow

namespace lakeindex::arrow {

std::optional<FlatReader> FlatReader::Root(std::string_view bytes) {
  uint32_t root;
  if (bytes.size() < 4) return std::nullopt;
  std::memcpy(&root, bytes.data(), 4);
  return At(bytes, root);
}

std::optional<FlatReader> FlatReader::At(std::string_view bytes, size_t table) {
  int32_t back;
  if (table > bytes.size() || bytes.size() - table < 4) return std::nullopt;
  std::memcpy(&back, bytes.data() + table, 4);
  const int64_t vtable = int64_t(table) - int64_t(back);
  if (vtable < 0 || uint64_t(vtable) + 4 > bytes.size()) return std::nullopt;
  uint16_t vtable_size;
  std::memcpy(&vtable_size, bytes.data() + vtable, 2);
  if (vtable_size < 4 || uint64_t(vtable) + vtable_size > bytes.size()) return std::nullopt;
  return FlatReader(bytes, table, size_t(vtable), vtable_size);
}

size_t FlatReader::FieldPos(int id) const {
  const size_t entry = 4 + 2 * size_t(id);
  if (id < 0 || entry + 2 > vtable_size_) return 0;
  uint16_t offset;
  std::memcpy(&offset, bytes_.data() + vtable_ + entry, 2);
  return offset == 0 ? 0 : table_ + offset;
}

std::optional<size_t> FlatReader::Follow(size_t at) const {
  uint32_t offset;
  if (!Load(at, &offset)) return std::nullopt;
  const uint64_t target = uint64_t(at) + offset;
  if (target >= bytes_.size()) return std::nullopt;
  return size_t(target);
}

std::optional<FlatReader> FlatReader::Table(int id) const {
  const size_t at = FieldPos(id);
  if (at == 0) return std::nullopt;
  const std::optional<size_t> target = Follow(at);
  if (!target) return std::nullopt;
  return At(bytes_, *target);
}

std::optional<std::string_view> FlatReader::String(int id) const {
  size_t start = 0;
  const std::optional<size_t> n = Vector(id, 1, &start);
  if (!n) return std::nullopt;
  return bytes_.substr(start, *n);
}

std::optional<size_t> FlatReader::Vector(int id, size_t elem_size, size_t* start) const {
  const size_t at = FieldPos(id);
  *start = 0;
  if (at == 0) return size_t{0};
  const std::optional<size_t> target = Follow(at);
  uint32_t n;
  if (!target || !Load(*target, &n)) return std::nullopt;
  const uint64_t begin = uint64_t(*target) + 4;
  if (begin > bytes_.size() || uint64_t(n) * elem_size > bytes_.size() - begin) return std::nullopt;
  *start = size_t(begin);
  return size_t(n);
}

std::optional<FlatReader> FlatReader::TableAt(size_t start, size_t i) const {
  const std::optional<size_t> target = Follow(start + 4 * i);
  if (!target) return std::nullopt;
  return At(bytes_, *target);
}

}  // namespace lakeindex::arrow
