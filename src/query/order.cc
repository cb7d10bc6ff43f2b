#include "query/order.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "query/binder.h"
#include "query/index_manager.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

// Non-NULL cells of one column: <0, 0, >0 (NaN above every number, -0.0 equal to 0.0).
int CompareCells(const Column& c, size_t a, size_t b) {
  if (IsDecimal(c.type())) {
    const int64_t x = c.Get<int64_t>(a), y = c.Get<int64_t>(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  switch (c.type()) {
    case TypeId::kBool: return int(c.Get<uint8_t>(a)) - int(c.Get<uint8_t>(b));
    case TypeId::kInt32:
    case TypeId::kDate: {
      const int32_t x = c.Get<int32_t>(a), y = c.Get<int32_t>(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: {
      const int64_t x = c.Get<int64_t>(a), y = c.Get<int64_t>(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      const double x = c.type() == TypeId::kFloat ? double(c.Get<float>(a)) : c.Get<double>(a);
      const double y = c.type() == TypeId::kFloat ? double(c.Get<float>(b)) : c.Get<double>(b);
      if (std::isnan(x) || std::isnan(y)) return int(std::isnan(x)) - int(std::isnan(y));
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: {
      const int cmp = c.GetString(a).compare(c.GetString(b));
      return cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
    }
  }
  return 0;
}

}  // namespace

Result<Batch> SortBatch(const Batch& batch, const std::vector<OrderKey>& keys, std::optional<uint64_t> limit) {
  struct Key {
    const Column* column;
    bool descending;
  };
  std::vector<Key> by;
  for (const OrderKey& k : keys) {
    Result<int> c = FindColumnFolded(batch.schema(), k.column);
    if (!c.ok()) return Status::InvalidArgument(c.status().message()).About("order_by");
    by.push_back({&batch.column(size_t(*c)), k.descending});
  }
  const size_t n = batch.num_rows();
  std::vector<uint32_t> order(n);
  for (size_t r = 0; r < n; ++r) order[r] = uint32_t(r);
  auto less = [&](uint32_t a, uint32_t b) {
    for (const Key& k : by) {
      const bool na = k.column->IsNull(a), nb = k.column->IsNull(b);
      if (na || nb) {
        if (na != nb) return nb;  // NULLs last, either direction
        continue;
      }
      const int cmp = CompareCells(*k.column, a, b);
      if (cmp != 0) return k.descending ? cmp > 0 : cmp < 0;
    }
    return a < b;  // ties in input order: a total order, so the result does not depend on the sort
  };
  const size_t keep = limit ? size_t(std::min<uint64_t>(*limit, n)) : n;
  if (keep < n) {
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(keep), order.end(), less);
    order.resize(keep);
  } else {
    std::sort(order.begin(), order.end(), less);
  }
  Batch out(batch.schema());
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    out.mutable_column(c).AppendSelected(batch.column(c), order.data(), order.size());
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

namespace {

// The columns `names` of `batch`, in that order.
Result<Batch> Project(const Batch& batch, const std::vector<std::string>& names) {
  std::vector<Field> fields;
  std::vector<Column> columns;
  for (const std::string& name : names) {
    const int c = batch.schema().FindField(name);
    if (c < 0) return Status::Internal("ORDER BY: column " + name + " missing from the rows read");
    fields.push_back(batch.schema().field(size_t(c)));
    columns.push_back(batch.column(size_t(c)));
  }
  return Batch(Schema(std::move(fields)), std::move(columns), batch.num_rows());
}

// ORDER BY one btree-indexed column LIMIT k with no filter: the rows' addresses from the index
// (each segment's first k live rows), then only those rows. Null when the index cannot say (no
// such index, fragments it does not cover, or fewer than k non-NULL live rows, so that NULLs
// would be among the first k). `keys` name the table's columns exactly.
Result<std::optional<OrderedResult>> FromIndex(const table::Table& table, const OrderedQuery& query,
                                               const std::vector<OrderKey>& keys, const std::vector<std::string>& read) {
  if (keys.size() != 1 || !query.limit || !query.where.empty() || query.sample || *query.limit > (1u << 20)) {
    return std::optional<OrderedResult>();
  }
  const std::string& name = keys[0].column;  // resolved by QueryOrdered
  const IndexHandle* index = nullptr;
  for (const IndexHandle& h : query.indexes) {
    if (h.column == name && h.first_rows) index = &h;
  }
  const table::Manifest& m = table.manifest();
  if (!index || index->fragments->size() != m.fragments.size()) return std::optional<OrderedResult>();
  std::map<uint32_t, std::shared_ptr<const roaring::Roaring>> live;  // fragment -> its deleted rows
  for (const table::FragmentMeta& f : m.fragments) {
    if (!index->fragments->count(f.id)) return std::optional<OrderedResult>();
    ASSIGN_OR_RETURN(live[f.id], table.Deletions(f));
  }
  auto keep = [&live](uint64_t address) {
    auto it = live.find(RowAddressFragment(address));
    return it != live.end() && !it->second->contains(RowAddressOffset(address));
  };
  OrderedResult result;
  result.from_index = true;
  ASSIGN_OR_RETURN(std::vector<uint64_t> addresses, index->first_rows(keys[0].descending, *query.limit, keep, &result.index));
  if (addresses.size() < *query.limit) return std::optional<OrderedResult>();  // NULLs would be needed
  ScanRequest take;
  take.rows = RowSet::Of(addresses);
  take.select = read;
  take.parallel = false;
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, take));
  Batch rows(scanner->schema()), batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    RETURN_IF_ERROR(rows.Append(batch));
  }
  result.rows_read = scanner->counters().rows_read;
  ASSIGN_OR_RETURN(result.rows, SortBatch(rows, keys, query.limit));
  return std::optional<OrderedResult>(std::move(result));
}

}  // namespace

Result<OrderedResult> QueryOrdered(const table::Table& table, const OrderedQuery& query) {
  ASSIGN_OR_RETURN(std::vector<OrderKey> keys, ParseOrderBy(query.order_by));
  // Read the selected columns and the keys (resolved against the table), output the selected.
  std::vector<std::string> output, read;
  if (query.select.empty()) {
    for (const Field& f : table.schema().fields()) {
      if (!IsHiddenColumn(f.name)) output.push_back(f.name);
    }
  } else {
    for (const std::string& s : query.select) {
      Result<int> c = FindColumnFolded(table.schema(), s);
      if (!c.ok()) return Status::InvalidArgument(c.status().message()).About("select");
      output.push_back(table.schema().field(size_t(*c)).name);
    }
  }
  read = output;
  for (OrderKey& k : keys) {
    Result<int> c = FindColumnFolded(table.schema(), k.column);
    if (!c.ok()) return Status::InvalidArgument(c.status().message()).About("order_by");
    k.column = table.schema().field(size_t(*c)).name;
    if (std::find(read.begin(), read.end(), k.column) == read.end()) read.push_back(k.column);
  }
  ASSIGN_OR_RETURN(std::optional<OrderedResult> indexed, FromIndex(table, query, keys, read));
  if (indexed) {
    ASSIGN_OR_RETURN(indexed->rows, Project(indexed->rows, output));
    return std::move(*indexed);
  }
  ScanRequest scan;
  scan.where = query.where;
  scan.parsed = query.parsed;
  scan.select = read;
  scan.sample = query.sample;
  scan.indexes = query.indexes;
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, scan));
  OrderedResult result;
  Batch kept(scanner->schema()), batch;
  // With a limit, the buffer is cut back to the first `limit` whenever it holds many more.
  const uint64_t cut_at = query.limit ? std::max<uint64_t>(2 * *query.limit, 1 << 16) : UINT64_MAX;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    RETURN_IF_ERROR(kept.Append(batch));
    if (kept.num_rows() > cut_at) {
      ASSIGN_OR_RETURN(kept, SortBatch(kept, keys, query.limit));
    }
  }
  result.rows_read = scanner->counters().rows_read;
  ASSIGN_OR_RETURN(Batch sorted, SortBatch(kept, keys, query.limit));
  ASSIGN_OR_RETURN(result.rows, Project(sorted, output));
  return result;
}

}  // namespace lakeindex::query
