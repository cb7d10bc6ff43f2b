#include "table/iceberg.h"

#include <cstring>
#include <set>

#include <gtest/gtest.h>
#include <roaring/roaring.hh>

#include "common/uuid.h"
#include "format/avro/avro_file.h"
#include "format/parquet/crc32.h"
#include "format/parquet/reader.h"
#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::table {
namespace {

using nlohmann::json;

TEST(IcebergTest, BoundsUseIcebergsSingleValueSerialization) {
  EXPECT_EQ(*iceberg::BoundBytes(Value::Bool(true), TypeId::kBool), std::string("\x01", 1));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Int32(-2), TypeId::kInt32), std::string("\xfe\xff\xff\xff", 4));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Date(1), TypeId::kDate), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Int64(1), TypeId::kInt64), std::string("\x01\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Timestamp(256), TypeId::kTimestamp), std::string("\0\x01\0\0\0\0\0\0", 8));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Float(1.0f), TypeId::kFloat), std::string("\0\0\x80\x3f", 4));
  EXPECT_EQ(*iceberg::BoundBytes(Value::Double(-2.0), TypeId::kDouble), std::string("\0\0\0\0\0\0\0\xc0", 8));
  EXPECT_EQ(*iceberg::BoundBytes(Value::String(""), TypeId::kString), "");  // a bound, not none
  EXPECT_EQ(*iceberg::BoundBytes(Value::String("h\xC3\xA9"), TypeId::kString), "h\xC3\xA9");
  EXPECT_FALSE(iceberg::BoundBytes(Value::String(std::string(iceberg::kMaxStringBoundBytes + 1, 'a')), TypeId::kString));
  EXPECT_FALSE(iceberg::BoundBytes(Value::Null(TypeId::kInt64), TypeId::kInt64));
}

TEST(IcebergTest, LocationsMustBeAbsoluteUris) {
  EXPECT_TRUE(iceberg::NewState("file:///data/t").ok());
  EXPECT_EQ((*iceberg::NewState("s3://bucket/t/"))["location"], "s3://bucket/t");
  for (const char* bad : {"relative/t", "/abs/path", "://x", "s3://"}) {
    auto st = iceberg::NewState(bad);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.status().message().find("absolute URI"), std::string::npos) << st.status().ToString();
  }
  const std::string uuid = (*iceberg::NewState("file:///t"))["table_uuid"];
  EXPECT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[8], '-');
}

Batch Rows(int64_t first, size_t n) {
  Schema schema({{"id", TypeId::kInt64, false}, {"s", TypeId::kString, true}});
  Batch b(schema);
  for (size_t i = 0; i < n; ++i) {
    b.mutable_column(0).Append<int64_t>(first + int64_t(i));
    (void)b.mutable_column(1).AppendString("v" + std::to_string(i % 3));
  }
  (void)b.Seal();
  return b;
}

// A table on a memory store that keeps Iceberg metadata (format version `format`): create (2
// files), delete, append.
std::unique_ptr<Table> MakeTable(const std::shared_ptr<ObjectStore>& store, int format = 2) {
  WriteConfig config;
  config.rows_per_file = 50;
  config.iceberg_location = "file:///mem/t";
  config.iceberg_format = format;
  Batch rows = Rows(0, 100);
  auto src = MemorySource(rows.schema(), {rows});
  auto t = Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  RowSet del;
  del.Add(MakeRowAddress((*t)->manifest().fragments[0].id, 3));
  del.Add(MakeRowAddress((*t)->manifest().fragments[1].id, 7));
  EXPECT_TRUE((*t)->DeleteRows(del).ok());
  Batch more = Rows(100, 10);
  auto src2 = MemorySource(more.schema(), {more});
  EXPECT_TRUE((*t)->Append(src2.get(), config).ok());
  return std::move(*t);
}

TEST(IcebergTest, EveryCommitWritesManifestsAvroCReadsAndPositionDeletesOurReaderReads) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  ASSERT_EQ(t->version(), 3u);
  const json& state = t->manifest().iceberg;
  // Version 1 wrote a data manifest of its 2 files; version 2 (a delete) listed it again and
  // wrote the delete manifest; version 3 (an append) lists both again and writes a manifest of its
  // one new file (Iceberg's fast append).
  ASSERT_EQ(state["manifests"].size(), 3u);
  auto v1 = Table::Open(store, 1), v2 = Table::Open(store, 2);
  ASSERT_TRUE(v1.ok() && v2.ok());
  EXPECT_EQ((*v1)->manifest().iceberg["manifests"], json::array({state["manifests"][0]}));
  EXPECT_EQ((*v2)->manifest().iceberg["manifests"], json::array({state["manifests"][0], state["manifests"][2]}));
  auto data = avro::ReadContainer(*store->Read(state["manifests"][0].get<std::string>()));
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  ASSERT_EQ(data->records.size(), 2u);
  EXPECT_NE(data->records[0].find(R"("status": 1, "snapshot_id": {"long": 1})"), std::string::npos) << data->records[0];
  EXPECT_NE(data->records[0].find("file:///mem/t/data/"), std::string::npos);
  // column_sizes: each column's compressed bytes (fields 1 and 2), as the fragment recorded them.
  const FragmentMeta& first = t->manifest().fragments[0];
  ASSERT_EQ(first.column_bytes.size(), 2u);
  EXPECT_NE(data->records[0].find(R"("column_sizes": {"array": [{"key": 1, "value": )" +
                                  std::to_string(first.column_bytes.at("id")) + "}, {\"key\": 2, \"value\": " +
                                  std::to_string(first.column_bytes.at("s")) + "}]}"),
            std::string::npos)
      << data->records[0];
  EXPECT_LT(first.column_bytes.at("id") + first.column_bytes.at("s"), first.file_size);
  auto appended = avro::ReadContainer(*store->Read(state["manifests"][1].get<std::string>()));
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  ASSERT_EQ(appended->records.size(), 1u);
  EXPECT_NE(appended->records[0].find(R"("status": 1, "snapshot_id": {"long": 3})"), std::string::npos)
      << appended->records[0];
  // The delete manifest: one file per fragment with deletions, written by version 2.
  auto deletes = avro::ReadContainer(*store->Read(state["manifests"][2].get<std::string>()));
  ASSERT_TRUE(deletes.ok());
  ASSERT_EQ(deletes->records.size(), 2u);
  EXPECT_NE(deletes->records[0].find(R"("content": 1)"), std::string::npos) << deletes->records[0];
  EXPECT_NE(deletes->records[0].find(R"("sequence_number": {"long": 2})"), std::string::npos) << deletes->records[0];
  // A position delete file: the data file's path and the deleted position, with Iceberg's ids.
  const json& del = state["deletes"][std::to_string(t->manifest().fragments[1].id)];
  auto reader = parquet::ParquetReader::Open(store.get(), del["file"].get<std::string>());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->num_rows(), 1u);
  EXPECT_EQ(rows->column(0).GetString(0), "file:///mem/t/" + t->manifest().fragments[1].file);
  EXPECT_EQ(rows->column(1).Get<int64_t>(0), 7);
  EXPECT_EQ((*reader)->metadata().schema[1].field_id, iceberg::kDeleteFilePathId);
  EXPECT_EQ((*reader)->metadata().schema[2].field_id, iceberg::kDeletePosId);
  // The manifest list names both manifests with their lengths.
  auto list = avro::ReadContainer(*store->Read(state["manifest_list"].get<std::string>()));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->records.size(), 3u);
  // Each manifest as the snapshot that wrote it described it.
  EXPECT_NE(list->records[0].find(R"("sequence_number": 1, "min_sequence_number": 1, "added_snapshot_id": 1, )"
                                  R"("added_files_count": 2, "existing_files_count": 0)"),
            std::string::npos)
      << list->records[0];
  EXPECT_NE(list->records[1].find(R"("sequence_number": 3, "min_sequence_number": 3, "added_snapshot_id": 3, )"
                                  R"("added_files_count": 1, "existing_files_count": 0)"),
            std::string::npos)
      << list->records[1];
  EXPECT_NE(list->records[2].find(R"("content": 1, "sequence_number": 2)"), std::string::npos) << list->records[2];
}

// The data files a version's data manifests list (each path once per listing).
std::multiset<std::string> ListedDataFiles(ObjectStore* store, const json& state) {
  std::multiset<std::string> out;
  for (const json& m : state["data_manifests"]) {
    auto read = avro::ReadContainer(*store->Read(m["path"].get<std::string>()));
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok()) continue;
    for (const std::string& r : read->records) {
      const std::string key = R"("file_path": ")";
      const size_t at = r.find(key);
      EXPECT_NE(at, std::string::npos) << r;
      if (at == std::string::npos) continue;
      out.insert(r.substr(at + key.size(), r.find('"', at + key.size()) - at - key.size()));
    }
  }
  return out;
}

// Manifests are reused while their files all stay, rewritten when one goes, merged past 16: at
// every version the data manifests list each live file exactly once, and an append writes one
// manifest however many the table has.
TEST(IcebergTest, ManifestsAreReusedWhileTheirFilesStayAndListEveryLiveFileOnce) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  WriteConfig config;
  config.rows_per_file = 50;
  std::vector<uint64_t> versions;
  for (int i = 0; i < 20; ++i) {
    Batch more = Rows(1000 + 10 * i, 10);
    auto src = MemorySource(more.schema(), {more});
    ASSERT_TRUE(t->Append(src.get(), config).ok());
    const json& state = t->manifest().iceberg;
    EXPECT_LE(state["data_manifests"].size(), 16u);
    if (i < 10) {  // fewer than 16: every earlier manifest listed again, one new one written
      EXPECT_EQ(state["data_manifests"].size(), size_t(i) + 3);
    }
  }
  RowSet del;
  del.Add(MakeRowAddress(t->manifest().fragments[4].id, 0));
  ASSERT_TRUE(t->DeleteRows(del).ok());
  config.rows_per_file = 100;
  ASSERT_TRUE(t->Optimize(config).ok());
  ASSERT_GT(t->version(), 20u);
  for (uint64_t v = 1; v <= t->version(); ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    auto at = Table::Open(store, v);
    ASSERT_TRUE(at.ok()) << at.status().ToString();
    std::multiset<std::string> want;
    for (const FragmentMeta& f : (*at)->manifest().fragments) want.insert("file:///mem/t/" + f.file);
    EXPECT_EQ(ListedDataFiles(store.get(), (*at)->manifest().iceberg), want);
    std::set<std::string> paths;
    for (const json& p : (*at)->manifest().iceberg["manifests"]) paths.insert(p.get<std::string>());
    EXPECT_EQ(paths.size(), (*at)->manifest().iceberg["manifests"].size()) << "a manifest listed twice";
  }
}

// A fragment whose file is replaced under the same id (iceberg enable's portable rewrite) is
// listed by its new path, and its position deletes are written anew for that path: nothing of
// the previous version's listing of the old file is carried over.
TEST(IcebergTest, AFileReplacedUnderItsIdIsListedAnewWithItsDeletes) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  const FragmentMeta old = t->manifest().fragments[0];
  ASSERT_TRUE(old.deletion.has_value());
  RewrittenFile r{old.file, old};
  r.to.file = "data/" + NewUuid() + ".parquet";
  ASSERT_TRUE(t->store()->Write(r.to.file, *t->store()->Read(old.file)).ok());
  auto enabled = t->EnableIceberg("file:///mem/t", false, {r});
  ASSERT_TRUE(enabled.ok()) << enabled.status().ToString();
  EXPECT_TRUE(enabled->committed);
  const json& state = t->manifest().iceberg;
  std::multiset<std::string> listed = ListedDataFiles(store.get(), state);
  EXPECT_EQ(listed.count("file:///mem/t/" + r.to.file), 1u);
  EXPECT_EQ(listed.count("file:///mem/t/" + old.file), 0u);
  EXPECT_EQ(listed.size(), t->manifest().fragments.size());
  const json& del = state["deletes"][std::to_string(old.id)];
  EXPECT_EQ(del["seq"], t->version());  // written for the new path
  auto deletes = parquet::ParquetReader::Open(store.get(), del["file"].get<std::string>());
  ASSERT_TRUE(deletes.ok()) << deletes.status().ToString();
  auto rows = (*deletes)->ReadAll();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->column(0).GetValue(0), Value::String("file:///mem/t/" + r.to.file));
  EXPECT_TRUE(t->Verify().ok());
  EXPECT_TRUE(iceberg::VerifyMetadata(store.get(), t->manifest()).ok());
  // Another rewrite of the same fragment from the same (now stale) file commits nothing.
  auto stale = t->EnableIceberg("file:///mem/t", false, {r});
  EXPECT_TRUE(stale.status().IsConflict()) << stale.status().ToString();
}

uint32_t BigEndian32At(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 | uint32_t(uint8_t(s[at + 2])) << 8 |
         uint32_t(uint8_t(s[at + 3]));
}
template <typename T>
T LittleEndianAt(const std::string& s, size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof(T));
  return v;
}

// The positions of a Puffin file's one deletion-vector-v1 blob, read as the Puffin spec and
// Iceberg's deletion vector spec lay them out (magic, footer, blob length, magic, portable 64-bit
// Roaring, CRC-32); `referenced` gets the blob's data file. Failures are test failures.
std::vector<uint64_t> ReadDeletionVector(const std::string& file, std::string* referenced) {
  std::vector<uint64_t> out;
  EXPECT_EQ(file.substr(0, 4), "PFA1");
  EXPECT_EQ(file.substr(file.size() - 4), "PFA1");
  const uint32_t payload_size = LittleEndianAt<uint32_t>(file, file.size() - 12);
  EXPECT_EQ(LittleEndianAt<uint32_t>(file, file.size() - 8), 0u);  // flags: uncompressed
  const size_t payload_at = file.size() - 12 - payload_size;
  EXPECT_EQ(file.substr(payload_at - 4, 4), "PFA1");
  json footer = json::parse(file.substr(payload_at, payload_size));
  EXPECT_EQ(footer["blobs"].size(), 1u);
  const json& blob = footer["blobs"][0];
  EXPECT_EQ(blob["type"], "deletion-vector-v1");
  EXPECT_EQ(blob["fields"], json::array({iceberg::kDeletePosId}));
  *referenced = blob["properties"]["referenced-data-file"];
  const size_t at = blob["offset"], length = blob["length"];
  const std::string bytes = file.substr(at, length);
  const uint32_t body = BigEndian32At(bytes, 0);
  EXPECT_EQ(body + 8, length);
  EXPECT_EQ(bytes.substr(4, 4), "\xD1\xD3\x39\x64");
  EXPECT_EQ(BigEndian32At(bytes, 4 + body), parquet::Crc32(reinterpret_cast<const uint8_t*>(bytes.data() + 4), body));
  const uint64_t buckets = LittleEndianAt<uint64_t>(bytes, 8);
  size_t pos = 16;
  for (uint64_t b = 0; b < buckets; ++b) {
    const uint64_t key = LittleEndianAt<uint32_t>(bytes, pos);
    pos += 4;
    roaring::Roaring r = roaring::Roaring::readSafe(bytes.data() + pos, 4 + body - pos);
    pos += r.getSizeInBytes(/*portable=*/true);
    for (uint32_t low : r) out.push_back(key << 32 | low);
  }
  EXPECT_EQ(pos, 4 + body);
  EXPECT_EQ(std::to_string(out.size()), blob["properties"]["cardinality"].get<std::string>());
  return out;
}

// Format version 3: deletes as deletion vectors (a Puffin file of one blob each, naming its data
// file), data files with the v3 fields, row ids assigned once per row, the snapshot saying them.
TEST(IcebergTest, FormatThreeWritesDeletionVectorsAndRowLineage) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store, 3);
  ASSERT_EQ(t->version(), 3u);
  const json& state = t->manifest().iceberg;
  EXPECT_EQ(state["format"], 3);
  // Deletion vectors: fragment 0 lost row 3, fragment 1 row 7.
  for (size_t f = 0; f < 2; ++f) {
    const FragmentMeta& fragment = t->manifest().fragments[f];
    const json& del = state["deletes"][std::to_string(fragment.id)];
    ASSERT_TRUE(del["file"].get<std::string>().ends_with(".puffin")) << del.dump();
    std::string referenced;
    EXPECT_EQ(ReadDeletionVector(*store->Read(del["file"].get<std::string>()), &referenced),
              std::vector<uint64_t>{f == 0 ? 3u : 7u});
    EXPECT_EQ(referenced, "file:///mem/t/" + fragment.file);
  }
  auto deletes = avro::ReadContainer(*store->Read(state["delete_manifest"]["path"].get<std::string>()));
  ASSERT_TRUE(deletes.ok()) << deletes.status().ToString();
  ASSERT_EQ(deletes->records.size(), 2u);
  for (const std::string& r : deletes->records) {
    EXPECT_NE(r.find(R"("file_format": "PUFFIN")"), std::string::npos) << r;
    EXPECT_NE(r.find(R"("referenced_data_file": {"string": "file:///mem/t/data/)"), std::string::npos) << r;
    EXPECT_NE(r.find(R"("content_offset": {"long": 4})"), std::string::npos) << r;
  }
  auto data = avro::ReadContainer(*store->Read(state["manifests"][0].get<std::string>()));
  ASSERT_TRUE(data.ok());
  EXPECT_NE(data->records[0].find(R"("first_row_id": null)"), std::string::npos) << data->records[0];
  // Row lineage: version 1's manifest has rows 0..99, the append's 100..109; the delete assigned none.
  json meta = json::parse(*store->Read("metadata/v3.metadata.json"));
  EXPECT_EQ(meta["format-version"], 3);
  EXPECT_EQ(meta["next-row-id"], 110);
  ASSERT_EQ(meta["snapshots"].size(), 3u);
  EXPECT_EQ(meta["snapshots"][0]["first-row-id"], 0);
  EXPECT_EQ(meta["snapshots"][0]["added-rows"], 100);
  EXPECT_EQ(meta["snapshots"][1]["added-rows"], 0);
  EXPECT_EQ(meta["snapshots"][2]["first-row-id"], 100);
  EXPECT_EQ(meta["snapshots"][2]["added-rows"], 10);
  EXPECT_EQ(state["data_manifests"][0]["first_row_id"], 0);
  EXPECT_EQ(state["data_manifests"][1]["first_row_id"], 100);
  EXPECT_TRUE(iceberg::VerifyMetadata(store.get(), t->manifest()).ok());
  EXPECT_TRUE(t->Verify().ok());

  // Format 2 tables are as they were; other versions are refused, about the parameter.
  std::shared_ptr<ObjectStore> v2_store = NewMemoryStore();
  auto v2 = MakeTable(v2_store);
  json v2_meta = json::parse(*v2_store->Read("metadata/v3.metadata.json"));
  EXPECT_EQ(v2_meta["format-version"], 2);
  EXPECT_FALSE(v2_meta.contains("next-row-id"));
  EXPECT_FALSE(v2->manifest().iceberg.contains("format"));
  auto bad = iceberg::NewState("file:///t", 4);
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_EQ(bad.status().parameter(), "iceberg_format");

  // A v2 table moved to format 3: every Iceberg file anew, the deletes as deletion vectors.
  auto moved = v2->EnableIceberg("file:///mem/t", false, {}, 3);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_TRUE(moved->committed);
  EXPECT_EQ(v2->manifest().iceberg["format"], 3);
  for (const auto& [id, del] : v2->manifest().iceberg["deletes"].items()) {
    EXPECT_TRUE(del["file"].get<std::string>().ends_with(".puffin")) << id;
  }
  json v4 = json::parse(*v2_store->Read("metadata/v4.metadata.json"));
  EXPECT_EQ(v4["format-version"], 3);
  EXPECT_EQ(v4["snapshots"].size(), 1u);  // the history starts at the change, as after a move
  EXPECT_EQ(v4["next-row-id"], 110);
  auto again = v2->EnableIceberg("file:///mem/t");  // the format it keeps: nothing to do
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->committed);
}

TEST(IcebergTest, MetadataMissingAfterACrashIsWrittenByTheNextCommitFromCommittedManifests) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  const std::string v3 = *store->Read(iceberg::MetadataPath(3));
  // As if the processes that committed versions 2 and 3 died before writing their metadata.
  ASSERT_TRUE(store->Delete(iceberg::MetadataPath(2)).ok());
  ASSERT_TRUE(store->Delete(iceberg::MetadataPath(3)).ok());
  RowSet del;
  del.Add(MakeRowAddress(t->manifest().fragments[2].id, 0));
  ASSERT_TRUE(t->DeleteRows(del).ok());
  EXPECT_EQ(*store->Read(iceberg::MetadataPath(3)), v3) << "rolled forward to the same bytes";
  const json v4 = json::parse(*store->Read(iceberg::MetadataPath(4)));
  EXPECT_EQ(v4["snapshots"].size(), 4u);
  EXPECT_EQ(v4["metadata-log"].size(), 3u);
  EXPECT_EQ(*store->Read(iceberg::kVersionHintPath), "4");
  // Enabling again commits nothing and repairs.
  ASSERT_TRUE(store->Delete(iceberg::MetadataPath(4)).ok());
  auto path = t->EnableIceberg("file:///elsewhere");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(path->metadata, iceberg::MetadataPath(4));
  EXPECT_FALSE(path->committed);
  EXPECT_EQ(t->version(), 4u);
  EXPECT_EQ(json::parse(*store->Read(path->metadata))["location"], "file:///mem/t");
}

// Version 3 lost (its manifest deleted behind the tool's back) and accepted as lost: the next
// commit is version 3 again, and its metadata file replaces the lost one's (Iceberg readers of
// version 3 then see lakeindex's version 3), which verify told apart before.
TEST(IcebergTest, AVersionNumberTakenAgainGetsItsOwnMetadataFile) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  const std::string lost_metadata = *store->Read(iceberg::MetadataPath(3));
  ASSERT_TRUE(store->Delete(ManifestPath(3)).ok());
  ASSERT_TRUE(Table::AcceptLostVersions(store.get(), 3).ok());
  auto back = Table::Open(store);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ((*back)->version(), 2u);
  RowSet del;
  del.Add(MakeRowAddress((*back)->manifest().fragments[0].id, 9));
  ASSERT_TRUE((*back)->DeleteRows(del).ok());
  ASSERT_EQ((*back)->version(), 3u);
  const Manifest& m = (*back)->manifest();
  const std::string text = *store->Read(iceberg::MetadataPath(3));
  EXPECT_NE(text, lost_metadata);
  const json v3 = json::parse(text);
  const json& snapshot = v3["snapshots"].back();
  EXPECT_EQ(snapshot["summary"]["lakeindex.commit-id"], m.commit_id);
  EXPECT_EQ(snapshot["summary"]["total-records"], std::to_string(m.fragments[0].rows + m.fragments[1].rows));
  EXPECT_EQ(snapshot["summary"]["lakeindex.operation"], "delete");
  EXPECT_TRUE(iceberg::VerifyMetadata(store.get(), m).ok());
  // The lost one's file put back: verify names it as another commit's; enabling again repairs it.
  ASSERT_TRUE(store->Write(iceberg::MetadataPath(3), lost_metadata).ok());
  Status st = iceberg::VerifyMetadata(store.get(), m);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("describes another commit"), std::string::npos) << st.ToString();
  ASSERT_TRUE((*back)->EnableIceberg("file:///mem/t").ok());
  EXPECT_TRUE(iceberg::VerifyMetadata(store.get(), m).ok());
  EXPECT_EQ(*store->Read(iceberg::MetadataPath(3)), text);
}

TEST(IcebergTest, DamagedStateOrMetadataIsCorruptionAndCommitsNothing) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store);
  // A previous metadata file that is not JSON: the next publish writes it again from version 3's
  // manifest before its own (the commit stands: it was made first).
  ASSERT_TRUE(store->Write(iceberg::MetadataPath(3), "{not json").ok());
  Manifest m = t->manifest();
  m.version = 4;
  m.parent_version = 3;
  ASSERT_TRUE(iceberg::PrepareCommit(store.get(), &m).ok());
  iceberg::Versions versions{[&](uint64_t v) { return Table::LoadManifest(store.get(), v); },
                             [](uint64_t) -> Result<bool> { return true; }};
  auto published = iceberg::PublishMetadata(store.get(), m, versions);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  const json v3 = json::parse(*store->Read(iceberg::MetadataPath(3)));
  EXPECT_EQ(v3["current-snapshot-id"], 3);
  EXPECT_TRUE(iceberg::VerifyMetadata(store.get(), *Table::LoadManifest(store.get(), 3)).ok());
  EXPECT_EQ(json::parse(*store->Read(iceberg::MetadataPath(4)))["snapshots"].size(), 4u);
  // A manifest whose "iceberg" object lost its location: the commit is refused, nothing changes.
  Manifest broken = t->manifest();
  broken.iceberg.erase("location");
  EXPECT_TRUE(iceberg::PrepareCommit(store.get(), &broken).IsCorruption());
  // Values of the wrong type, and a carried-over delete file outside metadata/deletes/: Corruption
  // naming it, no exception.
  const std::string frag = std::to_string(t->manifest().fragments[1].id);
  Manifest mistyped = t->manifest();
  mistyped.iceberg["deletes"][frag]["rows"] = "many";
  Status st = iceberg::PrepareCommit(store.get(), &mistyped);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("malformed"), std::string::npos) << st.ToString();
  Manifest escaping = t->manifest();
  escaping.iceberg["deletes"][frag]["file"] = "metadata/deletes/../../../etc/passwd";
  st = iceberg::PrepareCommit(store.get(), &escaping);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("not under metadata/deletes/"), std::string::npos) << st.ToString();
  // A version whose manifest says versions below 3 expired lists the snapshots from 3 on, in a
  // file of its own (version 4's is not rewritten).
  const std::string v4_text = *store->Read(iceberg::MetadataPath(4));
  Manifest m5 = m;
  m5.version = 5;
  m5.parent_version = 4;
  m5.expired_before = 3;
  ASSERT_TRUE(iceberg::PrepareCommit(store.get(), &m5).ok());
  ASSERT_TRUE(iceberg::PublishMetadata(store.get(), m5, versions).ok());
  const json v5 = json::parse(*store->Read(iceberg::MetadataPath(5)));
  std::vector<uint64_t> ids;
  for (const json& sn : v5["snapshots"]) ids.push_back(sn["snapshot-id"].get<uint64_t>());
  EXPECT_EQ(ids, (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_EQ(v5["snapshot-log"].size(), 3u);
  EXPECT_EQ(*store->Read(iceberg::MetadataPath(4)), v4_text);
  // A previous metadata file whose snapshot ids are not numbers, or whose log is malformed:
  // Corruption naming it, no exception.
  Manifest m6 = m5;
  m6.version = 6;
  m6.parent_version = 5;
  ASSERT_TRUE(iceberg::PrepareCommit(store.get(), &m6).ok());
  ASSERT_TRUE(store->Write(iceberg::MetadataPath(5), R"({"snapshots": [{"snapshot-id": "one"}]})").ok());
  EXPECT_TRUE(iceberg::PublishMetadata(store.get(), m6, versions).status().IsCorruption());
  ASSERT_TRUE(store->Write(iceberg::MetadataPath(5), R"({"snapshots": [{"snapshot-id": 1}], "snapshot-log": [{"snapshot-id": []}]})").ok());
  iceberg::Versions none_there{versions.load, [](uint64_t) -> Result<bool> { return false; }};
  EXPECT_TRUE(iceberg::PublishMetadata(store.get(), m6, none_there).status().IsCorruption());
}

}  // namespace
}  // namespace lakeindex::table
