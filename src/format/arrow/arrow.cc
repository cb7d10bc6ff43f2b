// The Arrow C data / stream interfaces and the IPC stream writer (arrow.h).
#include "format/arrow/arrow.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "format/arrow/flatbuffer.h"

namespace lakeindex::arrow {

namespace {

// A buffer that is never null, for empty columns (the spec allows null only for the validity).
alignas(8) const uint8_t kEmpty[8] = {};

// An LSB-first bitmap of n bits, bit i set when set(i).
template <typename Set>
std::vector<uint8_t> Bitmap(size_t n, Set set) {
  std::vector<uint8_t> bits((n + 7) / 8, 0);
  for (size_t i = 0; i < n; ++i) {
    if (set(i)) bits[i >> 3] |= uint8_t(1u << (i & 7));
  }
  return bits;
}

Status CheckStringSize(const Column& c, const std::string& name) {
  if (IsBytes(c.type()) && c.chars().size() > size_t(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("column '" + name + "' holds " + std::to_string(c.chars().size()) +
                                   " bytes of strings in one batch, more than Arrow's utf8 offsets address (2 GiB)");
  }
  return Status::OK();
}

// One column's Arrow buffers: [validity, values] or [validity, offsets, characters], pointing into
// the column (kept alive by the owner) or into the bitmaps built here (validity, booleans: Column
// keeps its validity private).
struct ColumnBuffers {
  std::vector<uint8_t> validity;
  std::vector<uint8_t> packed;  // booleans; uuids (16 bytes a row, NULLs zero); decimals (128-bit)
  std::vector<const void*> pointers;
  std::vector<size_t> sizes;
};

ColumnBuffers BuffersOf(const Column& c) {
  ColumnBuffers b;
  if (c.null_count() > 0) b.validity = Bitmap(c.length(), [&](size_t i) { return c.IsValid(i); });
  b.pointers.push_back(b.validity.empty() ? nullptr : b.validity.data());
  b.sizes.push_back(b.validity.size());
  auto add = [&](const void* p, size_t size) {
    b.pointers.push_back(size == 0 || p == nullptr ? kEmpty : p);
    b.sizes.push_back(size);
  };
  if (c.type() == TypeId::kBool) {
    b.packed = Bitmap(c.length(), [v = c.data<uint8_t>()](size_t i) { return v[i] != 0; });
    add(b.packed.data(), b.packed.size());
  } else if (IsDecimal(c.type())) {  // Arrow's decimals are 128-bit: sign-extended, little-endian
    b.packed.resize(c.length() * 16);
    for (size_t i = 0; i < c.length(); ++i) {
      const __int128 v = c.data<int64_t>()[i];
      std::memcpy(b.packed.data() + i * 16, &v, 16);
    }
    add(b.packed.data(), b.packed.size());
  } else if (c.type() == TypeId::kUuid) {
    b.packed.assign(c.length() * 16, 0);
    for (size_t i = 0; i < c.length(); ++i) {
      if (c.IsValid(i)) std::memcpy(b.packed.data() + i * 16, c.GetString(i).data(), 16);
    }
    add(b.packed.data(), b.packed.size());
  } else if (IsBytes(c.type())) {
    add(c.offsets().data(), c.offsets().size() * sizeof(uint32_t));
    add(c.chars().data(), c.chars().size());
  } else {
    add(c.data<uint8_t>(), c.length() * size_t(FixedWidth(c.type())));
  }
  return b;
}

// --- C data interface ---

struct SchemaPrivate {
  std::string format, name, metadata;
  std::vector<ArrowSchema*> children;
};

}  // namespace

namespace internal {
// The C data interface's metadata: the number of pairs, then each key and value after its length
// (int32s in native order).
std::string EncodeMetadata(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  auto put = [&](int32_t n) { out.append(reinterpret_cast<const char*>(&n), 4); };
  put(int32_t(pairs.size()));
  for (const auto& [k, v] : pairs) {
    put(int32_t(k.size()));
    out += k;
    put(int32_t(v.size()));
    out += v;
  }
  return out;
}
}  // namespace internal

namespace {

using internal::EncodeMetadata;

// Arrow's canonical extension type for UUIDs (fixed_size_binary(16) underneath).
constexpr const char* kExtensionName = "ARROW:extension:name";
constexpr const char* kUuidExtension = "arrow.uuid";

// The release callback of an ArrowSchema or ArrowArray whose private data is a P: children not
// moved out by the consumer are released, then the struct marked released.
template <typename S, typename P>
void Release(S* s) {
  auto* p = static_cast<P*>(s->private_data);
  for (S* child : p->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete p;
  s->release = nullptr;
}

void FillSchema(ArrowSchema* out, std::string format, std::string name, int64_t flags, std::vector<ArrowSchema*> children,
                std::string metadata = {}) {
  auto* p = new SchemaPrivate{std::move(format), std::move(name), std::move(metadata), std::move(children)};
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = p->metadata.empty() ? nullptr : p->metadata.data();
  out->flags = flags;
  out->n_children = int64_t(p->children.size());
  out->children = p->children.empty() ? nullptr : p->children.data();
  out->dictionary = nullptr;
  out->release = Release<ArrowSchema, SchemaPrivate>;
  out->private_data = p;
}

struct ArrayPrivate {
  std::shared_ptr<const Batch> batch;  // the columns the buffers point into
  ColumnBuffers buffers;
  std::vector<ArrowArray*> children;
};

void FillArray(ArrowArray* out, ArrayPrivate* p, int64_t length, int64_t null_count) {
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = int64_t(p->buffers.pointers.size());
  out->n_children = int64_t(p->children.size());
  out->buffers = p->buffers.pointers.data();
  out->children = p->children.empty() ? nullptr : p->children.data();
  out->dictionary = nullptr;
  out->release = Release<ArrowArray, ArrayPrivate>;
  out->private_data = p;
}

struct StreamPrivate {
  Schema schema;
  NextBatch next;
  std::string error;
};

int ErrnoOf(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalidArgument: return EINVAL;
    case StatusCode::kNotFound: return ENOENT;
    case StatusCode::kNotSupported: return ENOSYS;
    case StatusCode::kCorruption: return EIO;
    case StatusCode::kIOError: return EIO;
    default: return EINVAL;
  }
}

StreamPrivate* StreamOf(ArrowArrayStream* s) { return static_cast<StreamPrivate*>(s->private_data); }

int StreamGetSchema(ArrowArrayStream* s, ArrowSchema* out) {
  try {
    ExportSchema(StreamOf(s)->schema, out);
    return 0;
  } catch (const std::bad_alloc&) {
    StreamOf(s)->error = "out of memory";
    return ENOMEM;
  }
}

int StreamGetNext(ArrowArrayStream* s, ArrowArray* out) {
  StreamPrivate* p = StreamOf(s);
  try {
    Batch batch;
    Result<bool> more = p->next(&batch);
    Status st = more.status();
    if (st.ok() && !*more) {
      out->release = nullptr;  // the end of the stream
      return 0;
    }
    if (st.ok()) st = ExportBatch(std::move(batch), out);
    if (st.ok()) return 0;
    p->error = st.ToString();
    return ErrnoOf(st);
  } catch (const std::bad_alloc&) {
    p->error = "out of memory";
    return ENOMEM;
  }
}

const char* StreamGetLastError(ArrowArrayStream* s) {
  StreamPrivate* p = StreamOf(s);
  return p->error.empty() ? nullptr : p->error.c_str();
}

void StreamRelease(ArrowArrayStream* s) {
  delete StreamOf(s);
  s->release = nullptr;
}

}  // namespace

std::string FormatOf(TypeId type) {
  if (IsDecimal(type)) return "d:" + std::to_string(DecimalPrecision(type)) + "," + std::to_string(DecimalScale(type));
  switch (type) {
    case TypeId::kBool: return "b";
    case TypeId::kInt32: return "i";
    case TypeId::kInt64: return "l";
    case TypeId::kFloat: return "f";
    case TypeId::kDouble: return "g";
    case TypeId::kString: return "u";
    case TypeId::kDate: return "tdD";
    case TypeId::kTimestamp: return "tsu:";
    case TypeId::kTimestampTz: return "tsu:UTC";
    case TypeId::kTimestampNs: return "tsn:";
    case TypeId::kBinary: return "z";
    case TypeId::kUuid: return "w:16";
  }
  return "n";
}

void ExportSchema(const Schema& schema, ArrowSchema* out) {
  std::vector<ArrowSchema*> children;
  for (const Field& f : schema.fields()) {
    auto* child = new ArrowSchema;
    FillSchema(child, FormatOf(f.type), f.name, f.nullable ? ARROW_FLAG_NULLABLE : 0, {},
               f.type == TypeId::kUuid ? EncodeMetadata({{kExtensionName, kUuidExtension}, {"ARROW:extension:metadata", ""}})
                                       : std::string());
    children.push_back(child);
  }
  FillSchema(out, "+s", "", 0, std::move(children));
}

Status ExportBatch(Batch batch, ArrowArray* out) {
  for (size_t c = 0; c < batch.num_columns(); ++c) RETURN_IF_ERROR(CheckStringSize(batch.column(c), batch.schema().field(c).name));
  auto shared = std::make_shared<const Batch>(std::move(batch));
  auto* parent = new ArrayPrivate{shared, {}, {}};
  parent->buffers.pointers.push_back(nullptr);  // a struct's validity: none
  for (size_t c = 0; c < shared->num_columns(); ++c) {
    const Column& column = shared->column(c);
    auto* p = new ArrayPrivate{shared, BuffersOf(column), {}};
    auto* child = new ArrowArray;
    FillArray(child, p, int64_t(column.length()), int64_t(column.null_count()));
    parent->children.push_back(child);
  }
  FillArray(out, parent, int64_t(shared->num_rows()), 0);
  return Status::OK();
}

void ExportStream(Schema schema, NextBatch next, ArrowArrayStream* out) {
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = new StreamPrivate{std::move(schema), std::move(next), {}};
}

// --- IPC stream ---
// Message.fbs / Schema.fbs of the Arrow format, as tables written by FlatBuilder.

namespace {

constexpr int16_t kMetadataV5 = 4;
enum MessageHeader : uint8_t { kHeaderSchema = 1, kHeaderRecordBatch = 3 };
enum TypeTag : uint8_t {
  kTypeInt = 2,
  kTypeFloatingPoint = 3,
  kTypeBinary = 4,
  kTypeUtf8 = 5,
  kTypeBool = 6,
  kTypeDecimal = 7,
  kTypeDate = 8,
  kTypeTimestamp = 10,
  kTypeFixedSizeBinary = 15,
};

// The Type union's table for `type` and its tag.
std::pair<uint8_t, FlatTable> TypeTable(TypeId type) {
  FlatTable t;
  if (IsDecimal(type)) {  // precision, scale, bitWidth 128
    t.Int32(0, DecimalPrecision(type)).Int32(1, DecimalScale(type)).Int32(2, 128);
    return {kTypeDecimal, t};
  }
  switch (type) {
    case TypeId::kBool: return {kTypeBool, t};
    case TypeId::kInt32: t.Int32(0, 32).Bool(1, true); return {kTypeInt, t};
    case TypeId::kInt64: t.Int32(0, 64).Bool(1, true); return {kTypeInt, t};
    case TypeId::kFloat: t.Int16(0, 1); return {kTypeFloatingPoint, t};   // SINGLE
    case TypeId::kDouble: t.Int16(0, 2); return {kTypeFloatingPoint, t};  // DOUBLE
    case TypeId::kString: return {kTypeUtf8, t};
    case TypeId::kDate: t.Int16(0, 0); return {kTypeDate, t};        // DAY
    case TypeId::kTimestamp: t.Int16(0, 2); return {kTypeTimestamp, t};  // MICROSECOND, no time zone
    case TypeId::kTimestampTz: t.Int16(0, 2).String(1, "UTC"); return {kTypeTimestamp, t};
    case TypeId::kTimestampNs: t.Int16(0, 3); return {kTypeTimestamp, t};  // NANOSECOND
    case TypeId::kBinary: return {kTypeBinary, t};
    case TypeId::kUuid: t.Int32(0, 16); return {kTypeFixedSizeBinary, t};
  }
  return {0, t};
}

// A message: continuation marker, metadata length, the Message flatbuffer padded to 8 bytes.
void AppendMessage(const FlatTable& message, std::string* out) {
  std::string meta = message.Finish();
  meta.resize((meta.size() + 8 + 7) / 8 * 8 - 8, '\0');
  const uint32_t continuation = 0xFFFFFFFFu;
  const int32_t length = int32_t(meta.size());
  out->append(reinterpret_cast<const char*>(&continuation), 4);
  out->append(reinterpret_cast<const char*>(&length), 4);
  out->append(meta);
}

}  // namespace

IpcStreamWriter::IpcStreamWriter(Schema schema) : schema_(std::move(schema)) {}

void IpcStreamWriter::WriteSchema(std::string* out) {
  std::vector<FlatTable> fields;
  for (const Field& f : schema_.fields()) {
    auto [tag, type] = TypeTable(f.type);
    FlatTable field;
    field.String(0, f.name).Bool(1, f.nullable).UInt8(2, tag).Table(3, std::move(type)).Tables(5, {});
    if (f.type == TypeId::kUuid) {  // custom_metadata: [KeyValue]
      FlatTable name, metadata;
      name.String(0, kExtensionName).String(1, kUuidExtension);
      metadata.String(0, "ARROW:extension:metadata").String(1, "");
      std::vector<FlatTable> pairs;
      pairs.push_back(std::move(name));
      pairs.push_back(std::move(metadata));
      field.Tables(6, std::move(pairs));
    }
    fields.push_back(std::move(field));
  }
  FlatTable schema;
  schema.Int16(0, 0).Tables(1, std::move(fields));  // little-endian
  FlatTable message;
  message.Int16(0, kMetadataV5).UInt8(1, kHeaderSchema).Table(2, std::move(schema)).Int64(3, 0);
  AppendMessage(message, out);
  schema_written_ = true;
}

Status IpcStreamWriter::Write(const Batch& batch, std::string* out) {
  if (!schema_written_) WriteSchema(out);
  // The body: every column's buffers in order, each padded to 8 bytes; placed first, then
  // appended after the message that describes them.
  std::vector<std::pair<int64_t, int64_t>> nodes;    // (length, null count)
  std::vector<std::pair<int64_t, int64_t>> buffers;  // (offset in the body, length)
  std::vector<ColumnBuffers> columns;
  int64_t body = 0;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const Column& column = batch.column(c);
    RETURN_IF_ERROR(CheckStringSize(column, batch.schema().field(c).name));
    nodes.emplace_back(int64_t(column.length()), int64_t(column.null_count()));
    columns.push_back(BuffersOf(column));
    for (size_t size : columns.back().sizes) {
      buffers.emplace_back(body, int64_t(size));
      body += (int64_t(size) + 7) / 8 * 8;
    }
  }
  FlatTable record;
  record.Int64(0, int64_t(batch.num_rows())).Structs(1, nodes).Structs(2, buffers);
  FlatTable message;
  message.Int16(0, kMetadataV5).UInt8(1, kHeaderRecordBatch).Table(2, std::move(record)).Int64(3, body);
  AppendMessage(message, out);
  out->reserve(out->size() + size_t(body));
  for (const ColumnBuffers& b : columns) {
    for (size_t i = 0; i < b.pointers.size(); ++i) {
      if (b.sizes[i] > 0) out->append(static_cast<const char*>(b.pointers[i]), b.sizes[i]);
      out->resize((out->size() + 7) / 8 * 8, '\0');  // messages start 8-aligned, so the body does
    }
  }
  return Status::OK();
}

void IpcStreamWriter::Finish(std::string* out) {
  if (!schema_written_) WriteSchema(out);
  const uint32_t end[2] = {0xFFFFFFFFu, 0};
  out->append(reinterpret_cast<const char*>(end), 8);
}

// --- importing a C stream ---

namespace {

// The value of `key` in a C data interface metadata blob (see EncodeMetadata), if present.
std::optional<std::string> MetadataValue(const char* metadata, std::string_view key) {
  if (metadata == nullptr) return std::nullopt;
  auto get = [&](int32_t* n) {
    std::memcpy(n, metadata, 4);
    metadata += 4;
    return *n >= 0;
  };
  int32_t pairs, k, v;
  if (!get(&pairs)) return std::nullopt;
  for (int32_t i = 0; i < pairs; ++i) {
    if (!get(&k)) return std::nullopt;
    const std::string_view this_key(metadata, size_t(k));
    metadata += k;
    if (!get(&v)) return std::nullopt;
    if (this_key == key) return std::string(metadata, size_t(v));
    metadata += v;
  }
  return std::nullopt;
}

}  // namespace

// The column type a producer's format (and extension metadata) maps to, or NotSupported naming
// the column.
Result<TypeId> internal::ImportedType(const std::string& format, const char* metadata, const std::string& name) {
  static const std::vector<std::pair<std::string, TypeId>> kExact = {
      {"b", TypeId::kBool},    {"c", TypeId::kInt32},  {"C", TypeId::kInt32},  {"s", TypeId::kInt32},
      {"S", TypeId::kInt32},   {"i", TypeId::kInt32},  {"I", TypeId::kInt64},  {"l", TypeId::kInt64},
      {"f", TypeId::kFloat},   {"g", TypeId::kDouble}, {"u", TypeId::kString}, {"U", TypeId::kString},
      {"z", TypeId::kBinary},  {"Z", TypeId::kBinary}, {"vu", TypeId::kString}, {"vz", TypeId::kBinary},
      {"tdD", TypeId::kDate},  {"tdm", TypeId::kDate}};
  for (const auto& [f, type] : kExact) {
    if (format == f) return type;
  }
  if (format.size() >= 4 && format.compare(0, 2, "ts") == 0 && format[3] == ':' &&
      std::string("smun").find(format[2]) != std::string::npos) {
    // A time zone makes an instant (kept in UTC, in microseconds); without one, nanoseconds stay.
    if (format.size() > 4) return TypeId::kTimestampTz;
    return format[2] == 'n' ? TypeId::kTimestampNs : TypeId::kTimestamp;
  }
  if (format.compare(0, 2, "w:") == 0) {
    if (format == "w:16" && MetadataValue(metadata, kExtensionName) == kUuidExtension) return TypeId::kUuid;
    return TypeId::kBinary;
  }
  if (format.compare(0, 2, "d:") == 0) {  // "d:precision,scale[,bitWidth]"
    int precision = -1, scale = -1, bits = 128;
    char tail = 0;
    const int got = std::sscanf(format.c_str() + 2, "%d,%d,%d%c", &precision, &scale, &bits, &tail);
    if (got < 2 || got > 3 || precision < 1 || scale < 0 || scale > precision || (bits != 128 && bits != 64 && bits != 32)) {
      return Status::NotSupported("Arrow column '" + name + "' has decimal format '" + format + "', which lakeindex does not read");
    }
    if (precision > kMaxDecimalPrecision) {
      return Status::NotSupported("Arrow column '" + name + "' is decimal(" + std::to_string(precision) + "," +
                                  std::to_string(scale) + "): precision above 18 (lakeindex decimals are 64-bit)");
    }
    return DecimalType(precision, scale);
  }
  return Status::NotSupported("Arrow column '" + name + "' has format '" + format +
                              "', which lakeindex does not read (booleans, integers but uint64, float32/64, strings, "
                              "binaries, dates, timestamps, uuids and decimals)");
}

int64_t internal::DecimalWidth(const std::string& format) {
  const size_t first = format.find(','), last = format.rfind(',');
  return first == last ? 16 : std::atoll(format.c_str() + last + 1) / 8;
}

namespace {

bool BitAt(const void* bits, int64_t i) { return (static_cast<const uint8_t*>(bits)[i >> 3] >> (i & 7)) & 1; }

bool ValidAt(const ArrowArray& a, int64_t i) {
  return a.buffers[0] == nullptr || a.null_count == 0 || BitAt(a.buffers[0], a.offset + i);
}

template <typename T>
T FixedAt(const ArrowArray& a, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(a.buffers[1]) + (a.offset + i) * int64_t(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

// Column `name` of `type` from the child array `a` of format `format`.
Result<Column> internal::ImportColumn(const ArrowArray& a, const std::string& format, TypeId type, const std::string& name) {
  const int64_t n = a.length;
  const int64_t fixed_width = format.compare(0, 2, "w:") == 0 ? std::atoll(format.c_str() + 2)
                              : format[0] == 'd'                ? DecimalWidth(format)
                                                                : 0;
  // Offsets and data (strings, binaries); views, their data buffers and the buffers' sizes.
  const bool three = format == "u" || format == "U" || format == "z" || format == "Z" || format == "vu" || format == "vz";
  if (n < 0 || a.offset < 0 || a.n_buffers < (three ? 3 : 2) ||
      (format[0] == 'w' && fixed_width <= 0)) {
    return Status::InvalidArgument("Arrow column '" + name + "': malformed array (length, offset or buffers)");
  }
  if (a.dictionary != nullptr) return Status::NotSupported("Arrow column '" + name + "' is dictionary-encoded");
  Column out(type);
  out.Reserve(size_t(n));
  auto bad = [&](const std::string& what) { return Status::InvalidArgument("Arrow column '" + name + "': " + what); };
  for (int64_t i = 0; i < n; ++i) {
    if (!ValidAt(a, i)) {
      out.AppendNull();
      continue;
    }
    switch (format[0]) {
      case 'b': out.Append<uint8_t>(BitAt(a.buffers[1], a.offset + i) ? 1 : 0); break;
      case 'c': out.Append<int32_t>(FixedAt<int8_t>(a, i)); break;
      case 'C': out.Append<int32_t>(FixedAt<uint8_t>(a, i)); break;
      case 's': out.Append<int32_t>(FixedAt<int16_t>(a, i)); break;
      case 'S': out.Append<int32_t>(FixedAt<uint16_t>(a, i)); break;
      case 'i': out.Append<int32_t>(FixedAt<int32_t>(a, i)); break;
      case 'I': out.Append<int64_t>(FixedAt<uint32_t>(a, i)); break;
      case 'l': out.Append<int64_t>(FixedAt<int64_t>(a, i)); break;
      case 'f': out.Append<float>(FixedAt<float>(a, i)); break;
      case 'g': out.Append<double>(FixedAt<double>(a, i)); break;
      case 'u': case 'z': case 'U': case 'Z': {
        const bool large = format[0] == 'U' || format[0] == 'Z';
        const int64_t lo = large ? FixedAt<int64_t>(a, i) : FixedAt<int32_t>(a, i);
        const int64_t hi = large ? FixedAt<int64_t>(a, i + 1) : FixedAt<int32_t>(a, i + 1);
        if (lo < 0 || hi < lo) return bad("string offsets decrease");
        RETURN_IF_ERROR(out.AppendString(std::string_view(static_cast<const char*>(a.buffers[2]) + lo, size_t(hi - lo))));
        break;
      }
      case 'v': {  // string / binary views (Polars' strings): 16 bytes each, inline up to 12 bytes
        const char* view = static_cast<const char*>(a.buffers[1]) + (a.offset + i) * 16;
        int32_t length;
        std::memcpy(&length, view, 4);
        if (length < 0) return bad("a view of negative length");
        if (length <= 12) {
          RETURN_IF_ERROR(out.AppendString(std::string_view(view + 4, size_t(length))));
          break;
        }
        int32_t buffer, offset;
        std::memcpy(&buffer, view + 8, 4);
        std::memcpy(&offset, view + 12, 4);
        const int64_t data_buffers = a.n_buffers - 3;  // validity, views, ..., sizes
        if (buffer < 0 || buffer >= data_buffers || offset < 0 ||
            int64_t(offset) + length > static_cast<const int64_t*>(a.buffers[a.n_buffers - 1])[buffer]) {
          return bad("a view outside its data buffers");
        }
        RETURN_IF_ERROR(out.AppendString(std::string_view(static_cast<const char*>(a.buffers[2 + buffer]) + offset, size_t(length))));
        break;
      }
      case 'd': {  // 128-bit (or 64 / 32) little-endian two's complement
        __int128 v = 0;
        const uint8_t* at = static_cast<const uint8_t*>(a.buffers[1]) + (a.offset + i) * fixed_width;
        if (fixed_width == 16) {
          std::memcpy(&v, at, 16);
        } else if (fixed_width == 8) {
          int64_t x;
          std::memcpy(&x, at, 8);
          v = x;
        } else {
          int32_t x;
          std::memcpy(&x, at, 4);
          v = x;
        }
        if (!FitsDecimal(v, type)) return bad("a value beyond the precision of " + std::string(TypeName(type)));
        out.Append<int64_t>(int64_t(v));
        break;
      }
      case 'w':
        RETURN_IF_ERROR(out.AppendString(std::string_view(
            static_cast<const char*>(a.buffers[1]) + (a.offset + i) * fixed_width, size_t(fixed_width))));
        break;
      case 't': {
        if (format[1] == 'd') {
          if (format[2] == 'D') {
            out.Append<int32_t>(FixedAt<int32_t>(a, i));
          } else {  // date64: milliseconds of whole days
            const int64_t ms = FixedAt<int64_t>(a, i);
            if (ms % 86400000 != 0) return bad("date64 value " + std::to_string(ms) + " ms is not a whole day");
            out.Append<int32_t>(int32_t(ms / 86400000));
          }
          break;
        }
        const int64_t v = FixedAt<int64_t>(a, i);
        if (type == TypeId::kTimestampNs) {
          out.Append<int64_t>(v);
          break;
        }
        int64_t micros = v;
        if (format[2] == 's' && __builtin_mul_overflow(v, int64_t(1000000), &micros)) return bad("timestamp out of range");
        if (format[2] == 'm' && __builtin_mul_overflow(v, int64_t(1000), &micros)) return bad("timestamp out of range");
        if (format[2] == 'n') {
          if (v % 1000 != 0) {
            return Status::NotSupported("Arrow column '" + name + "': nanosecond timestamp " + std::to_string(v) +
                                        " has a part finer than the microseconds lakeindex keeps");
          }
          micros = v / 1000;
        }
        out.Append<int64_t>(micros);
        break;
      }
      default:
        return bad("format '" + format + "'");
    }
  }
  return out;
}


Result<std::unique_ptr<StreamImporter>> StreamImporter::Make(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return Status::InvalidArgument("the Arrow stream was already released");
  std::unique_ptr<StreamImporter> importer(new StreamImporter());
  importer->stream_ = *stream;
  stream->release = nullptr;  // moved: ours to release
  ArrowArrayStream* s = &importer->stream_;
  ArrowSchema schema{};
  if (int rc = s->get_schema(s, &schema); rc != 0) {
    const char* error = s->get_last_error(s);
    return Status::IOError("the Arrow stream's schema: error " + std::to_string(rc) + (error ? std::string(": ") + error : ""));
  }
  struct Releaser {
    ArrowSchema* s;
    ~Releaser() {
      if (s->release != nullptr) s->release(s);
    }
  } release_schema{&schema};
  if (std::string(schema.format) != "+s") {
    return Status::NotSupported("an Arrow stream of '" + std::string(schema.format) + "' values: expected record batches (a struct, '+s')");
  }
  for (int64_t c = 0; c < schema.n_children; ++c) {
    const ArrowSchema& child = *schema.children[c];
    const std::string name = child.name != nullptr ? child.name : "";
    if (name.empty()) return Status::InvalidArgument("Arrow column " + std::to_string(c) + " has no name");
    if (child.dictionary != nullptr) return Status::NotSupported("Arrow column '" + name + "' is dictionary-encoded");
    ASSIGN_OR_RETURN(TypeId type, internal::ImportedType(child.format, child.metadata, name));
    if (importer->schema_.FindField(name) >= 0) return Status::InvalidArgument("Arrow columns named '" + name + "' twice");
    importer->schema_.AddField(Field{name, type, (child.flags & ARROW_FLAG_NULLABLE) != 0});
    importer->formats_.push_back(child.format);
  }
  if (importer->schema_.num_fields() == 0) return Status::InvalidArgument("the Arrow stream has no columns");
  return importer;
}

StreamImporter::~StreamImporter() {
  if (stream_.release != nullptr) stream_.release(&stream_);
}

Result<bool> StreamImporter::Next(Batch* out) {
  ArrowArray array{};
  if (int rc = stream_.get_next(&stream_, &array); rc != 0) {
    const char* error = stream_.get_last_error(&stream_);
    return Status::IOError("reading the Arrow stream: error " + std::to_string(rc) + (error ? std::string(": ") + error : ""));
  }
  if (array.release == nullptr) return false;
  struct Releaser {
    ArrowArray* a;
    ~Releaser() {
      if (a->release != nullptr) a->release(a);
    }
  } release_array{&array};
  if (array.n_children != int64_t(schema_.num_fields())) {
    return Status::InvalidArgument("an Arrow record batch of " + std::to_string(array.n_children) + " columns, the schema has " +
                                   std::to_string(schema_.num_fields()));
  }
  if (array.null_count != 0 && array.n_buffers > 0 && array.buffers[0] != nullptr) {
    return Status::NotSupported("an Arrow record batch with NULL rows (a struct's own validity)");
  }
  std::vector<Column> columns;
  for (size_t c = 0; c < schema_.num_fields(); ++c) {
    ArrowArray child = *array.children[c];
    child.offset += array.offset;  // a sliced batch slices its columns
    if (child.length < array.length) {
      return Status::InvalidArgument("Arrow column '" + schema_.field(c).name + "' is shorter than its record batch");
    }
    child.length = array.length;
    ASSIGN_OR_RETURN(Column column, internal::ImportColumn(child, formats_[c], schema_.field(c).type, schema_.field(c).name));
    if (!schema_.field(c).nullable && column.null_count() > 0) {
      return Status::InvalidArgument("Arrow column '" + schema_.field(c).name + "' is declared not nullable but holds NULLs");
    }
    columns.push_back(std::move(column));
  }
  *out = Batch(schema_, std::move(columns), size_t(array.length));
  return true;
}

}  // namespace lakeindex::arrow
