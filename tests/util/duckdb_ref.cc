#include "util/duckdb_ref.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/test_util.h"

extern char** environ;

namespace lakeindex::testing {

std::string SourceDir() {
  // The environment wins so that a test binary built elsewhere can be pointed at a checkout;
  // CTest sets it to the same directory as the compile definition.
  if (const char* env = std::getenv("LAKEINDEX_SOURCE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return LAKEINDEX_SOURCE_DIR;
}

std::string ParquetTestingDir() {
  if (const char* shared = std::getenv("LAKEINDEX_SHARED_DIR"); shared != nullptr && *shared != '\0') {
    return std::string(shared) + "/parquet-testing";
  }
  return SourceDir() + "/../shared/parquet-testing";
}

std::string ParquetTestingMissing() {
  const std::string dir = ParquetTestingDir();
  if (std::filesystem::is_directory(dir + "/data")) return "";
  return "the parquet-testing corpus is not at " + dir + " (set LAKEINDEX_SHARED_DIR to the folder holding it)";
}

bool ParquetTestingRequired() {
  const char* required = std::getenv("LAKEINDEX_REQUIRE_CORPUS");
  return required != nullptr && std::string(required) == "1";
}

namespace {

std::string RunnerPath() { return SourceDir() + "/tests/duckdb/run.mjs"; }

std::string TempBase() {
  const char* tmp = std::getenv("TMPDIR");
  return (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
}

// A temporary file that is removed when this goes out of scope.
class TempFile {
 public:
  static Result<TempFile> Make(const std::string& contents) {
    std::string path = TempBase() + "/lakeindex-duck-XXXXXX";
    int fd = ::mkstemp(path.data());
    if (fd < 0) return Status::IOError("mkstemp " + path + ": " + std::strerror(errno));
    TempFile file(path);
    size_t done = 0;
    while (done < contents.size()) {
      ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        return Status::IOError("write " + path + ": " + std::strerror(errno));
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return file;
  }
  TempFile(TempFile&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

// Runs `node script args...` with stdin, stdout and stderr redirected to files: nothing is
// piped, so no side can block on a full pipe however large the input or the result.
Result<ProcessOutput> RunNodeScript(const std::string& script, const std::vector<std::string>& args,
                                    const std::string& stdin_text) {
  ASSIGN_OR_RETURN(TempFile in, TempFile::Make(stdin_text));
  ASSIGN_OR_RETURN(TempFile out, TempFile::Make(""));
  ASSIGN_OR_RETURN(TempFile err, TempFile::Make(""));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.path().c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
  std::string node = "node";
  std::vector<std::string> words = {script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv = {node.data()};
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "node", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return Status::IOError(std::string("cannot start 'node': ") + std::strerror(rc) + ". " +
                           DuckDBMissingMessage());
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return Status::IOError(std::string("waitpid: ") + std::strerror(errno));
  }
  ProcessOutput result;
  result.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  result.out = ReadWholeFile(out.path());
  result.err = ReadWholeFile(err.path());
  return result;
}

namespace {

std::optional<std::string> JsonCell(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  return j.dump();
}

Result<DuckResult> ParseOutput(const ProcessOutput& p) {
  auto j = nlohmann::json::parse(p.out, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::IOError("DuckDB runner exited " + std::to_string(p.exit_code) +
                           " without a JSON result; stderr: " + p.err + " " +
                           DuckDBMissingMessage());
  }
  if (auto e = j.find("error"); e != j.end()) {
    std::string message = e->is_string() ? e->get<std::string>() : e->dump();
    if (p.exit_code == 1) return Status::InvalidArgument("DuckDB: " + message);
    return Status::IOError("DuckDB: " + message);
  }
  if (p.exit_code != 0) {
    return Status::IOError("DuckDB runner exited " + std::to_string(p.exit_code) + "; stderr: " +
                           p.err);
  }
  auto cols = j.find("columns");
  auto types = j.find("types");
  auto rows = j.find("rows");
  if (cols == j.end() || types == j.end() || rows == j.end() || !cols->is_array() ||
      !types->is_array() || !rows->is_array() || cols->size() != types->size()) {
    return Status::IOError("DuckDB runner printed a malformed result: " + p.out.substr(0, 200));
  }
  DuckResult result;
  for (const auto& c : *cols) result.columns.push_back(c.is_string() ? c.get<std::string>() : "");
  for (const auto& t : *types) result.types.push_back(t.is_string() ? t.get<std::string>() : "");
  for (const auto& r : *rows) {
    if (!r.is_array() || r.size() != result.columns.size()) {
      return Status::IOError("DuckDB runner printed a row of the wrong width: " + r.dump());
    }
    DuckRow row;
    row.reserve(r.size());
    for (const auto& cell : r) row.push_back(JsonCell(cell));
    result.rows.push_back(std::move(row));
  }
  return result;
}

// Lays out shortest round-trip digits the way JavaScript's Number#toString does
// (ECMA-262 Number::toString): `sci` is std::to_chars scientific output such as "-1.25e-07".
std::string JsLayout(std::string_view sci) {
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.remove_prefix(1);
  }
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;  // value = 0.digits * 10^n
  std::string s;
  if (k <= n && n <= 21) {
    s = digits + std::string(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    s = digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    s = "0." + std::string(static_cast<size_t>(-n), '0') + digits;
  } else {
    s = digits.substr(0, 1);
    if (k > 1) s += "." + digits.substr(1);
    s += (n - 1 >= 0 ? "e+" : "e-") + std::to_string(std::abs(n - 1));
  }
  return sign + s;
}

template <typename F>
std::string FormatFloating(F x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  return JsLayout(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

}  // namespace

std::string DuckDBMissingMessage() {
  return "DuckDB (node + npm @duckdb/node-api in " + SourceDir() +
         "/tests/duckdb/node_modules) is required by the tests: run scripts/install-deps.sh";
}

bool DuckDBAvailable() {
  static const bool available = [] {
    struct stat st;
    std::string module = SourceDir() + "/tests/duckdb/node_modules/@duckdb/node-api/package.json";
    if (::stat(module.c_str(), &st) != 0) return false;
    auto r = RunDuckDB("SELECT 1 AS one");
    return r.ok() && r->rows.size() == 1;
  }();
  return available;
}

Result<DuckResult> RunDuckDB(const std::string& sql) {
  ASSIGN_OR_RETURN(ProcessOutput p, RunNodeScript(RunnerPath(), {}, sql));
  return ParseOutput(p);
}

std::string SqlQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  out.push_back('\'');
  return out;
}

std::string SqlIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    out.push_back(c);
    if (c == '"') out.push_back('"');
  }
  out.push_back('"');
  return out;
}

std::string DuckTypeName(TypeId type) {
  if (IsDecimal(type)) {
    return "DECIMAL(" + std::to_string(DecimalPrecision(type)) + "," + std::to_string(DecimalScale(type)) + ")";
  }
  switch (type) {
    case TypeId::kBool: return "BOOLEAN";
    case TypeId::kInt32: return "INTEGER";
    case TypeId::kInt64: return "BIGINT";
    case TypeId::kFloat: return "FLOAT";
    case TypeId::kDouble: return "DOUBLE";
    case TypeId::kString: return "VARCHAR";
    case TypeId::kDate: return "DATE";
    case TypeId::kTimestamp: return "TIMESTAMP";
    case TypeId::kTimestampTz: return "TIMESTAMP WITH TIME ZONE";
    case TypeId::kTimestampNs: return "TIMESTAMP_NS";
    case TypeId::kBinary: return "BLOB";
    case TypeId::kUuid: return "UUID";
  }
  return "UNKNOWN";
}

std::string FormatDoubleLikeDuckDB(double x) { return FormatFloating(x); }
std::string FormatFloatLikeDuckDB(float x) { return FormatFloating(x); }

bool ParseDuckDouble(std::string_view text, double* out) {
  // from_chars reads "nan", "inf", "-inf", "-0" and both exponent forms; it rejects a leading '+'.
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) return false;
  *out = v;
  return true;
}

std::optional<std::string> RenderLikeDuckDB(const Value& v) {
  if (v.is_null()) return std::nullopt;
  if (IsDecimal(v.type())) return v.ToString();  // "1.50": every digit of the scale
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value() ? "true" : "false";
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return std::to_string(v.int_value());
    case TypeId::kFloat: return FormatFloatLikeDuckDB(static_cast<float>(v.double_value()));
    case TypeId::kDouble: return FormatDoubleLikeDuckDB(v.double_value());
    case TypeId::kString: return v.string_value();
    case TypeId::kBinary: return "hex:" + Hex(v.string_value());
    case TypeId::kUuid: return FormatUuid(v.string_value());
    case TypeId::kDate: return FormatDate(static_cast<int32_t>(v.int_value()));
  }
  return std::nullopt;
}

std::string SqlLiteral(const Value& v) {
  const std::string type = DuckTypeName(v.type());
  if (v.is_null()) return "CAST(NULL AS " + type + ")";
  if (IsDecimal(v.type())) return "CAST(" + SqlQuote(v.ToString()) + " AS " + type + ")";
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value() ? "TRUE" : "FALSE";
    case TypeId::kInt32:
    case TypeId::kInt64: return "CAST(" + std::to_string(v.int_value()) + " AS " + type + ")";
    // Shortest round-trip text, read back by DuckDB's correctly rounding parser.
    case TypeId::kFloat:
    case TypeId::kDouble: return "CAST(" + SqlQuote(*RenderLikeDuckDB(v)) + " AS " + type + ")";
    case TypeId::kString: return SqlQuote(v.string_value());
    case TypeId::kDate: return "DATE " + SqlQuote(*RenderLikeDuckDB(v));
    case TypeId::kTimestamp: return "make_timestamp(" + std::to_string(v.int_value()) + ")";
    // An instant whatever DuckDB's TimeZone setting: the epoch plus an interval.
    case TypeId::kTimestampTz: return "(to_timestamp(0) + to_microseconds(" + std::to_string(v.int_value()) + "))";
    case TypeId::kTimestampNs: return "make_timestamp_ns(" + std::to_string(v.int_value()) + ")";
    case TypeId::kBinary: return "from_hex(" + SqlQuote(Hex(v.string_value())) + ")";
    case TypeId::kUuid: return "UUID " + SqlQuote(FormatUuid(v.string_value()));
  }
  return "NULL";
}

std::vector<DuckRow> RenderBatchLikeDuckDB(const Batch& batch) {
  std::vector<DuckRow> rows(batch.num_rows());
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    rows[r].reserve(batch.num_columns());
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      rows[r].push_back(RenderLikeDuckDB(batch.column(c).GetValue(r)));
    }
  }
  return rows;
}

}  // namespace lakeindex::testing
