// The expression tree of the SQL `WHERE` subset (docs/expressions.md).
//
// One node type with a `kind` (no virtual dispatch): the parser builds unbound trees (column
// nodes carry only a name), Bind() returns a bound copy (column nodes carry index and type,
// literals converted to the type they are compared with). Trees are immutable once built and
// shared through ExprPtr, so planners can hand out subtrees (see SplitConjuncts) without copying.
//
// Children by kind:
//   kLiteral  -  (value in `value`; a NULL literal is any Value with is_null())
//   kColumn   -  (`name`; bound: `column_index` >= 0 and `type`)
//   kCompare  [left, right]                 op in `op`
//   kAnd/kOr  [c0, c1, ...] (two or more)   chains are flattened by the parser
//   kNot      [operand]
//   kBetween  [operand, low, high]          `negated` for NOT BETWEEN
//   kIn       [operand, item0, item1, ...]  items are literals; `negated` for NOT IN
//   kIsNull   [operand]                     `negated` for IS NOT NULL
//   kLike     [operand]                     `pattern`, `escape` (empty = none), `negated`
// Every node records `position`: the 1-based character (UTF-8 code point) position in the source
// text where it starts, 0 when it was not parsed from text.
// Thread safety: immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/types.h"

namespace lakeindex::query {

enum class ExprKind : uint8_t {
  kLiteral,
  kColumn,
  kCompare,
  kAnd,
  kOr,
  kNot,
  kBetween,
  kIn,
  kIsNull,
  kLike,
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// "=", "<>", "<", "<=", ">", ">=".
const char* CompareOpSymbol(CompareOp op);
// The op that gives the same answer with the operands swapped: a < b <=> b > a.
CompareOp FlipCompareOp(CompareOp op);
// The op whose answer is the negation (for non-NULL operands): NOT (a < b) <=> a >= b.
CompareOp NegateCompareOp(CompareOp op);
// Applies `op` to the result of a three-way comparison (-1, 0, 1).
bool CompareResultMatches(CompareOp op, int cmp);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  uint32_t position = 0;

  Value value;                 // kLiteral
  std::string number_text;     // kLiteral parsed from a number: as written ("-0.10"), read
                               // exactly by the binder next to a decimal column
  std::string name;            // kColumn
  int column_index = -1;       // kColumn, bound
  TypeId type = TypeId::kBool; // kColumn, bound
  CompareOp op = CompareOp::kEq;  // kCompare
  bool negated = false;        // kBetween, kIn, kIsNull, kLike
  std::string pattern;         // kLike
  std::string escape;          // kLike: "" or one byte
  std::vector<ExprPtr> children;

  bool is_bound_column() const { return kind == ExprKind::kColumn && column_index >= 0; }
  bool is_null_literal() const { return kind == ExprKind::kLiteral && value.is_null(); }

  // Valid SQL text that parses back to an equivalent tree (keywords upper case, identifiers
  // quoted when needed, nested AND/OR parenthesized). Doubles print in shortest round-trip form
  // ("1.0", "1e+300"); infinities print as 1e999 / -1e999; NaN, which the grammar cannot
  // spell, prints as CAST('nan' AS DOUBLE) (DuckDB accepts it, our parser does not).
  std::string ToString() const;
};

// Factories. `position` is the 1-based source position (0 = synthesized).
ExprPtr MakeLiteral(Value value, uint32_t position = 0);
// A literal number with its text as written (see Expr::number_text).
ExprPtr MakeNumberLiteral(Value value, std::string text, uint32_t position = 0);
ExprPtr MakeColumn(std::string name, uint32_t position = 0);
ExprPtr MakeBoundColumn(std::string name, int column_index, TypeId type, uint32_t position = 0);
ExprPtr MakeCompare(CompareOp op, ExprPtr left, ExprPtr right, uint32_t position = 0);
// REQUIRES: children.size() >= 1; a single child is returned as is.
ExprPtr MakeAnd(std::vector<ExprPtr> children, uint32_t position = 0);
ExprPtr MakeOr(std::vector<ExprPtr> children, uint32_t position = 0);
ExprPtr MakeNot(ExprPtr operand, uint32_t position = 0);
ExprPtr MakeBetween(ExprPtr operand, ExprPtr low, ExprPtr high, bool negated, uint32_t position = 0);
ExprPtr MakeIn(ExprPtr operand, std::vector<ExprPtr> items, bool negated, uint32_t position = 0);
ExprPtr MakeIsNull(ExprPtr operand, bool negated, uint32_t position = 0);
ExprPtr MakeLike(ExprPtr operand, std::string pattern, std::string escape, bool negated,
                 uint32_t position = 0);
// Shallow copy with new children (used by the binder and rewrites).
ExprPtr CopyWithChildren(const Expr& e, std::vector<ExprPtr> children);

// `name` as SQL: bare when it is a plain identifier and not a keyword, else "double ""quoted""".
std::string QuoteIdentifierIfNeeded(std::string_view name);
// True for the reserved words of the grammar (case-insensitive): AND OR NOT BETWEEN IN IS NULL
// LIKE ESCAPE TRUE FALSE. DATE and TIMESTAMP are not reserved (they prefix a literal only when a
// string follows), so columns may be called date or timestamp.
bool IsReservedWord(std::string_view word);

// Three-way comparison of two non-NULL literal values of comparable types, exactly: numbers
// numerically (int64 vs double without rounding, NaN above everything and equal to NaN,
// -0.0 == 0.0), a date against a timestamp as its midnight, strings bytewise, bools false < true.
// REQUIRES: both non-null and comparable (as the binder guarantees).
int CompareLiteralValues(const Value& a, const Value& b);

}  // namespace lakeindex::query
