#include "format/avro/avro_file.h"

#include <gtest/gtest.h>

namespace lakeindex::avro {
namespace {

constexpr const char* kSchema = R"({"type":"record","name":"entry","fields":[
  {"name":"status","type":"int","field-id":0},
  {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
  {"name":"data_file","type":{"type":"record","name":"r2","fields":[
    {"name":"file_path","type":"string","field-id":100},
    {"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102},
    {"name":"bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k126_v127",
      "fields":[{"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]}}],
      "default":null,"field-id":125}]},"field-id":2}]})";

TEST(AvroContainerTest, AvroCReadsBackWhatIsWrittenAndTheHeaderKeepsFieldIdsAndMetadata) {
  auto w = ContainerWriter::Make(kSchema, {{"format-version", "2"}, {"content", "data"}});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int i = 0; i < 3; ++i) {
    avro_value_t* r = (*w)->record();
    ASSERT_TRUE(SetInt(r, "status", i).ok());
    if (i == 1) {
      ASSERT_TRUE(SetNull(r, "snapshot_id").ok());
    } else {
      auto id = SetNonNull(r, "snapshot_id");
      ASSERT_TRUE(id.ok());
      ASSERT_EQ(avro_value_set_long(&*id, 1000 + i), 0);
    }
    auto file = Field(r, "data_file");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(SetString(&*file, "file_path", "file:///t/data/" + std::to_string(i) + ".parquet").ok());
    if (i == 2) {
      auto bounds = SetNonNull(&*file, "bounds");
      ASSERT_TRUE(bounds.ok());
      avro_value_t item;
      ASSERT_EQ(avro_value_append(&*bounds, &item, nullptr), 0);
      ASSERT_TRUE(SetInt(&item, "key", 7).ok());
      avro_value_t value;
      ASSERT_EQ(avro_value_get_by_name(&item, "value", &value, nullptr), 0);
      char bytes[] = {1, 2, 3, 4};  // avro-c's JSON of bytes stops at a zero byte
      ASSERT_EQ(avro_value_set_bytes(&value, bytes, 4), 0);
    } else {
      ASSERT_TRUE(SetNull(&*file, "bounds").ok());
    }
    ASSERT_TRUE((*w)->Append().ok());
  }
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  EXPECT_NE(file->find(R"("field-id":100)"), std::string::npos);
  EXPECT_NE(file->find("format-version"), std::string::npos);

  auto back = ReadContainer(*file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->records.size(), 3u);
  EXPECT_EQ(back->records[0],
            R"({"status": 0, "snapshot_id": {"long": 1000}, "data_file": {"file_path": "file:///t/data/0.parquet", "partition": {}, "bounds": null}})");
  EXPECT_EQ(back->records[1],
            R"({"status": 1, "snapshot_id": null, "data_file": {"file_path": "file:///t/data/1.parquet", "partition": {}, "bounds": null}})");
  EXPECT_NE(back->records[2].find(R"("bounds": {"array": [{"key": 7, "value": "\u0001\u0002\u0003\u0004"}]})"), std::string::npos)
      << back->records[2];
}

TEST(AvroContainerTest, AFileWithoutRecordsIsAHeaderAvroCReads) {
  auto w = ContainerWriter::Make(kSchema, {});
  ASSERT_TRUE(w.ok());
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  auto back = ReadContainer(*file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->records.empty());
}

TEST(AvroContainerTest, ErrorsNameWhatIsWrong) {
  EXPECT_FALSE(ContainerWriter::Make(R"({"type":"record","name":"x","fields":[{"name":"a","type":"nope"}]})", {}).ok());
  auto w = ContainerWriter::Make(kSchema, {});
  ASSERT_TRUE(w.ok());
  Status st = SetInt((*w)->record(), "no_such_field", 1);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("no_such_field"), std::string::npos);
  EXPECT_FALSE(ReadContainer("not an avro file").ok());
}

}  // namespace
}  // namespace lakeindex::avro
