// Arrow's IPC stream and file formats read back (arrow.h OpenIpc): the Schema message's fields
// become C data interface formats, each RecordBatch's buffers ArrowArrays over the message body,
// and the importer arrow.cc shares with the C stream turns them into Columns. The messages are
// FlatBuffers (Message.fbs, Schema.fbs), read with FlatReader's bounds checks; the buffers are
// checked here against the body and the lengths their format needs before anything reads them.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/arrow/arrow.h"
#include "format/arrow/flatbuffer.h"

namespace lakeindex::arrow {

namespace {

// Message.fbs's header union and Schema.fbs's Type union (the members read here).
enum : uint8_t { kHeaderSchema = 1, kHeaderDictionaryBatch = 2, kHeaderRecordBatch = 3 };
enum : uint8_t {
  kInt = 2, kFloatingPoint = 3, kBinary = 4, kUtf8 = 5, kBool = 6, kDecimal = 7, kDate = 8, kTime = 9,
  kTimestamp = 10, kInterval = 11, kList = 12, kStruct = 13, kUnion = 14, kFixedSizeBinary = 15,
  kFixedSizeList = 16, kMap = 17, kDuration = 18, kLargeBinary = 19, kLargeUtf8 = 20,
};

std::string TypeTagName(uint8_t tag) {
  switch (tag) {
    case kDecimal: return "decimal";
    case kTime: return "time";
    case kInterval: return "interval";
    case kList: return "list";
    case kStruct: return "struct";
    case kUnion: return "union";
    case kFixedSizeList: return "fixed-size list";
    case kMap: return "map";
    case kDuration: return "duration";
    case 21: return "large list";
    case 22: return "run-end encoded array";
    case 23: return "binary view";
    case 24: return "string view";
    default: return "type numbered " + std::to_string(int(tag)) + " in Schema.fbs";
  }
}

struct IpcField {
  std::string name;
  std::string format;  // the C data interface's
  std::string metadata;  // encoded as the C data interface's, empty when none
  TypeId type = TypeId::kInt64;
};

// Bytes per value of a fixed-width format; 0 for the variable-width ones and booleans.
int64_t WidthOf(const std::string& format) {
  switch (format[0]) {
    case 'c': case 'C': return 1;
    case 's': case 'S': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'g': return 8;
    case 't': return format == "tdD" ? 4 : 8;
    case 'w': return std::atoll(format.c_str() + 2);
    case 'd': return internal::DecimalWidth(format);
    default: return 0;
  }
}

bool Variable(const std::string& format) { return format == "u" || format == "z" || format == "U" || format == "Z"; }

class IpcReader : public BatchReader {
 public:
  IpcReader(Fetch fetch, uint64_t size, std::string name) : fetch_(std::move(fetch)), size_(size), name_(std::move(name)) {}

  Status Start() {
    std::string magic;
    if (size_ >= 8) {
      ASSIGN_OR_RETURN(magic, Read(0, 6));
    }
    if (magic == "ARROW1") return StartFile();
    std::string_view meta, body;
    ASSIGN_OR_RETURN(bool got, NextMessage(&meta, &body));
    if (!got) return Corrupt(pos_, "no Schema message");
    auto message = FlatReader::Root(meta);
    if (!message) return Corrupt(message_at_, "a malformed message");
    if (message->Scalar<uint8_t>(1, 0) != kHeaderSchema) return Corrupt(message_at_, "the first message is not a Schema");
    auto schema = message->Table(2);
    if (!schema) return Corrupt(message_at_, "a Schema message without its schema");
    return ReadSchema(*schema);
  }

  // The file format: ARROW1, the messages, a Footer (the schema and where each record batch's
  // message is), its int32 length and ARROW1 again.
  Status StartFile() {
    file_ = true;
    std::string tail;
    if (size_ >= 18) {
      ASSIGN_OR_RETURN(tail, Read(size_ - 10, 10));
    }
    if (tail.size() != 10 || tail.compare(4, 6, "ARROW1") != 0) {
      return Corrupt(size_, "an Arrow IPC file without its closing ARROW1 (truncated?)");
    }
    int32_t footer_length;
    std::memcpy(&footer_length, tail.data(), 4);
    if (footer_length <= 0 || uint64_t(footer_length) > size_ - 18) {
      return Corrupt(size_ - 10, "a footer of " + std::to_string(footer_length) + " bytes");
    }
    const uint64_t footer_at = size_ - 10 - uint64_t(footer_length);
    message_at_ = footer_at;
    ASSIGN_OR_RETURN(footer_, Read(footer_at, uint64_t(footer_length)));
    auto footer = FlatReader::Root(footer_);
    if (!footer) return Corrupt(footer_at, "a malformed footer");
    auto schema = footer->Table(1);
    if (!schema) return Corrupt(footer_at, "a footer without its schema");
    size_t start = 0;
    auto blocks = footer->Vector(3, 24, &start);  // Block { offset: long, metaDataLength: int, bodyLength: long }
    if (!blocks) return Corrupt(footer_at, "a malformed list of record batches");
    for (size_t i = 0; i < *blocks; ++i) {
      int64_t offset;
      if (!footer->Load(start + 24 * i, &offset) || offset < 8 || uint64_t(offset) >= footer_at) {
        return Corrupt(footer_at, "record batch " + std::to_string(i) + " outside the file");
      }
      block_offsets_.push_back(uint64_t(offset));
    }
    if (footer->Vector(2, 24, &start).value_or(1) != 0) return Status::NotSupported(name_ + ": dictionary-encoded Arrow columns");
    return ReadSchema(*schema);
  }

  Status ReadSchema(const FlatReader& schema) {
    if (schema.Scalar<int16_t>(0, 0) != 0) return Status::NotSupported(name_ + ": a big-endian Arrow IPC stream");
    size_t start = 0;
    auto n = schema.Vector(1, 4, &start);
    if (!n) return Corrupt(message_at_, "a malformed field list");
    for (size_t i = 0; i < *n; ++i) {
      auto field = schema.TableAt(start, i);
      if (!field) return Corrupt(message_at_, "a malformed field");
      ASSIGN_OR_RETURN(IpcField f, ReadField(*field, i));
      ASSIGN_OR_RETURN(f.type, internal::ImportedType(f.format, f.metadata.empty() ? nullptr : f.metadata.data(), f.name));
      if (schema_.FindField(f.name) >= 0) return Status::InvalidArgument(name_ + ": Arrow columns named '" + f.name + "' twice");
      schema_.AddField(Field{f.name, f.type, field->Scalar<bool>(1, true).value_or(true)});
      fields_.push_back(std::move(f));
    }
    if (fields_.empty()) return Status::InvalidArgument(name_ + ": the Arrow stream has no columns");
    return Status::OK();
  }

  const Schema& schema() const override { return schema_; }

  Result<bool> Next(Batch* out) override {
    while (true) {
      std::string_view meta, body;
      if (file_) {  // the record batches the footer lists, in order
        if (next_block_ == block_offsets_.size()) return false;
        pos_ = block_offsets_[next_block_++];
      }
      ASSIGN_OR_RETURN(bool got, NextMessage(&meta, &body));
      if (!got) {
        if (file_) return Corrupt(message_at_, "a record batch the footer lists is not there");
        return false;
      }
      auto message = FlatReader::Root(meta);
      if (!message) return Corrupt(message_at_, "a malformed message");
      const std::optional<uint8_t> header = message->Scalar<uint8_t>(1, 0);
      if (header == kHeaderDictionaryBatch) return Status::NotSupported(name_ + ": dictionary-encoded Arrow columns");
      if (header == kHeaderSchema) return Corrupt(message_at_, "a second Schema message");
      if (header != kHeaderRecordBatch) return Corrupt(message_at_, "a message of unknown type " + std::to_string(int(header.value_or(0))));
      auto batch = message->Table(2);
      if (!batch) return Corrupt(message_at_, "a RecordBatch message without its header");
      ASSIGN_OR_RETURN(bool rows, ReadBatch(*batch, body, out));
      if (rows) return true;
    }
  }

 private:
  Status Corrupt(size_t at, const std::string& what) const {
    return Status::Corruption(name_ + ": Arrow IPC at byte " + std::to_string(at) + ": " + what);
  }

  // `length` bytes at `offset` (the caller has checked they lie within the object).
  Result<std::string> Read(uint64_t offset, uint64_t length) const {
    if (length == 0) return std::string();
    ASSIGN_OR_RETURN(std::string bytes, fetch_(offset, length));
    if (bytes.size() != length) return Status::IOError(name_ + ": read " + std::to_string(bytes.size()) + " of " +
                                                       std::to_string(length) + " bytes at " + std::to_string(offset));
    return bytes;
  }

  // The next message's metadata and body (held by the reader until the next call); false at the
  // end-of-stream marker or the end of the bytes (a stream may end without the marker).
  Result<bool> NextMessage(std::string_view* meta, std::string_view* body) {
    message_at_ = pos_;
    if (pos_ >= size_) return false;
    if (size_ - pos_ < 4) return Corrupt(pos_, "a truncated message length");
    char prefix[8] = {};
    const uint64_t prefix_size = std::min<uint64_t>(8, size_ - pos_);
    {
      Result<std::string> read = Read(pos_, prefix_size);
      if (!read.ok()) return read.status();
      read->copy(prefix, sizeof(prefix));
    }
    uint32_t word;
    std::memcpy(&word, prefix, 4);
    pos_ += 4;
    int32_t length = int32_t(word);
    if (word == 0xFFFFFFFFu) {  // the continuation marker, then the length
      if (prefix_size < 8) return Corrupt(pos_, "a truncated message length");
      std::memcpy(&length, prefix + 4, 4);
      pos_ += 4;
    }
    if (length == 0) return false;  // end of stream
    if (length < 0 || uint64_t(length) > size_ - pos_) {
      return Corrupt(message_at_, "a message of " + std::to_string(length) + " bytes past the end");
    }
    ASSIGN_OR_RETURN(meta_, Read(pos_, uint64_t(length)));
    pos_ += uint64_t(length);
    auto message = FlatReader::Root(meta_);
    const std::optional<int64_t> body_length = message ? message->Scalar<int64_t>(3, 0) : std::nullopt;
    if (!body_length || *body_length < 0 || uint64_t(*body_length) > size_ - pos_) {
      return Corrupt(message_at_, "a message body past the end");
    }
    ASSIGN_OR_RETURN(body_, Read(pos_, uint64_t(*body_length)));
    pos_ += uint64_t(*body_length);
    *meta = meta_;
    *body = body_;
    return true;
  }

  Result<IpcField> ReadField(const FlatReader& field, size_t index) const {
    IpcField f;
    const std::optional<std::string_view> name = field.String(0);
    if (!name) return Corrupt(message_at_, "a malformed field name");
    f.name = std::string(*name);
    if (f.name.empty()) return Status::InvalidArgument(name_ + ": Arrow column " + std::to_string(index) + " has no name");
    size_t children_start = 0;
    if (field.Vector(5, 4, &children_start).value_or(1) != 0) {
      return Status::NotSupported(name_ + ": Arrow column '" + f.name + "' is nested");
    }
    if (field.Has(4)) return Status::NotSupported(name_ + ": Arrow column '" + f.name + "' is dictionary-encoded");
    const uint8_t tag = field.Scalar<uint8_t>(2, 0).value_or(0);
    const std::optional<FlatReader> type = field.Table(3);
    auto not_read = [&](const std::string& what) {
      return Status::NotSupported(name_ + ": Arrow column '" + f.name + "' is a " + what + ", which lakeindex does not read");
    };
    if (!type && tag != kUtf8 && tag != kBinary && tag != kBool && tag != kLargeUtf8 && tag != kLargeBinary) {
      return Corrupt(message_at_, "column '" + f.name + "' has no type");
    }
    switch (tag) {
      case kInt: {
        const int32_t bits = type->Scalar<int32_t>(0, 0).value_or(0);
        const bool is_signed = type->Scalar<bool>(1, false).value_or(false);
        const char* formats = is_signed ? "csil" : "CSIL";
        const int which = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
        if (which < 0) return Corrupt(message_at_, "column '" + f.name + "': an integer of " + std::to_string(bits) + " bits");
        f.format = std::string(1, formats[which]);
        break;
      }
      case kFloatingPoint: {
        const int16_t precision = type->Scalar<int16_t>(0, 0).value_or(0);
        f.format = precision == 0 ? "e" : precision == 1 ? "f" : "g";
        break;
      }
      case kBinary: f.format = "z"; break;
      case kUtf8: f.format = "u"; break;
      case kLargeBinary: f.format = "Z"; break;
      case kLargeUtf8: f.format = "U"; break;
      case kBool: f.format = "b"; break;
      case kDate: f.format = type->Scalar<int16_t>(0, 1).value_or(1) == 0 ? "tdD" : "tdm"; break;
      case kTimestamp: {
        const int16_t unit = type->Scalar<int16_t>(0, 0).value_or(0);
        if (unit < 0 || unit > 3) return Corrupt(message_at_, "column '" + f.name + "': a timestamp unit " + std::to_string(unit));
        f.format = std::string("ts") + "smun"[unit] + ":" + std::string(type->String(1).value_or(""));
        break;
      }
      case kDecimal: {  // precision, scale, bitWidth (default 128)
        const int32_t precision = type->Scalar<int32_t>(0, 0).value_or(0);
        const int32_t scale = type->Scalar<int32_t>(1, 0).value_or(0);
        const int32_t bits = type->Scalar<int32_t>(2, 128).value_or(128);
        f.format = "d:" + std::to_string(precision) + "," + std::to_string(scale) + "," + std::to_string(bits);
        break;
      }
      case kFixedSizeBinary: {
        const int32_t width = type->Scalar<int32_t>(0, 0).value_or(0);
        if (width <= 0) return Corrupt(message_at_, "column '" + f.name + "': a fixed-size binary of " + std::to_string(width) + " bytes");
        f.format = "w:" + std::to_string(width);
        break;
      }
      default:
        return not_read(TypeTagName(tag));
    }
    // custom_metadata: [KeyValue { key: string, value: string }]
    size_t start = 0;
    const std::optional<size_t> pairs = field.Vector(6, 4, &start);
    if (!pairs) return Corrupt(message_at_, "column '" + f.name + "': malformed metadata");
    std::vector<std::pair<std::string, std::string>> kv;
    for (size_t i = 0; i < *pairs; ++i) {
      auto pair = field.TableAt(start, i);
      if (!pair) return Corrupt(message_at_, "column '" + f.name + "': malformed metadata");
      kv.emplace_back(std::string(pair->String(0).value_or("")), std::string(pair->String(1).value_or("")));
    }
    if (!kv.empty()) f.metadata = internal::EncodeMetadata(kv);
    return f;
  }

  // One RecordBatch into *out; false (and nothing in *out) for a batch of no rows.
  Result<bool> ReadBatch(const FlatReader& batch, std::string_view body, Batch* out) const {
    if (batch.Has(3)) return Status::NotSupported(name_ + ": a compressed Arrow IPC body (LZ4 or ZSTD buffers)");
    const std::optional<int64_t> length = batch.Scalar<int64_t>(0, 0);
    size_t nodes_at = 0, buffers_at = 0;
    const std::optional<size_t> nodes = batch.Vector(1, 16, &nodes_at);
    const std::optional<size_t> buffers = batch.Vector(2, 16, &buffers_at);
    if (!length || *length < 0 || !nodes || !buffers) return Corrupt(message_at_, "a malformed RecordBatch");
    if (*nodes != fields_.size()) {
      return Corrupt(message_at_, "a RecordBatch of " + std::to_string(*nodes) + " columns, the schema has " +
                                      std::to_string(fields_.size()));
    }
    size_t buffer = 0;
    std::vector<Column> columns;
    for (size_t c = 0; c < fields_.size(); ++c) {
      const IpcField& f = fields_[c];
      int64_t node[2];  // FieldNode: length, null_count
      if (!batch.Load(nodes_at + 16 * c, &node)) return Corrupt(message_at_, "a truncated FieldNode");
      if (node[0] != *length || node[1] < 0 || node[1] > node[0]) {
        return Corrupt(message_at_, "column '" + f.name + "': a FieldNode of " + std::to_string(node[0]) + " rows, " +
                                        std::to_string(node[1]) + " NULLs in a batch of " + std::to_string(*length));
      }
      const size_t n_buffers = Variable(f.format) ? 3 : 2;
      if (buffer + n_buffers > *buffers) return Corrupt(message_at_, "column '" + f.name + "': buffers missing");
      std::vector<std::string_view> views;
      for (size_t b = 0; b < n_buffers; ++b, ++buffer) {
        int64_t range[2];  // Buffer: offset, length in the body
        if (!batch.Load(buffers_at + 16 * buffer, &range)) return Corrupt(message_at_, "a truncated Buffer");
        if (range[0] < 0 || range[1] < 0 || uint64_t(range[0]) > body.size() || uint64_t(range[1]) > body.size() - uint64_t(range[0])) {
          return Corrupt(message_at_, "column '" + f.name + "': a buffer outside the message body");
        }
        views.push_back(body.substr(size_t(range[0]), size_t(range[1])));
      }
      RETURN_IF_ERROR(CheckBuffers(f, node[0], node[1], views));
      std::vector<const void*> pointers;
      for (std::string_view v : views) pointers.push_back(v.empty() ? nullptr : v.data());
      if (node[1] == 0) pointers[0] = nullptr;
      static const char kNothing[8] = {};
      for (size_t b = 1; b < pointers.size(); ++b) {
        if (pointers[b] == nullptr) pointers[b] = kNothing;  // an empty buffer of zero rows
      }
      ArrowArray array{node[0], node[1], 0, int64_t(pointers.size()), 0, pointers.data(), nullptr, nullptr, nullptr, nullptr};
      ASSIGN_OR_RETURN(Column column, internal::ImportColumn(array, f.format, f.type, f.name));
      if (!schema_.field(c).nullable && column.null_count() > 0) {
        return Status::InvalidArgument(name_ + ": Arrow column '" + f.name + "' is declared not nullable but holds NULLs");
      }
      columns.push_back(std::move(column));
    }
    if (*length == 0) return false;
    *out = Batch(schema_, std::move(columns), size_t(*length));
    return true;
  }

  // The buffers hold what `n` rows of the format need: a validity bit each (when some are
  // NULL), the values, and for strings offsets that rise within the characters.
  Status CheckBuffers(const IpcField& f, int64_t n, int64_t nulls, const std::vector<std::string_view>& b) const {
    auto short_buffer = [&](const char* which) {
      return Corrupt(message_at_, "column '" + f.name + "': its " + std::string(which) + " buffer is too short for " +
                                      std::to_string(n) + " rows");
    };
    const uint64_t bits = (uint64_t(n) + 7) / 8;
    if (nulls > 0 && b[0].size() < bits) return short_buffer("validity");
    if (f.format == "b") return b[1].size() < bits ? short_buffer("values") : Status::OK();
    if (!Variable(f.format)) {
      const uint64_t width = uint64_t(WidthOf(f.format));
      if (width == 0 || b[1].size() / width < uint64_t(n)) return short_buffer("values");
      return Status::OK();
    }
    const bool large = f.format == "U" || f.format == "Z";
    const uint64_t width = large ? 8 : 4;
    if (n > 0 && b[1].size() / width < uint64_t(n) + 1) return short_buffer("offsets");
    int64_t previous = 0;
    for (int64_t i = 0; n > 0 && i <= n; ++i) {
      int64_t offset;
      if (large) {
        std::memcpy(&offset, b[1].data() + 8 * i, 8);
      } else {
        int32_t o;
        std::memcpy(&o, b[1].data() + 4 * i, 4);
        offset = o;
      }
      if (offset < previous || uint64_t(offset) > b[2].size()) {
        return Corrupt(message_at_, "column '" + f.name + "': string offset " + std::to_string(offset) + " at row " +
                                        std::to_string(i) + " outside its " + std::to_string(b[2].size()) + " bytes");
      }
      previous = offset;
    }
    return Status::OK();
  }

  Fetch fetch_;
  uint64_t size_ = 0;
  std::string name_;
  uint64_t pos_ = 0, message_at_ = 0;
  std::string meta_, body_;  // the current message's
  bool file_ = false;
  std::string footer_;
  std::vector<uint64_t> block_offsets_;
  size_t next_block_ = 0;
  Schema schema_;
  std::vector<IpcField> fields_;
};

}  // namespace

Result<std::unique_ptr<BatchReader>> OpenIpc(Fetch fetch, uint64_t size, std::string name) {
  auto reader = std::make_unique<IpcReader>(std::move(fetch), size, std::move(name));
  RETURN_IF_ERROR(reader->Start());
  return std::unique_ptr<BatchReader>(std::move(reader));
}

Result<std::unique_ptr<BatchReader>> OpenIpc(std::string bytes, std::string name) {
  auto held = std::make_shared<const std::string>(std::move(bytes));
  const uint64_t size = held->size();
  return OpenIpc([held](uint64_t offset, uint64_t length) -> Result<std::string> { return held->substr(offset, length); },
                 size, std::move(name));
}

}  // namespace lakeindex::arrow
