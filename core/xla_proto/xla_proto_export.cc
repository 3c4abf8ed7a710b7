#include "core/xla_proto/xla_proto_export.h"

#include "absl/container/flat_hash_map.h"
#include "core/xla_proto/xla_proto_values.h"

namespace plexa {

std::string SerializeXlaHloModuleProto(const Module& module) {
  xla_pb::HloModuleProto proto;
  proto.set_name(module.name());
  absl::flat_hash_map<const Computation*, int64_t> computation_ids;
  int64_t next_instruction_id = 1;
  for (const Computation* comp : module.MakeComputationPostOrder()) {
    const int64_t comp_id = static_cast<int64_t>(computation_ids.size()) + 1;
    computation_ids[comp] = comp_id;
    xla_pb::HloComputationProto* c = proto.add_computations();
    c->set_name(comp->name());
    c->set_id(comp_id);
    absl::flat_hash_map<const Instruction*, int64_t> ids;
    for (const Instruction* inst : comp->MakeInstructionPostOrder()) {
      const int64_t id = next_instruction_id++;
      ids[inst] = id;
      xla_pb::HloInstructionProto* i = c->add_instructions();
      i->set_name(inst->name());
      i->set_opcode(std::string(HloOpcodeString(inst->opcode())));
      i->set_id(id);
      xla_proto::ShapeToProto(inst->shape(), i->mutable_shape());
      for (const Instruction* op : inst->operands())
        i->add_operand_ids(ids[op]);
      for (const Instruction* p : inst->control_predecessors()) {
        i->add_control_predecessor_ids(ids[p]);
      }
      for (const Computation* called : inst->called_computations()) {
        i->add_called_computation_ids(computation_ids[called]);
      }
      xla_proto::AttrsToProto(*inst, i);
    }
    if (comp->root_instruction() != nullptr) {
      c->set_root_id(ids[comp->root_instruction()]);
    }
    if (comp == module.entry_computation()) {
      proto.set_entry_computation_name(comp->name());
      proto.set_entry_computation_id(comp_id);
    }
  }
  return proto.SerializeAsString();
}

}  // namespace plexa
