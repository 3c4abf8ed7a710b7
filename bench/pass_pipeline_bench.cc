// Measures the optimization pipeline (core/passes):
//   1. its time on a generated module of 10,000 instructions (the bar is
//      well under a second), with per-pass timings;
//   2. instruction counts before and after the default pipeline on every
//      conformance program and on the example programs.
// Usage: pass_pipeline_bench [--instructions=N] [--repeat=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/pass_util.h"
#include "core/text/hlo_parser.h"

namespace plexa {
namespace {

// splitmix64, for a reproducible program.
struct Random {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % n); }
};

// A program of about `target` instructions over f32[32,32] values, with
// what real programs from frontends contain: elementwise chains,
// transcendental ops, reductions broadcast back, dots, duplicated
// subexpressions (CSE), identities (x+0, x*1, reshape to the same shape,
// transpose of transpose), constant subexpressions (folding), dead values
// (DCE) and a small call (inlining).
std::string GenerateProgram(int64_t target) {
  Random rng{2024};
  std::ostringstream body;
  std::vector<std::string> values;
  int64_t count = 0;
  auto emit = [&](const std::string& name, const std::string& text) {
    body << "  %" << name << " = " << text << "\n";
    ++count;
  };
  const char* kShape = "f32[32,32]";
  for (int p = 0; p < 8; ++p) {
    const std::string name = absl::StrCat("p", p);
    emit(name, absl::StrCat(kShape, " parameter(", p, ")"));
    values.push_back(name);
  }
  emit("zero", "f32[] constant(0)");
  emit("one", "f32[] constant(1)");
  emit("zeros", absl::StrCat(kShape, " broadcast(%zero), dimensions={}"));
  emit("ones", absl::StrCat(kShape, " broadcast(%one), dimensions={}"));
  int64_t id = 0;
  auto pick = [&]() {
    // Mostly recent values, so chains form.
    const int64_t n = static_cast<int64_t>(values.size());
    const int64_t window = std::min<int64_t>(n, 24);
    return values[n - 1 - rng.Below(window)];
  };
  std::vector<std::string> recent_binary;  // for duplicates
  while (count < target - 2) {
    const std::string v = absl::StrCat("v", id++);
    const int64_t kind = rng.Below(100);
    if (kind < 30) {
      const char* ops[] = {"add", "multiply", "subtract", "maximum"};
      const std::string text = absl::StrCat(kShape, " ", ops[rng.Below(4)],
                                            "(%", pick(), ", %", pick(), ")");
      emit(v, text);
      recent_binary.push_back(text);
    } else if (kind < 40) {
      const char* ops[] = {"exponential", "tanh", "negate", "abs", "sqrt"};
      emit(v, absl::StrCat(kShape, " ", ops[rng.Below(5)], "(%", pick(), ")"));
    } else if (kind < 48 && !recent_binary.empty()) {
      // The same expression again.
      emit(
          v,
          recent_binary[rng.Below(static_cast<int64_t>(recent_binary.size()))]);
    } else if (kind < 54) {
      emit(v, absl::StrCat(kShape, " add(%", pick(), ", %zeros)"));
    } else if (kind < 60) {
      emit(v, absl::StrCat(kShape, " multiply(%ones, %", pick(), ")"));
    } else if (kind < 64) {
      emit(v, absl::StrCat(kShape, " reshape(%", pick(), ")"));
    } else if (kind < 70) {
      const std::string t = absl::StrCat("t", id);
      emit(t,
           absl::StrCat(kShape, " transpose(%", pick(), "), dimensions={1,0}"));
      emit(v, absl::StrCat(kShape, " transpose(%", t, "), dimensions={1,0}"));
    } else if (kind < 78) {
      const std::string c1 = absl::StrCat("c", id, "a");
      const std::string c2 = absl::StrCat("c", id, "b");
      const std::string s = absl::StrCat("c", id, "s");
      const std::string b = absl::StrCat("c", id, "bc");
      emit(c1, absl::StrCat("f32[] constant(", rng.Below(9) + 1, ")"));
      emit(c2, absl::StrCat("f32[] constant(", rng.Below(9) + 1, ")"));
      emit(s, absl::StrCat("f32[] multiply(%", c1, ", %", c2, ")"));
      emit(b, absl::StrCat(kShape, " broadcast(%", s, "), dimensions={}"));
      emit(v, absl::StrCat(kShape, " multiply(%", pick(), ", %", b, ")"));
    } else if (kind < 84) {
      const std::string r = absl::StrCat("r", id);
      emit(r, absl::StrCat("f32[32] reduce(%", pick(),
                           ", %zero), dimensions={1}, to_apply=%sum"));
      emit(v, absl::StrCat(kShape, " broadcast(%", r, "), dimensions={0}"));
    } else if (kind < 88) {
      emit(v, absl::StrCat(kShape, " dot(%", pick(), ", %", pick(),
                           "), lhs_contracting_dims={1}, "
                           "rhs_contracting_dims={0}"));
    } else if (kind < 91) {
      emit(v, absl::StrCat(kShape, " call(%", pick(), ", %", pick(),
                           "), to_apply=%axpy"));
    } else {
      // Dead: computed and never used.
      emit(absl::StrCat("dead", id),
           absl::StrCat(kShape, " exponential(%", pick(), ")"));
      continue;
    }
    values.push_back(v);
  }
  const std::string a = values[values.size() - 1];
  const std::string b = values[values.size() - 2];
  body << "  ROOT %out = (" << kShape << ", " << kShape << ") tuple(%" << a
       << ", %" << b << ")\n";
  ++count;
  std::ostringstream text;
  text << "HloModule generated\n\n"
       << "%sum (x: f32[], y: f32[]) -> f32[] {\n"
       << "  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
       << "  ROOT %s = f32[] add(%x, %y)\n}\n\n"
       << "%axpy (a: f32[32,32], b: f32[32,32]) -> f32[32,32] {\n"
       << "  %a = f32[32,32] parameter(0)\n  %b = f32[32,32] parameter(1)\n"
       << "  %two = f32[] constant(2)\n"
       << "  %twos = f32[32,32] broadcast(%two), dimensions={}\n"
       << "  %m = f32[32,32] multiply(%a, %twos)\n"
       << "  ROOT %r = f32[32,32] add(%m, %b)\n}\n\n"
       << "ENTRY %main (";
  for (int p = 0; p < 8; ++p) {
    text << (p ? ", " : "") << "p" << p << ": " << kShape;
  }
  text << ") -> (" << kShape << ", " << kShape << ") {\n"
       << body.str() << "}\n";
  return text.str();
}

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Counts {
  int64_t programs = 0;
  int64_t before = 0;
  int64_t after = 0;
  int64_t after_fusion = 0;
  int64_t smaller = 0;
};

// Counts instructions (every computation) before and after the default
// pipeline, and after it with fusion (fusions count as one instruction in
// their caller plus their fused computation's instructions).
bool CountOne(const std::string& text, Counts* c, int64_t* before,
              int64_t* after, int64_t* after_fusion) {
  auto m = ParseHloModule(text);
  auto f = ParseHloModule(text);
  if (!m.ok() || !f.ok()) return false;
  *before = CountInstructions(**m);
  PipelineOptions options;
  if (!RunDefaultPipeline(m->get(), options).ok()) return false;
  options.fusion = true;
  if (!RunDefaultPipeline(f->get(), options).ok()) return false;
  *after = CountInstructions(**m);
  *after_fusion = CountInstructions(**f);
  ++c->programs;
  c->before += *before;
  c->after += *after;
  c->after_fusion += *after_fusion;
  c->smaller += *after < *before;
  return true;
}

int Main(int argc, char** argv) {
  int64_t target = 10000;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--instructions=", 15) == 0) {
      target = std::atoll(argv[i] + 15);
    } else if (std::strncmp(argv[i], "--repeat=", 9) == 0) {
      repeat = std::atoi(argv[i] + 9);
    }
  }

  // ---- 1. Pipeline time on a generated module ----
  const std::string program = GenerateProgram(target);
  struct Config {
    const char* name;
    PipelineOptions options;
  };
  PipelineOptions plain;
  plain.verify = false;
  PipelineOptions fused = plain;
  fused.fusion = true;
  PipelineOptions verified = plain;
  verified.verify = true;
  const Config configs[] = {
      {"default pipeline", plain},
      {"default pipeline + fusion", fused},
      {"default pipeline, verifier between passes", verified}};
  for (const Config& config : configs) {
    std::vector<double> parse_ms, run_ms;
    int64_t before = 0, after = 0, entry_after = 0;
    int64_t fusions = 0, fused_params = 0, fused_other = 0;
    PipelineStats stats;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto m = ParseHloModule(program);
      const auto t1 = std::chrono::steady_clock::now();
      if (!m.ok()) {
        std::fprintf(stderr, "parse: %s\n", m.status().ToString().c_str());
        return 1;
      }
      before = CountInstructions(**m);
      PipelineOptions options = config.options;
      options.stats = &stats;
      const auto t2 = std::chrono::steady_clock::now();
      absl::StatusOr<bool> changed = RunDefaultPipeline(m->get(), options);
      const auto t3 = std::chrono::steady_clock::now();
      if (!changed.ok()) {
        std::fprintf(stderr, "pipeline: %s\n",
                     changed.status().ToString().c_str());
        return 1;
      }
      after = CountInstructions(**m);
      entry_after = (*m)->entry_computation()->instruction_count();
      fusions = fused_params = fused_other = 0;
      for (const Computation* comp : (*m)->computations()) {
        for (const Instruction* inst : comp->instructions()) {
          if (inst->opcode() != HloOpcode::kFusion) continue;
          ++fusions;
          fused_params += inst->to_apply()->num_parameters();
          fused_other += inst->to_apply()->instruction_count() -
                         inst->to_apply()->num_parameters();
        }
      }
      parse_ms.push_back(Ms(t1 - t0));
      run_ms.push_back(Ms(t3 - t2));
    }
    std::sort(parse_ms.begin(), parse_ms.end());
    std::sort(run_ms.begin(), run_ms.end());
    std::printf(
        "\n%s: %lld -> %lld instructions (%lld in the entry computation); "
        "pipeline min %.1f ms, median %.1f ms over %d runs (parsing alone: "
        "%.1f ms)\n",
        config.name, static_cast<long long>(before),
        static_cast<long long>(after), static_cast<long long>(entry_after),
        run_ms.front(), run_ms[run_ms.size() / 2], repeat, parse_ms.front());
    if (fusions > 0) {
      std::printf(
          "%lld fusions holding %lld instructions (and %lld parameters)\n",
          static_cast<long long>(fusions), static_cast<long long>(fused_other),
          static_cast<long long>(fused_params));
    }
    std::printf("per pass (last run):\n%s", stats.Summary().c_str());
  }

  // ---- 2. Instruction counts on the conformance programs and examples ----
  const std::string root = PLEXA_SOURCE_DIR;
  std::map<std::string, Counts> groups;
  Counts total;
  std::vector<std::string> cases;
  for (const auto& e : std::filesystem::recursive_directory_iterator(
           root + "/tests/conformance/cases")) {
    if (e.path().extension() == ".hlo") cases.push_back(e.path().string());
  }
  std::sort(cases.begin(), cases.end());
  for (const std::string& path : cases) {
    const std::string group =
        std::filesystem::path(path).parent_path().filename().string();
    int64_t b, a, f;
    if (!CountOne(ReadFile(path), &groups[group], &b, &a, &f)) {
      std::fprintf(stderr, "skipped %s\n", path.c_str());
      continue;
    }
    ++total.programs;
    total.before += b;
    total.after += a;
    total.after_fusion += f;
    total.smaller += a < b;
  }
  std::printf(
      "\nconformance programs (instructions, all computations): group, "
      "programs, before, after default, after default+fusion, programs made "
      "smaller\n");
  for (const auto& [name, c] : groups) {
    std::printf(
        "  %-20s %4lld %6lld %6lld %6lld %4lld\n", name.c_str(),
        static_cast<long long>(c.programs), static_cast<long long>(c.before),
        static_cast<long long>(c.after), static_cast<long long>(c.after_fusion),
        static_cast<long long>(c.smaller));
  }
  std::printf("  %-20s %4lld %6lld %6lld %6lld %4lld\n", "total",
              static_cast<long long>(total.programs),
              static_cast<long long>(total.before),
              static_cast<long long>(total.after),
              static_cast<long long>(total.after_fusion),
              static_cast<long long>(total.smaller));

  std::printf(
      "\nexamples: program, before, after default, after "
      "default+fusion\n");
  std::vector<std::string> examples;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(root + "/examples")) {
    if (e.path().extension() == ".hlo") examples.push_back(e.path().string());
  }
  std::sort(examples.begin(), examples.end());
  for (const std::string& path : examples) {
    Counts c;
    int64_t b, a, f;
    if (!CountOne(ReadFile(path), &c, &b, &a, &f)) {
      std::fprintf(stderr, "skipped %s\n", path.c_str());
      continue;
    }
    std::printf("  %-40s %5lld %5lld %5lld\n",
                path.substr(root.size() + 1).c_str(), static_cast<long long>(b),
                static_cast<long long>(a), static_cast<long long>(f));
  }
  return 0;
}

}  // namespace
}  // namespace plexa

int main(int argc, char** argv) { return plexa::Main(argc, argv); }
