// Test helpers for core/proto (test-only header): the program corpus, a
// strict structural comparison of modules, and a deterministic generator.
#ifndef PLEXA_CORE_PROTO_PROTO_TEST_UTIL_H_
#define PLEXA_CORE_PROTO_PROTO_TEST_UTIL_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/text/test_programs.h"

namespace plexa::proto_testing {

struct Program {
  std::string name;  // relative path or embedded program name
  std::string text;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Every *.hlo below `dir` (relative to the source tree), sorted.
inline std::vector<Program> HloFilesUnder(const char* dir) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path root =
      std::filesystem::path(PLEXA_SOURCE_DIR) / dir;
  std::error_code ec;
  if (std::filesystem::exists(root, ec)) {
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(root, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".hlo") {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Program> out;
  for (const auto& f : files) {
    out.push_back(
        {std::filesystem::relative(f, PLEXA_SOURCE_DIR).string(), ReadFile(f)});
  }
  return out;
}

inline std::vector<Program> EmbeddedPrograms() {
  std::vector<Program> out;
  for (const auto& p : testing_programs::kAllPrograms) {
    out.push_back({std::string(p.name), std::string(p.text)});
  }
  return out;
}

// A gtest-safe test name.
inline std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  }
  return out;
}

template <typename T>
std::vector<std::string> NamesOf(const std::vector<T*>& v) {
  std::vector<std::string> out;
  for (const auto* x : v) out.push_back(x == nullptr ? "<null>" : x->name());
  return out;
}

// Literals equal down to their shapes (layouts included) and every byte of
// their buffers, padding slots included.
inline bool SameLiteralBytes(const Literal& a, const Literal& b) {
  if (a.shape() != b.shape()) return false;
  if (a.shape().IsTuple()) {
    if (a.tuple_element_count() != b.tuple_element_count()) return false;
    for (int64_t i = 0; i < a.tuple_element_count(); ++i) {
      if (!SameLiteralBytes(a.tuple_element(i), b.tuple_element(i))) {
        return false;
      }
    }
    return true;
  }
  return a.data().size() == b.data().size() &&
         (a.data().empty() ||
          std::memcmp(a.data().data(), b.data().data(), a.data().size()) == 0);
}

// Empty if the modules are the same, else the first difference. Stricter
// than the text tests' comparison: computations and instructions must come
// in the same order; users, control successors, parameter lists, entry
// layout parameter names and literal buffers are compared too.
inline std::string ModuleDifference(const Module& a, const Module& b) {
  if (a.name() != b.name()) {
    return absl::StrCat("module name '", a.name(), "' vs '", b.name(), "'");
  }
  const auto& la = a.entry_computation_layout();
  const auto& lb = b.entry_computation_layout();
  if (la.has_value() != lb.has_value() ||
      (la && (la->parameters != lb->parameters || la->result != lb->result ||
              la->parameter_names != lb->parameter_names))) {
    return "entry_computation_layout differs";
  }
  if (a.opaque_attributes() != b.opaque_attributes()) {
    return "module header attributes differ";
  }
  if (NamesOf(a.computations()) != NamesOf(b.computations())) {
    return "computations (names or order) differ";
  }
  if ((a.entry_computation() == nullptr) !=
          (b.entry_computation() == nullptr) ||
      (a.entry_computation() &&
       a.entry_computation()->name() != b.entry_computation()->name())) {
    return "entry computation differs";
  }
  const std::vector<Computation*> cas = a.computations();
  const std::vector<Computation*> cbs = b.computations();
  for (size_t k = 0; k < cas.size(); ++k) {
    const Computation* ca = cas[k];
    const Computation* cb = cbs[k];
    const std::vector<Instruction*> ias = ca->instructions();
    const std::vector<Instruction*> ibs = cb->instructions();
    if (NamesOf(ias) != NamesOf(ibs)) {
      return absl::StrCat("instructions (names or order) of ", ca->name());
    }
    if ((ca->root_instruction() == nullptr) !=
            (cb->root_instruction() == nullptr) ||
        (ca->root_instruction() &&
         ca->root_instruction()->name() != cb->root_instruction()->name())) {
      return absl::StrCat("root of ", ca->name());
    }
    if (NamesOf(ca->parameter_instructions()) !=
        NamesOf(cb->parameter_instructions())) {
      return absl::StrCat("parameters of ", ca->name());
    }
    for (size_t i = 0; i < ias.size(); ++i) {
      const Instruction* ia = ias[i];
      const Instruction* ib = ibs[i];
      const std::string where = absl::StrCat(ca->name(), "/", ia->name());
      if (ia->opcode() != ib->opcode()) {
        return absl::StrCat("opcode of ", where);
      }
      if (ia->shape() != ib->shape() ||
          ia->shape().ToString() != ib->shape().ToString()) {
        return absl::StrCat("shape of ", where, ": ", ia->shape().ToString(),
                            " vs ", ib->shape().ToString());
      }
      if (!ia->SameAttributesAs(*ib)) {
        return absl::StrCat("attributes of ", where);
      }
      if ((ia->attrs().literal == nullptr) !=
              (ib->attrs().literal == nullptr) ||
          (ia->attrs().literal &&
           !SameLiteralBytes(*ia->attrs().literal, *ib->attrs().literal))) {
        return absl::StrCat("literal bytes of ", where);
      }
      if (ia->attrs().opaque != ib->attrs().opaque) {
        return absl::StrCat("verbatim attributes of ", where);
      }
      std::vector<std::string> oa, ob;
      for (const Instruction* o : ia->operands()) oa.push_back(o->name());
      for (const Instruction* o : ib->operands()) ob.push_back(o->name());
      if (oa != ob) return absl::StrCat("operands of ", where);
      if (NamesOf(ia->users()) != NamesOf(ib->users())) {
        return absl::StrCat("users of ", where);
      }
      if (NamesOf(ia->control_predecessors()) !=
          NamesOf(ib->control_predecessors())) {
        return absl::StrCat("control predecessors of ", where);
      }
      if (NamesOf(ia->control_successors()) !=
          NamesOf(ib->control_successors())) {
        return absl::StrCat("control successors of ", where);
      }
      if (NamesOf(ia->called_computations()) !=
          NamesOf(ib->called_computations())) {
        return absl::StrCat("called computations of ", where);
      }
    }
  }
  return "";
}

// SplitMix64: a small deterministic generator.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t state_;
};

inline uint64_t Hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace plexa::proto_testing

#endif  // PLEXA_CORE_PROTO_PROTO_TEST_UTIL_H_
