// Test-only: the conformance suite every ObjectStore runs (store_conformance_test.cc). Each
// store's test file instantiates it with a factory:
//   INSTANTIATE_TEST_SUITE_P(Memory, ObjectStoreConformance,
//       ::testing::Values(StoreFactory{"memory", [](const std::string&) { ... }}),
//       StoreFactoryName);
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <memory>
#include <string>

#include "lakeindex/object_store.h"
#include "util/test_util.h"

namespace lakeindex {

struct StoreFactory {
  std::string name;
  // Makes an empty store; `scratch_dir` is a fresh directory the store may use.
  std::function<std::shared_ptr<ObjectStore>(const std::string& scratch_dir)> make;
};

// Keeps gtest from printing the std::function's bytes.
inline void PrintTo(const StoreFactory& factory, std::ostream* os) { *os << factory.name; }

inline std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

class ObjectStoreConformance : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam().make(dir_.path());
    ASSERT_NE(store_, nullptr);
  }

  testing::TempDir dir_;
  std::shared_ptr<ObjectStore> store_;
};

}  // namespace lakeindex
