// A C++ program built against an installed lakeindex (find_package or pkg-config), as a user's
// would be: it creates a table from a CSV file, indexes a column, and prints what a query finds.
//   consumer TABLE_DIR CSV_FILE WHERE   ->  "rows <n> sum <sum of value>"
#include <cstdio>
#include <memory>
#include <string>

#include "lakeindex/batch.h"
#include "ops/operations.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/batch_source.h"
#include "table/table.h"

namespace {

using namespace lakeindex;

Status Run(const std::string& table_dir, const std::string& csv, const std::string& where) {
  ASSIGN_OR_RETURN(auto source, table::OpenLocalFileSource(csv, std::nullopt));
  ASSIGN_OR_RETURN(auto store, table::OpenTableStore(table_dir, /*create=*/true));
  ASSIGN_OR_RETURN(auto t, ops::Create(store, source.get(), table::WriteConfig{}));
  query::IndexOptions index;
  index.column = "id";
  index.type = "btree";
  RETURN_IF_ERROR(ops::CreateIndex(t.get(), index));

  query::ScanRequest request;
  request.where = where;
  ASSIGN_OR_RETURN(request.indexes, query::OpenIndexesFor(*t, where));
  ASSIGN_OR_RETURN(auto scanner, query::Scanner::Make(t.get(), request));
  const int value = scanner->schema().FindField("value");
  if (value < 0) return Status::InvalidArgument("no column 'value'");
  uint64_t rows = 0;
  int64_t sum = 0;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    rows += batch.num_rows();
    for (size_t i = 0; i < batch.num_rows(); ++i) sum += batch.column(value).Get<int64_t>(i);
  }
  std::printf("rows %llu sum %lld\n", static_cast<unsigned long long>(rows), static_cast<long long>(sum));
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: consumer TABLE_DIR CSV_FILE WHERE\n");
    return 2;
  }
  Status st = Run(argv[1], argv[2], argv[3]);
  if (!st.ok()) {
    std::fprintf(stderr, "consumer: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
