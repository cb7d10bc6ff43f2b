#include "cli/cli_util.h"

#include <charconv>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "query/index_manager.h"
#include "query/lexer.h"

namespace lakeindex::cli {

bool IsPermissionRefusal(const Status& status) {
  if (!status.IsIOError()) return false;
  const std::string& m = status.message();
  for (int err : {EACCES, EPERM, EROFS}) {
    // The local store's words (std::generic_category's, as strerror's).
    if (m.find(std::error_code(err, std::generic_category()).message()) != std::string::npos) return true;
  }
  return m.find("access denied (HTTP 40") != std::string::npos;  // S3's 401 / 403
}

int ExitCodeFor(const Status& status) {
  if (IsPermissionRefusal(status)) return kExitUserError;  // the user's to grant, not damage
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kOutcomeUnknown: return kExitOutcomeUnknown;
    case StatusCode::kInternal:
    case StatusCode::kIOError:
    case StatusCode::kCorruption: return kExitInternal;  // damage, of a table or an input file
    default: return kExitUserError;
  }
}

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  struct stat st;
  std::string tmp;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) {
    static std::atomic<uint64_t> counter{0};
    tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  }
  FILE* f = std::fopen(tmp.empty() ? path.c_str() : tmp.c_str(), "wb");
  if (f == nullptr) return Status::InvalidArgument("cannot open '" + path + "' for writing: " + std::strerror(errno));
  return std::unique_ptr<OutputFile>(new OutputFile(path, std::move(tmp), f));
}

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

Status OutputFile::DoAppend(std::string_view data) {
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    return Status::IOError("writing '" + path() + "' failed: " + std::strerror(errno));
  }
  return Status::OK();
}

Status OutputFile::DoClose() {
  bool failed = std::fflush(file_) != 0;
  if (!failed && !tmp_.empty()) failed = ::fsync(::fileno(file_)) != 0;
  failed |= std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed) return Status::IOError("writing '" + path() + "' failed: " + std::strerror(errno));
  if (!tmp_.empty()) {
    if (::rename(tmp_.c_str(), path().c_str()) != 0) {
      return Status::IOError("renaming '" + tmp_ + "' to '" + path() + "' failed: " + std::strerror(errno));
    }
    tmp_.clear();
  }
  return Status::OK();
}

Status WriteOutputFile(const std::string& path, std::string_view data) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out, OutputFile::Open(path));
  RETURN_IF_ERROR(out->Append(data));
  return out->Close();
}

Result<uint64_t> ParseByteSize(const std::string& text, const std::string& option) {
  auto bad = [&] {
    return Status::InvalidArgument(option + " '" + text + "': expected a size such as 512M, 2G or a number of bytes");
  };
  std::string unit;
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  for (size_t i = end; i < text.size(); ++i) unit += char(std::toupper(static_cast<unsigned char>(text[i])));
  if (end == 0 || std::count(text.begin(), text.begin() + std::ptrdiff_t(end), '.') > 1) return bad();
  const double number = std::strtod(text.substr(0, end).c_str(), nullptr);
  if (unit.ends_with("IB")) unit.erase(unit.size() - 2);
  else if (unit.ends_with("B")) unit.erase(unit.size() - 1);
  const std::string units = "KMGT";
  int shift = 0;
  if (!unit.empty()) {
    const size_t at = units.find(unit);
    if (unit.size() != 1 || at == std::string::npos) return bad();
    shift = 10 * int(at + 1);
  }
  const double bytes = std::ldexp(number, shift);
  if (!(bytes >= 1) || bytes >= 0x1p63) return bad();
  return uint64_t(bytes);
}

std::string FileExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { Clear(); }

void Progress::Clear() {
  if (printed_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  printed_ = false;
  enabled_ = false;
}

void Progress::Step(const std::string& step, uint64_t total) {
  if (step == step_) return;
  step_ = step;
  if (total > 0) total_ = total;
  start_ = std::chrono::steady_clock::now();
  last_ = {};
}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (printed_ && now - last_ < std::chrono::milliseconds(200) && done < total_) return;
  last_ = now;
  printed_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r\033[K%s", FormatProgress(label_, step_, done, total_, seconds).c_str());
  std::fflush(stderr);
}

std::string FormatProgress(const std::string& label, const std::string& step, uint64_t done, uint64_t total,
                           double seconds) {
  const double fraction = total ? std::min(1.0, double(done) / double(total)) : 1.0;
  constexpr int kBarWidth = 30;
  std::string bar(kBarWidth, ' ');
  std::fill(bar.begin(), bar.begin() + int(fraction * kBarWidth), '=');
  char buf[160];
  std::snprintf(buf, sizeof buf, " [%s] %3.0f%% ", bar.c_str(), 100 * fraction);
  std::string line = label + (step.empty() ? "" : ": " + step) + buf + Grouped(done) + "/" + Grouped(total);
  if (seconds >= 0.5 && done > 0) {
    const double rate = double(done) / seconds;
    if (rate >= 1e6) {
      std::snprintf(buf, sizeof buf, " %.1fM rows/s", rate / 1e6);
    } else if (rate >= 1e3) {
      std::snprintf(buf, sizeof buf, " %.1fk rows/s", rate / 1e3);
    } else {
      std::snprintf(buf, sizeof buf, " %.0f rows/s", rate);
    }
    line += buf;
    if (done < total) {
      const uint64_t eta = uint64_t(double(total - done) / rate + 0.5);
      std::snprintf(buf, sizeof buf, " ETA %llu:%02llu", static_cast<unsigned long long>(eta / 60),
                    static_cast<unsigned long long>(eta % 60));
      line += buf;
    }
  }
  return line;
}

Result<TableHandle> OpenTable(const std::string& path, std::optional<uint64_t> version,
                              const std::optional<std::string>& query_filter) {
  TableHandle h;
  ASSIGN_OR_RETURN(h.store, OpenTableStore(path, false));
  table::Table::OpenOptions options;
  if (query_filter) {
    options.prefetch = [&](const table::Table& t) { query::PrefetchForQueries(t, *query_filter); };
  }
  auto table = table::Table::Open(h.store, version, options);
  if (!table.ok()) {
    if (table.status().IsNotFound() && !version) return Status::NotFound("no lakeindex table at '" + path + "'");
    return table.status();
  }
  h.table = std::move(*table);
  return h;
}

std::string FlagFor(std::string_view parameter) {
  static const std::map<std::string_view, std::string_view> kOwnWords = {
      {"aggregates", "--agg"},
      {"kind", "--type"},
      {"header", "--no-header"},
      {"csv", "--delimiter, --quote, --escape, --header / --no-header, --null, --dateformat and --thousands"},
  };
  if (auto it = kOwnWords.find(parameter); it != kOwnWords.end()) return std::string(it->second);
  if (parameter.starts_with("param ")) return "--param " + std::string(parameter.substr(6));  // an index kind's
  std::string flag = "--" + std::string(parameter);
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

std::string ErrorText(const Status& status) {
  if (status.ok()) return status.ToString();
  std::string text = std::string(StatusCodeName(status.code())) + ": " + status.MessageNaming(FlagFor(status.parameter()));
  if (query::IsBeyondSubset(status)) text += "; run it in DuckDB over lakeindex's output: " + std::string(kSqlRoute);
  return text;
}

table::WriteConfig MakeWriteConfig(uint64_t rows_per_file, std::shared_ptr<Progress> progress) {
  table::WriteConfig config;
  config.rows_per_file = rows_per_file;
  config.progress = [progress](uint64_t rows) { progress->Update(rows); };
  return config;
}

bool HugePagesPay(std::string_view command) {
  static constexpr std::string_view kBuilds[] = {"create", "append", "optimize", "layout",
                                                 "index",  "iceberg", "gen",     "demo"};
  return std::find(std::begin(kBuilds), std::end(kBuilds), command) != std::end(kBuilds);
}

CLI::Validator WholeNumber(uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        auto [at, error] = std::from_chars(text.data(), end, v);
        if (text.empty() || error == std::errc::result_out_of_range || error != std::errc() || at != end) {
          return "expected a whole number" + std::string(min > 0 ? " from " + std::to_string(min) : "") +
                 " up to 18446744073709551615, got '" + text + "'";
        }
        if (v < min) return "must be at least " + std::to_string(min) + ", got " + text;
        return "";
      },
      min > 0 ? "N>=" + std::to_string(min) : "N>=0");
}

}  // namespace lakeindex::cli
