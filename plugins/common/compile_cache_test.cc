// The compile cache: least-recently-used eviction at its bound, and a key
// that changes with everything that changes a compilation's result.
#include "plugins/common/compile_cache.h"

#include <memory>
#include <string>

#include "abi/sdk/custom_call.h"
#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

TEST(CompileCacheTest, TheLeastRecentlyUsedEntryGoesFirst) {
  CompileCache<int> cache(2);
  cache.Insert("a", std::make_shared<const int>(1));
  cache.Insert("b", std::make_shared<const int>(2));
  ASSERT_NE(cache.Lookup("a"), nullptr);  // a is now the most recent
  cache.Insert("c", std::make_shared<const int>(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Lookup("b"), nullptr);
  ASSERT_NE(cache.Lookup("a"), nullptr);
  EXPECT_EQ(*cache.Lookup("a"), 1);
  EXPECT_EQ(*cache.Lookup("c"), 3);
  EXPECT_EQ(cache.hits(), 4);
}

TEST(CompileCacheTest, InsertingAnExistingKeyReplacesIt) {
  CompileCache<int> cache(2);
  cache.Insert("a", std::make_shared<const int>(1));
  cache.Insert("a", std::make_shared<const int>(5));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(*cache.Lookup("a"), 5);
}

TEST(CompileCacheTest, AnEvictedProgramLivesWhileItIsHeld) {
  CompileCache<int> cache(1);
  cache.Insert("a", std::make_shared<const int>(1));
  std::shared_ptr<const int> held = cache.Lookup("a");
  cache.Insert("b", std::make_shared<const int>(2));
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  EXPECT_EQ(*held, 1);
}

TEST(CompileCacheKeyTest, EverythingThatChangesTheResultChangesTheKey) {
  sdk::CompileOptions options;
  const std::string base = CompileCacheKey("HloModule m", options, 1);
  EXPECT_EQ(CompileCacheKey("HloModule m", options, 1), base);
  EXPECT_NE(CompileCacheKey("HloModule n", options, 1), base);
  EXPECT_NE(CompileCacheKey("HloModule m", options, 2), base);

  sdk::CompileOptions level = options;
  level.optimization_level = 0;
  EXPECT_NE(CompileCacheKey("HloModule m", level, 1), base);

  sdk::CompileOptions option = options;
  option.options["fast_math"].int64_value = 1;
  EXPECT_NE(CompileCacheKey("HloModule m", option, 1), base);

  sdk::CompileOptions one_library = options;
  one_library.custom_call_libraries = {"/nonexistent/liba.so"};
  sdk::CompileOptions other_library = options;
  other_library.custom_call_libraries = {"/nonexistent/libb.so"};
  sdk::CompileOptions two_libraries = options;
  two_libraries.custom_call_libraries = {"/nonexistent/liba.so",
                                         "/nonexistent/libb.so"};
  sdk::CompileOptions swapped = options;
  swapped.custom_call_libraries = {"/nonexistent/libb.so",
                                   "/nonexistent/liba.so"};
  const std::string a = CompileCacheKey("HloModule m", one_library, 1);
  const std::string b = CompileCacheKey("HloModule m", other_library, 1);
  const std::string ab = CompileCacheKey("HloModule m", two_libraries, 1);
  const std::string ba = CompileCacheKey("HloModule m", swapped, 1);
  EXPECT_NE(a, base);
  EXPECT_NE(a, b);
  EXPECT_NE(ab, a);
  EXPECT_NE(ab, ba);  // the first library that exports a symbol wins
}

TEST(CompileCacheKeyTest, ARegistrationChangesTheKey) {
  sdk::CompileOptions options;
  const std::string before = CompileCacheKey("HloModule m", options, 1);
  static int target;
  sdk::CustomCallRegistry::Global().Register("compile_cache_test_target",
                                             &target, 0);
  EXPECT_NE(CompileCacheKey("HloModule m", options, 1), before);
}

TEST(CompileCacheKeyTest, FieldsCannotRunIntoEachOther) {
  sdk::CompileOptions ab;
  ab.custom_call_libraries = {"a", "b"};
  sdk::CompileOptions joined;
  joined.custom_call_libraries = {"a;b"};
  EXPECT_NE(CompileCacheKey("m", ab, 1), CompileCacheKey("m", joined, 1));
}

}  // namespace
}  // namespace plexa::backend
