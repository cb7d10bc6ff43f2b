// Fuzz target: bytes -> ParseExpression -> Bind (fixed schema) -> Evaluate on a small batch.
// Any input must give a clean Status; a crash, hang or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "query/binder.h"
#include "query/evaluator.h"
#include "query/parser.h"
#include "query/pruning.h"

namespace {

using namespace lakeindex;

const Batch& TestBatch() {
  static const Batch batch = [] {
    Schema schema =
        Schema::Parse("i:int64,j:int32,f:float,x:double,s:string,d:date,t:timestamp,b:bool,m:decimal(10,2)").value();
    Batch b(schema);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (int r = 0; r < 6; ++r) {
      bool null = r == 5;
      auto add = [&](size_t c, const Value& v) {
        if (!b.mutable_column(c).AppendValue(null ? Value::Null(schema.field(c).type) : v).ok()) std::abort();
      };
      add(0, Value::Int64(r == 0 ? std::numeric_limits<int64_t>::min() : r * 3 - 4));
      add(1, Value::Int32(r - 2));
      add(2, Value::Float(r == 1 ? float(nan) : float(r) / 4));
      add(3, Value::Double(r == 0 ? nan : r == 1 ? -inf : r == 2 ? -0.0 : r * 1.5));
      add(4, Value::String(r == 0 ? "" : r == 1 ? "a%_\\" : r == 2 ? "é€😀" : "abc"));
      add(5, Value::Date(19000 + r));
      add(6, Value::Timestamp(int64_t(r) * 86400000000 + 1));
      add(7, Value::Bool(r % 2 == 0));
      add(8, Value::Decimal(schema.field(8).type, r == 0 ? 9999999999 : r * 125 - 300));
    }
    if (!b.Seal().ok()) std::abort();
    return b;
  }();
  return batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakeindex::query;
  auto parsed = ParseExpression(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed.ok()) return 0;
  // What we print must parse again (NaN literals cannot come from text).
  if (!ParseExpression((*parsed)->ToString()).ok()) std::abort();
  const Batch& batch = TestBatch();
  auto bound = Bind(**parsed, batch.schema());
  if (!bound.ok()) return 0;
  TriVector tri;
  if (!Evaluate(**bound, batch, &tri).ok()) std::abort();  // a bound tree always evaluates
  std::vector<lakeindex::ColumnStats> stats;
  for (size_t c = 0; c < batch.num_columns(); ++c) stats.push_back(lakeindex::ComputeColumnStats(batch.column(c)));
  VectorStatsProvider provider(&stats);
  bool any_true = false;
  for (uint8_t v : tri.v) any_true |= v == kTriTrue;
  if (any_true && !MayMatch(**bound, provider)) std::abort();  // pruning must stay conservative
  return 0;
}
