#include "core/xla_proto/xla_proto_import.h"

#include <cctype>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/base/status_macros.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "core/xla_proto/xla_proto_values.h"

namespace plexa {
namespace {

namespace pb = ::plexa::xla_pb;
using absl::StrCat;

std::string Quote(absl::string_view s) {
  return StrCat("'", absl::CEscape(s), "'");
}

std::string WhereComputation(const pb::HloComputationProto& c) {
  return StrCat("computation ", Quote(c.name()), " (id ", c.id(), ")");
}

std::string Where(const pb::HloComputationProto& c,
                  const pb::HloInstructionProto& i) {
  return StrCat(WhereComputation(c), ", instruction ", Quote(i.name()), " (id ",
                i.id(), ")");
}

absl::Status Located(const absl::Status& s, absl::string_view where) {
  return absl::Status(s.code(), StrCat(where, ": ", s.message()));
}

// True if the module has computations whose instructions all have an
// opcode spelled like one ([a-z0-9-]+): what tells the three messages
// apart when the bytes happen to decode as more than one of them.
bool LooksLikeModule(const pb::HloModuleProto& m) {
  if (m.computations_size() == 0) return false;
  for (const pb::HloComputationProto& c : m.computations()) {
    if (c.instructions_size() == 0) return false;
    for (const pb::HloInstructionProto& i : c.instructions()) {
      if (i.opcode().empty()) return false;
      for (char ch : i.opcode()) {
        if (!(std::islower(static_cast<unsigned char>(ch)) ||
              std::isdigit(static_cast<unsigned char>(ch)) || ch == '-')) {
          return false;
        }
      }
    }
  }
  return true;
}

class Builder {
 public:
  explicit Builder(const pb::HloModuleProto& proto) : proto_(proto) {}

  absl::StatusOr<std::unique_ptr<Module>> Build();
  // (computation name, instruction name) as written -> where it came from.
  const absl::flat_hash_map<std::string, std::string>& origins() const {
    return origins_;
  }

 private:
  absl::Status BuildComputation(const pb::HloComputationProto& c,
                                Computation* comp);

  const pb::HloModuleProto& proto_;
  std::unique_ptr<Module> module_;
  absl::flat_hash_map<int64_t, Computation*> computations_;
  absl::flat_hash_map<std::string, std::string> origins_;
};

std::string OriginKey(absl::string_view computation, absl::string_view inst) {
  return StrCat(computation, "\n", inst);
}

absl::Status Builder::BuildComputation(const pb::HloComputationProto& c,
                                       Computation* comp) {
  absl::flat_hash_map<int64_t, Instruction*> by_id;
  std::vector<std::pair<const pb::HloInstructionProto*, Instruction*>> built;
  for (const pb::HloInstructionProto& i : c.instructions()) {
    const std::string where = Where(c, i);
    std::optional<HloOpcode> op = StringToHloOpcode(i.opcode());
    if (!op) {
      return absl::UnimplementedError(
          StrCat(where, ": opcode ", Quote(i.opcode()),
                 " is not an operation Plexa has (docs/opcodes.md)"));
    }
    if (*op == HloOpcode::kDomain) {
      // Its `domain=` attribute is made of shardings
      // (domain_entry_sharding/domain_exit_sharding), which are not read.
      return absl::UnimplementedError(
          StrCat(where,
                 ": opcode 'domain' is not read from XLA protos (its "
                 "shardings are not)"));
    }
    if (*op == HloOpcode::kShuffle ||
        (*op == HloOpcode::kCollectiveReduce && i.operand_ids_size() > 1)) {
      // The proto fields of shuffle's mode and of collective-reduce's
      // has_dynamic_root were not in XLA's published hlo.proto when this
      // was written (docs/xla_proto.md); guessing them would misread.
      return absl::UnimplementedError(StrCat(
          where, ": opcode ", Quote(i.opcode()),
          *op == HloOpcode::kShuffle
              ? " is not read from XLA protos (its mode's field is unknown)"
              : " with several operands is not read from XLA protos "
                "(has_dynamic_root's field is unknown); use the HLO text"));
    }
    if (*op == HloOpcode::kDot && i.operand_ids_size() > 2) {
      // A structured-sparse dot's metadata operands: its dot_sparsity
      // field is not in Plexa's transcription of hlo.proto either.
      return absl::UnimplementedError(
          StrCat(where,
                 ": a dot with metadata operands (structured sparsity) is "
                 "not read from XLA protos (dot_sparsity's field is "
                 "unknown); use the HLO text"));
    }
    if (by_id.contains(i.id())) {
      return absl::InvalidArgumentError(
          StrCat(where, ": id ", i.id(), " is used by another instruction"));
    }
    if (!i.has_shape()) {
      return absl::InvalidArgumentError(StrCat(where, ": shape is missing"));
    }
    absl::StatusOr<Shape> shape = xla_proto::ShapeFromProto(i.shape(), "shape");
    if (!shape.ok()) return Located(shape.status(), where);
    absl::StatusOr<InstructionAttrs> attrs = xla_proto::AttrsFromProto(*op, i);
    if (!attrs.ok()) return Located(attrs.status(), where);
    std::vector<Instruction*> operands;
    for (int k = 0; k < i.operand_ids_size(); ++k) {
      auto it = by_id.find(i.operand_ids(k));
      if (it == by_id.end()) {
        return absl::InvalidArgumentError(StrCat(
            where, ": operand_ids[", k, "] = ", i.operand_ids(k),
            " is not an instruction written before it in this computation"));
      }
      operands.push_back(it->second);
    }
    std::vector<Computation*> called;
    for (int k = 0; k < i.called_computation_ids_size(); ++k) {
      auto it = computations_.find(i.called_computation_ids(k));
      if (it == computations_.end()) {
        return absl::InvalidArgumentError(
            StrCat(where, ": called_computation_ids[", k,
                   "] = ", i.called_computation_ids(k),
                   " is not a computation written before this one"));
      }
      called.push_back(it->second);
    }
    auto inst = Instruction::Create(*op, *std::move(shape), std::move(operands),
                                    *std::move(attrs), std::move(called));
    inst->set_name(i.name());
    Instruction* added = comp->AddInstruction(std::move(inst));
    by_id[i.id()] = added;
    built.emplace_back(&i, added);
    origins_[OriginKey(comp->name(), added->name())] = where;
  }
  absl::flat_hash_map<const Instruction*, size_t> position;
  for (size_t k = 0; k < built.size(); ++k) position[built[k].second] = k;
  for (const auto& [i, inst] : built) {
    for (int k = 0; k < i->control_predecessor_ids_size(); ++k) {
      auto it = by_id.find(i->control_predecessor_ids(k));
      // Before it, as XLA writes them: a later one could close a cycle.
      if (it == by_id.end() || position[it->second] >= position[inst]) {
        return absl::InvalidArgumentError(
            StrCat(Where(c, *i), ": control_predecessor_ids[", k,
                   "] = ", i->control_predecessor_ids(k),
                   " is not an instruction written before it in this "
                   "computation"));
      }
      it->second->AddControlDependencyTo(inst);
    }
  }
  auto root = by_id.find(c.root_id());
  if (root == by_id.end()) {
    return absl::InvalidArgumentError(
        StrCat(WhereComputation(c), ": root_id ", c.root_id(),
               " is not one of its instructions"));
  }
  comp->set_root_instruction(root->second);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Module>> Builder::Build() {
  module_ = std::make_unique<Module>(
      proto_.name().empty() ? "module" : std::string(proto_.name()));
  // The entry: entry_computation_id, else entry_computation_name, else
  // the last computation (XLA writes callees before callers).
  int entry = -1;
  for (int k = 0; k < proto_.computations_size(); ++k) {
    const pb::HloComputationProto& c = proto_.computations(k);
    if (proto_.entry_computation_id() != 0 &&
        c.id() == proto_.entry_computation_id()) {
      entry = k;
    }
  }
  if (entry < 0 && proto_.entry_computation_id() != 0 &&
      proto_.entry_computation_name().empty()) {
    return absl::InvalidArgumentError(
        StrCat("entry_computation_id ", proto_.entry_computation_id(),
               " is not one of the module's computations"));
  }
  if (entry < 0 && !proto_.entry_computation_name().empty()) {
    for (int k = 0; k < proto_.computations_size(); ++k) {
      if (proto_.computations(k).name() == proto_.entry_computation_name()) {
        entry = k;
      }
    }
    if (entry < 0) {
      return absl::InvalidArgumentError(StrCat(
          "entry_computation_name ", Quote(proto_.entry_computation_name()),
          " is not one of the module's computations"));
    }
  }
  if (entry < 0) entry = proto_.computations_size() - 1;
  for (int k = 0; k < proto_.computations_size(); ++k) {
    const pb::HloComputationProto& c = proto_.computations(k);
    if (c.name().empty()) {
      return absl::InvalidArgumentError(
          StrCat("computations[", k, "] (id ", c.id(), ") has no name"));
    }
    if (computations_.contains(c.id())) {
      return absl::InvalidArgumentError(
          StrCat(WhereComputation(c), ": id ", c.id(),
                 " is used by another computation"));
    }
    Computation* comp = module_->AddComputation(
        std::make_unique<Computation>(std::string(c.name())), k == entry);
    PLEXA_RETURN_IF_ERROR(BuildComputation(c, comp));
    computations_[c.id()] = comp;
  }
  return std::move(module_);
}

// The decoded module and how it was found.
struct Decoded {
  pb::HloSnapshot snapshot;  // the module lives in snapshot.hlo.hlo_module
  std::string kind;
};

absl::StatusOr<Decoded> Decode(absl::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        StrCat("the file has ", bytes.size(),
               " bytes: a serialized protobuf message is at most 2 GiB"));
  }
  if (absl::StartsWith(bytes, "\x1f\x8b")) {
    return absl::InvalidArgumentError(
        "the file is gzip-compressed (XLA's --xla_dump_compress_protos "
        "writes *.hlo.pb.gz): gunzip it first");
  }
  Decoded d;
  if (d.snapshot.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) &&
      LooksLikeModule(d.snapshot.hlo().hlo_module())) {
    d.kind = "HloSnapshot";
    return d;
  }
  pb::HloProto hlo;
  if (hlo.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) &&
      LooksLikeModule(hlo.hlo_module())) {
    d.snapshot.Clear();
    *d.snapshot.mutable_hlo() = std::move(hlo);
    d.kind = "HloProto";
    return d;
  }
  pb::HloModuleProto module;
  if (module.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) &&
      module.computations_size() > 0) {
    // Read as a module even if it looks odd: the builder says what is
    // wrong with it, naming the instruction.
    d.snapshot.Clear();
    *d.snapshot.mutable_hlo()->mutable_hlo_module() = std::move(module);
    d.kind = "HloModuleProto";
    return d;
  }
  return absl::InvalidArgumentError(
      StrCat("not a serialized XLA HloModuleProto, HloProto or HloSnapshot (",
             bytes.size(),
             " bytes: the protobuf decoding failed or found no computations; a "
             "truncated or damaged file?)"));
}

// A message of the HLO parser ("L:C: msg", L a line of `text`) moved to
// the instruction the line was written for.
absl::Status MapParseError(const absl::Status& status, absl::string_view text,
                           const Builder& builder) {
  std::string msg(status.message());
  std::vector<std::string> parts = absl::StrSplit(msg, absl::MaxSplits(':', 2));
  int line = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &line) || line < 1) {
    return absl::Status(
        status.code(), StrCat("in the HLO text written for the module: ", msg));
  }
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  std::string computation;
  for (int k = 0; k < line && k < static_cast<int>(lines.size()); ++k) {
    absl::string_view l = lines[k];
    if (!l.empty() && l[0] != ' ' && l[0] != '}') {
      absl::ConsumePrefix(&l, "ENTRY ");
      if (absl::ConsumePrefix(&l, "%")) {
        computation = std::string(l.substr(0, l.find(' ')));
      }
    }
  }
  absl::string_view written =
      line <= static_cast<int>(lines.size()) ? lines[line - 1] : "";
  absl::string_view l = absl::StripLeadingAsciiWhitespace(written);
  absl::ConsumePrefix(&l, "ROOT ");
  std::string where = StrCat("computation '", computation, "'");
  if (absl::ConsumePrefix(&l, "%")) {
    auto it = builder.origins().find(
        OriginKey(computation, l.substr(0, l.find(' '))));
    if (it != builder.origins().end()) where = it->second;
  }
  return absl::Status(
      status.code(),
      StrCat(where, ": ", absl::StripLeadingAsciiWhitespace(parts[2]),
             " (in the HLO written for it: ",
             absl::StripLeadingAsciiWhitespace(written), ")"));
}

// A verifier message: located at the instruction whose name it mentions
// (the longest such name).
absl::Status MapVerifierError(const absl::Status& status,
                              const Builder& builder) {
  const std::string msg(status.message());
  std::string best_name;
  const std::string* best = nullptr;
  for (const auto& [key, where] : builder.origins()) {
    absl::string_view name = absl::string_view(key).substr(key.find('\n') + 1);
    size_t at = msg.find(StrCat("'", name, "'"));
    if (at == std::string::npos) at = msg.find(StrCat("%", name));
    if (at != std::string::npos && name.size() > best_name.size()) {
      best_name = std::string(name);
      best = &where;
    }
  }
  if (best == nullptr) return status;
  return absl::Status(status.code(), StrCat(*best, ": ", msg));
}

absl::StatusOr<std::pair<std::unique_ptr<Module>, std::string>> BuildAndPrint(
    Builder& builder) {
  PLEXA_ASSIGN_OR_RETURN(std::unique_ptr<Module> built, builder.Build());
  std::string text = PrintModule(*built);
  return std::make_pair(std::move(built), std::move(text));
}

}  // namespace

absl::StatusOr<std::string> XlaHloProtoToHloText(absl::string_view bytes) {
  PLEXA_ASSIGN_OR_RETURN(Decoded d, Decode(bytes));
  Builder builder(d.snapshot.hlo().hlo_module());
  PLEXA_ASSIGN_OR_RETURN(auto built, BuildAndPrint(builder));
  return std::move(built.second);
}

absl::StatusOr<XlaProtoImport> ImportXlaProto(absl::string_view bytes) {
  PLEXA_ASSIGN_OR_RETURN(Decoded d, Decode(bytes));
  Builder builder(d.snapshot.hlo().hlo_module());
  PLEXA_ASSIGN_OR_RETURN(auto built, BuildAndPrint(builder));
  absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(built.second);
  if (!module.ok()) {
    return MapParseError(module.status(), built.second, builder);
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return MapVerifierError(verified, builder);
  XlaProtoImport out;
  out.module = *std::move(module);
  out.kind = d.kind;
  for (int k = 0; k < d.snapshot.arguments_size(); ++k) {
    absl::StatusOr<Literal> arg = xla_proto::LiteralFromProto(
        d.snapshot.arguments(k), StrCat("HloSnapshot.arguments[", k, "]"));
    if (!arg.ok()) return arg.status();
    out.arguments.push_back(*std::move(arg));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Module>> ParseXlaHloProto(
    absl::string_view bytes) {
  PLEXA_ASSIGN_OR_RETURN(XlaProtoImport imported, ImportXlaProto(bytes));
  return std::move(imported.module);
}

bool LooksLikeBinaryProto(absl::string_view data) {
  const size_t n = std::min<size_t>(data.size(), 4096);
  for (size_t k = 0; k < n; ++k) {
    const unsigned char c = static_cast<unsigned char>(data[k]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
  }
  return false;
}

}  // namespace plexa
