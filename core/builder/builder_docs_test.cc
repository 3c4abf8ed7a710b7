// docs/builder.md shows an example program, the HLO it prints and an error
// message; this test builds the same program and requires the document to
// match, so the document cannot drift from the code.
#include <fstream>
#include <sstream>

#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa {
namespace {

// The program of docs/builder.md, verbatim (in namespace plexa, where F32
// is the element type; the tests' F32() helper would shadow it).
absl::StatusOr<std::unique_ptr<Module>> DocExample() {
  Builder b("row_softmax");
  std::unique_ptr<Builder> sb = b.CreateSubBuilder("add");
  Op p = sb->Parameter(0, ShapeUtil::MakeScalarShape(F32), "x");
  Op q = sb->Parameter(1, ShapeUtil::MakeScalarShape(F32), "y");
  absl::StatusOr<Computation*> add = sb->Build(sb->Add(p, q));

  Op x = b.Parameter(0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  Op e = b.Exp(x);
  Op sums = b.Reduce(e, b.ConstantR0<float>(0), *add, {1});  // f32[2]
  Op r = b.Div(e, sums, /*broadcast_dimensions=*/{0});
  absl::StatusOr<std::unique_ptr<Module>> m = b.BuildModule(r);
  return m;
}

}  // namespace
}  // namespace plexa

namespace plexa::builder_test {
namespace {

std::string ReadDoc() {
  std::ifstream in(std::string(PLEXA_SOURCE_DIR) + "/docs/builder.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DocsTest, ExampleProgramPrintsTheDocumentedHlo) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty()) << "docs/builder.md not found";
  const size_t begin = doc.find("```hlo\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 7);
  ASSERT_NE(end, std::string::npos);
  const std::string documented = doc.substr(begin + 7, end - begin - 7);

  ASSERT_OK_AND_ASSIGN(auto m, DocExample());
  EXPECT_OK(VerifyModule(*m));
  EXPECT_EQ(PrintModule(*m), documented);
}

TEST(DocsTest, DocumentedErrorMessage) {
  const std::string doc = ReadDoc();
  const size_t begin = doc.find("    Add: ");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find('\n', begin);
  const std::string documented = doc.substr(begin + 4, end - begin - 4);
  Builder b("error");
  b.Add(b.Parameter(0, F32({3}), "v"), b.Parameter(1, F32({2, 3}), "m"));
  EXPECT_EQ(b.first_error().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b.first_error().message(), documented);
}

}  // namespace
}  // namespace plexa::builder_test
