// Iceberg metadata files of a version that the store lost, written again (`lakeindex verify
// --repair`, docs/reliability.md). The lakeindex manifest is the table; the Iceberg files beside
// it are derived from manifests (table/iceberg.h), so a lost manifest list or data manifest can
// be written again, the same bytes at the same path (Avro files carry no random bytes:
// format/avro/avro_file.h), and engines read that snapshot again. Nothing is committed and no
// data file changes; each file appears whole (ObjectStore::Write) or not at all.
#pragma once

#include <string>
#include <vector>

#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "table/manifest.h"

namespace lakeindex::table::iceberg {

struct Rewritten {
  std::vector<std::string> written;  // the files written again, as "path (what)"
  std::vector<std::string> left;     // lost files this cannot write again, with why
};

// Writes again the files version `m`'s Iceberg metadata names under metadata/ that `store` lacks:
// its manifest list, data manifests, delete manifest and position delete files (or Puffin
// deletion vectors, from the table's deletion vectors). Files that are there are left as they
// are (damaged ones too: verify names those).
Result<Rewritten> RewriteMissingFiles(ObjectStore* store, const Manifest& m);

}  // namespace lakeindex::table::iceberg
