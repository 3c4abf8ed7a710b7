#include "tools/conformance/run_case.h"

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/ir/collective_groups.h"
#include "core/passes/dynamic_padder.h"
#include "core/text/hlo_parser.h"
#include "tools/conformance/compare.h"

namespace plexa {

std::vector<std::string> RunConformanceCase(const ConformanceCase& c,
                                            const ConformanceBackend& backend) {
  std::vector<std::string> failures;
  const std::string where = absl::StrCat(c.path, " (source: ", c.source, ")");
  auto fail = [&](const std::string& message) {
    failures.push_back(absl::StrCat(where, ": ", message));
  };
  absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(c.text);
  if (!module.ok()) {
    fail(absl::StrCat("the module does not parse: ",
                      module.status().ToString()));
    return failures;
  }
  // Dynamic shapes: the program is lowered to a static one for every
  // backend; arguments are padded to their bounds and results cut to their
  // run-time sizes (docs/dynamic_shapes.md).
  absl::StatusOr<DynamicSignature> dynamic = LowerDynamicShapes(module->get());
  if (!dynamic.ok()) {
    fail(
        absl::StrCat("lowering dynamic shapes: ", dynamic.status().ToString()));
    return failures;
  }
  // The backends take the partitions from the module's header, as XLA
  // does: it must agree with the case's.
  absl::StatusOr<std::optional<int64_t>> partitions =
      ModuleHeaderCount(**module, "num_partitions");
  if (!partitions.ok() || partitions->value_or(1) != c.partitions) {
    fail(partitions.ok()
             ? absl::StrCat("the module's header says num_partitions=",
                            partitions->value_or(1),
                            ", the case partitions: ", c.partitions)
             : partitions.status().ToString());
    return failures;
  }
  std::vector<std::vector<Literal>> inputs = c.inputs;
  if (dynamic->changed) {
    for (std::vector<Literal>& replica : inputs) {
      absl::StatusOr<std::vector<Literal>> padded =
          PadDynamicArguments(*dynamic, std::move(replica));
      if (!padded.ok()) {
        fail(padded.status().ToString());
        return failures;
      }
      replica = *std::move(padded);
    }
  }
  if (c.uses_feeds) {
    if (!backend.run_with_feeds) {
      fail(absl::StrCat("the case uses host feeds and backend '", backend.name,
                        "' cannot run them"));
      return failures;
    }
    absl::StatusOr<ConformanceFeedResult> r =
        backend.run_with_feeds(**module, inputs[0], c.infeed);
    if (!r.ok()) {
      fail(absl::StrCat("backend '", backend.name,
                        "' failed: ", r.status().ToString()));
      return failures;
    }
    absl::StatusOr<Literal> cut =
        SliceDynamicResult(*dynamic, std::move(r->result));
    if (!cut.ok()) {
      fail(cut.status().ToString());
      return failures;
    }
    if (std::string m = CompareLiterals(c.expected[0], *cut, c.tolerance);
        !m.empty()) {
      fail(m);
    }
    if (r->outfeed.size() != c.outfeed.size()) {
      fail(absl::StrCat("expected ", c.outfeed.size(), " outfeed values, got ",
                        r->outfeed.size()));
      return failures;
    }
    for (size_t i = 0; i < c.outfeed.size(); ++i) {
      if (std::string m =
              CompareLiterals(c.outfeed[i], r->outfeed[i], c.tolerance);
          !m.empty()) {
        fail(absl::StrCat("outfeed value ", i, ": ", m));
      }
    }
    return failures;
  }
  absl::StatusOr<std::vector<Literal>> results = backend.run(**module, inputs);
  if (!results.ok()) {
    fail(absl::StrCat("backend '", backend.name,
                      "' failed: ", results.status().ToString()));
    return failures;
  }
  for (Literal& r : *results) {
    absl::StatusOr<Literal> cut = SliceDynamicResult(*dynamic, std::move(r));
    if (!cut.ok()) {
      fail(cut.status().ToString());
      return failures;
    }
    r = *std::move(cut);
  }
  if (static_cast<int64_t>(results->size()) != c.replica_count()) {
    fail(absl::StrCat("expected one result per replica (", c.replica_count(),
                      "), got ", results->size()));
    return failures;
  }
  const DeviceGrid grid{c.replica_count() / c.partitions, c.partitions};
  for (int64_t r = 0; r < c.replica_count(); ++r) {
    const std::string rep =
        c.replica_count() > 1 ? absl::StrCat(grid.Name(r), ": ") : "";
    if (!c.expected.empty()) {
      if (std::string m =
              CompareLiterals(c.expected[r], (*results)[r], c.tolerance);
          !m.empty()) {
        fail(rep + m);
      }
    }
    for (const ValueCheck& check : c.checks) {
      if (std::string m = CheckLiteral(check, (*results)[r]); !m.empty()) {
        fail(rep + m);
      }
    }
  }
  return failures;
}

}  // namespace plexa
