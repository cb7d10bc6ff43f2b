// OpenStoreUri: the one place a user's table location becomes a store.
#include <string>

#include "io/s3_config.h"
#include "io/s3_store.h"
#include "lakeindex/object_store.h"

namespace lakeindex {

bool IsLocalUri(const std::string& uri, std::string* local_path) {
  const size_t scheme_end = uri.find("://");
  if (scheme_end == std::string::npos) {
    if (local_path) *local_path = uri;
    return true;
  }
  if (uri.compare(0, scheme_end, "file") != 0) return false;
  std::string rest = uri.substr(scheme_end + 3);  // "/abs/path" or "localhost/abs/path"
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return false;
  if (local_path) *local_path = rest;
  return true;
}

Result<std::unique_ptr<ObjectStore>> OpenStoreUri(const std::string& uri) {
  std::string local;
  if (IsLocalUri(uri, &local)) return OpenLocalStore(local);
  const std::string scheme = uri.substr(0, uri.find("://"));
  if (scheme == "file") {
    return Status::InvalidArgument("'" + uri + "': a file:// URI needs an absolute path (file:///abs/path)");
  }
  if (scheme != "s3") {
    return Status::InvalidArgument("'" + uri + "': unsupported scheme '" + scheme +
                                   "://'; a table is a path, file:///abs/path or s3://bucket/prefix");
  }
  ASSIGN_OR_RETURN(s3::Location location, s3::ParseUri(uri));
  ASSIGN_OR_RETURN(s3::Config config, s3::LoadConfig(location));
  return s3::OpenStore(config);
}

}  // namespace lakeindex
