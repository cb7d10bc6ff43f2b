#include "ops/read.h"

#include <utility>

#include "query/binder.h"
#include "query/index_manager.h"
#include "query/order.h"
#include "query/parser.h"
#include "query/select_list.h"

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

// The rows of `rows` after the first `skip`.
class SkipRows : public RowStream {
 public:
  SkipRows(std::unique_ptr<RowStream> rows, uint64_t skip) : rows_(std::move(rows)), skip_(skip) {}
  const Schema& schema() const override { return rows_->schema(); }
  Result<bool> Next(Batch* out) override {
    while (true) {
      ASSIGN_OR_RETURN(bool more, rows_->Next(out));
      if (!more || skip_ == 0) return more;
      const uint64_t n = out->num_rows();
      if (n <= skip_) {
        skip_ -= n;
        continue;
      }
      *out = out->Slice(size_t(skip_), size_t(n - skip_));
      skip_ = 0;
      return true;
    }
  }

 private:
  std::unique_ptr<RowStream> rows_;
  uint64_t skip_;
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

// The rows a read takes before its offset is skipped.
std::optional<uint64_t> LimitWithOffset(const ReadRequest& request) {
  if (!request.limit) return std::nullopt;
  return *request.limit > UINT64_MAX - request.offset ? UINT64_MAX : *request.limit + request.offset;
}

query::ScanRequest ScanOf(const ReadRequest& request, const PlannedFilter& planned) {
  query::ScanRequest scan;
  scan.where = request.where;
  scan.parsed = planned.parsed;
  scan.select = request.select;
  scan.sample = request.sample;
  scan.limit = LimitWithOffset(request);
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
  std::unique_ptr<RowStream> rows;
  if (!request.order_by.empty()) {
    query::OrderedQuery ordered{request.where,  request.select,   request.order_by, LimitWithOffset(request),
                                request.sample, planned->indexes, planned->parsed};
    ASSIGN_OR_RETURN(query::OrderedResult result, query::QueryOrdered(table, ordered));
    rows = RowsOf(std::move(result.rows));
  } else {
    ASSIGN_OR_RETURN(std::unique_ptr<query::Scanner> scanner, query::Scanner::Make(&table, ScanOf(request, *planned)));
    rows = std::make_unique<ScannerRows>(std::move(scanner));
  }
  if (request.offset > 0) rows = std::make_unique<SkipRows>(std::move(rows), request.offset);
  return rows;
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

Result<std::vector<std::string>> SelectColumns(const Schema& schema, std::string_view text) {
  ASSIGN_OR_RETURN(std::vector<query::ColumnItem> items, query::ParseColumnList(text, "select", true));
  std::vector<std::string> out;
  for (const query::ColumnItem& item : items) {
    if (item.star) {
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        if (!IsHiddenColumn(schema.field(c).name)) out.push_back(schema.field(c).name);
      }
      continue;
    }
    Result<int> c = query::FindColumnFolded(schema, item.name);
    if (!c.ok()) {
      return Status::InvalidArgument("at position " + std::to_string(item.position) + ": " + c.status().message())
          .About("select");
    }
    out.push_back(schema.field(size_t(*c)).name);
  }
  return out;
}

TableStats Stats(const table::Table& table) {
  const table::Manifest& m = table.manifest();
  TableStats out;
  out.fragments = m.fragments.size();
  out.data_bytes = m.data_bytes();
  for (const table::FragmentMeta& f : m.fragments) {
    out.rows += f.live_rows();
    out.deleted_rows += f.rows - f.live_rows();
    for (const auto& [name, s] : f.stats) out.columns[name].Merge(s);
  }
  // The statistics widen a bound of 0 to -0.0, so that both zeros are inside it; people are
  // told 0 (as SQL, where -0.0 = 0).
  for (auto& [name, s] : out.columns) {
    for (std::optional<Value>* bound : {&s.min, &s.max}) {
      if (*bound && !(*bound)->is_null() && IsFloating((*bound)->type()) && (*bound)->double_value() == 0) {
        *bound = (*bound)->type() == TypeId::kFloat ? Value::Float(0) : Value::Double(0);
      }
    }
  }
  return out;
}

}  // namespace lakeindex::ops
