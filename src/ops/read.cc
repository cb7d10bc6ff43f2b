#include "ops/read.h"

#include <utility>

#include "query/binder.h"
#include "query/index_manager.h"
#include "query/order.h"
#include "query/parser.h"

namespace lakeindex::ops {
namespace {

// The rows of a scanner, as they are read.
class ScannerRows : public RowStream {
 public:
  explicit ScannerRows(std::unique_ptr<query::Scanner> scanner) : scanner_(std::move(scanner)) {}
  const Schema& schema() const override { return scanner_->schema(); }
  Result<bool> Next(Batch* out) override { return scanner_->Next(out); }

 private:
  std::unique_ptr<query::Scanner> scanner_;
};

// One batch, the whole (ordered) result.
class OneBatch : public RowStream {
 public:
  explicit OneBatch(Batch rows) : rows_(std::move(rows)), schema_(rows_.schema()) {}
  const Schema& schema() const override { return schema_; }
  Result<bool> Next(Batch* out) override {
    if (given_) return false;
    given_ = true;
    *out = std::move(rows_);
    return true;
  }

 private:
  Batch rows_;
  Schema schema_;
  bool given_ = false;
};

query::ScanRequest ScanOf(const ReadRequest& request, const PlannedFilter& planned) {
  query::ScanRequest scan;
  scan.where = request.where;
  scan.parsed = planned.parsed;
  scan.select = request.select;
  scan.sample = request.sample;
  scan.limit = request.limit;
  scan.indexes = planned.indexes;
  return scan;
}

}  // namespace

std::unique_ptr<RowStream> RowsOf(Batch rows) { return std::make_unique<OneBatch>(std::move(rows)); }

Result<PlannedFilter> PlanFilter(const table::Table& table, const std::string& where, const std::string& order_by) {
  PlannedFilter out;
  std::vector<std::string> columns;
  if (!where.empty()) {
    // A filter that does not parse or bind is the caller's `where` (--where, where=).
    auto about_where = [](const Status& st) { return st.parameter().empty() ? st.About("where") : st; };
    auto parsed = query::ParseExpression(where);
    if (!parsed.ok()) return about_where(parsed.status());
    out.parsed = std::move(*parsed);
    auto bound = query::Bind(*out.parsed, table.schema());
    if (!bound.ok()) return about_where(bound.status());
    out.bound = std::move(*bound);
    columns = query::ColumnsOf(*out.bound);
  } else if (!order_by.empty()) {
    // Without a filter, an order on one indexed column is read in order from its btree.
    ASSIGN_OR_RETURN(std::vector<query::OrderKey> keys, query::ParseOrderBy(order_by));
    Result<int> column = query::FindColumnFolded(table.schema(), keys[0].column);
    if (keys.size() == 1 && column.ok()) columns.push_back(table.schema().field(size_t(*column)).name);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const std::vector<query::IndexHandle>> indexes, query::SharedIndexes(table, columns));
  out.indexes = *indexes;
  return out;
}

Result<std::unique_ptr<RowStream>> Read(const table::Table& table, const ReadRequest& request,
                                        const PlannedFilter* planned) {
  PlannedFilter own;
  if (planned == nullptr) {
    ASSIGN_OR_RETURN(own, PlanFilter(table, request.where, request.order_by));
    planned = &own;
  }
  if (!request.order_by.empty()) {
    query::OrderedQuery ordered{request.where, request.select, request.order_by, request.limit,
                                request.sample,       planned->indexes, planned->parsed};
    ASSIGN_OR_RETURN(query::OrderedResult result, query::QueryOrdered(table, ordered));
    return RowsOf(std::move(result.rows));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<query::Scanner> scanner, query::Scanner::Make(&table, ScanOf(request, *planned)));
  return std::unique_ptr<RowStream>(std::make_unique<ScannerRows>(std::move(scanner)));
}

Result<std::unique_ptr<query::Scanner>> Explain(const table::Table& table, const ReadRequest& request, bool analyze) {
  ASSIGN_OR_RETURN(PlannedFilter planned, PlanFilter(table, request.where));
  ASSIGN_OR_RETURN(std::unique_ptr<query::Scanner> scanner, query::Scanner::Make(&table, ScanOf(request, planned)));
  RETURN_IF_ERROR(scanner->Explain(analyze));
  return scanner;
}

Result<uint64_t> Count(const table::Table& table, const std::string& where) {
  ASSIGN_OR_RETURN(PlannedFilter planned, PlanFilter(table, where));
  return query::CountWhere(table, where, std::move(planned.indexes), nullptr, planned.parsed, planned.bound);
}

Result<query::AggregateResult> Aggregate(const table::Table& table, query::AggregateRequest request) {
  ASSIGN_OR_RETURN(PlannedFilter planned, PlanFilter(table, request.where));
  request.indexes = std::move(planned.indexes);
  return query::AggregateTable(table, request);
}

TableStats Stats(const table::Table& table) {
  const table::Manifest& m = table.manifest();
  TableStats out;
  out.fragments = m.fragments.size();
  for (const table::FragmentMeta& f : m.fragments) {
    out.data_bytes += f.file_size;
    out.rows += f.live_rows();
    out.deleted_rows += f.rows - f.live_rows();
    for (const auto& [name, s] : f.stats) out.columns[name].Merge(s);
  }
  return out;
}

}  // namespace lakeindex::ops
