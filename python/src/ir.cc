#include "ir.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/builder/builder.h"
#include "core/passes/default_pipeline.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "dtypes.h"
#include "status.h"

namespace py = pybind11;

namespace plexa::python {

absl::StatusOr<std::unique_ptr<Module>> CloneModule(const Module& module) {
  return ParseHloModule(PrintModule(module));
}

namespace {

std::unique_ptr<PyModule> Parse(const std::string& text) {
  auto m = std::make_unique<PyModule>();
  m->module = ValueOrThrow(ParseHloModule(text));
  return m;
}

std::unique_ptr<PyModule> Optimize(const PyModule& m, py::object passes,
                                   bool fusion) {
  auto out = std::make_unique<PyModule>();
  out->module = ValueOrThrow(CloneModule(*m.module));
  PipelineOptions options;
  options.verify = true;
  options.fusion = fusion;
  std::unique_ptr<Pipeline> pipeline;
  if (passes.is_none()) {
    pipeline = MakeDefaultPipeline(options);
  } else {
    if (py::isinstance<py::str>(passes)) {
      throw StatusError(absl::InvalidArgumentError(
          "optimize: passes is a list of pass names, not one string (e.g. "
          "passes=['dce', 'cse'])"));
    }
    PipelineConfig config;
    config.verify = true;
    pipeline = std::make_unique<Pipeline>("python", config);
    for (py::handle p : passes) {
      const std::string name = py::str(p).cast<std::string>();
      pipeline->AddPass(ValueOrThrow(CreatePass(name, options)));
    }
  }
  absl::StatusOr<bool> changed;
  {
    py::gil_scoped_release release;
    changed = pipeline->Run(*out->module);
  }
  ThrowIfError(changed.status());
  return out;
}

// ---------------------------------------------------------------- Builder

// A top-level builder and the scalar computations it made for reductions.
// Ops are the builder's integer ids. Every operation that fails raises at
// once (the builder's sticky error, which names the operation and shapes).
class PyBuilder {
 public:
  explicit PyBuilder(const std::string& name)
      : builder_(std::make_unique<Builder>(name)) {}

  Op Get(int64_t id) const {
    auto it = ops_.find(id);
    if (it == ops_.end()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("value ", id, " does not belong to builder '",
                       builder_->name(), "'")));
    }
    return it->second;
  }

  int64_t Keep(Op op) {
    if (!builder_->ok()) throw StatusError(builder_->first_error());
    if (!op.valid()) {
      throw StatusError(absl::InternalError("builder returned no value"));
    }
    ops_[op.id()] = op;
    return op.id();
  }

  Builder& b() {
    if (built_) {
      throw StatusError(absl::FailedPreconditionError(absl::StrCat(
          "builder '", builder_->name(), "' already built its module")));
    }
    return *builder_;
  }

  // The scalar reducer computation `opcode(a, b)` for `type`.
  const Computation* Reducer(HloOpcode opcode, PrimitiveType type) {
    auto key = std::make_pair(static_cast<int>(opcode), type);
    if (auto it = reducers_.find(key); it != reducers_.end()) {
      return it->second;
    }
    std::unique_ptr<Builder> sub = b().CreateSubBuilder(
        absl::StrCat(HloOpcodeString(opcode), "_", primitive_util::Name(type)));
    const Shape scalar = ShapeUtil::MakeScalarShape(type);
    Op x = sub->Parameter(0, scalar, "x");
    Op y = sub->Parameter(1, scalar, "y");
    Op r = sub->BinaryOp(opcode, x, y);
    Computation* c = ValueOrThrow(sub->Build(r));
    sub_builders_.push_back(std::move(sub));
    reducers_[key] = c;
    return c;
  }

  std::unique_ptr<PyModule> BuildModule(int64_t root) {
    Op r = Get(root);
    auto m = std::make_unique<PyModule>();
    m->module = ValueOrThrow(b().BuildModule(r));
    built_ = true;
    return m;
  }

 private:
  std::unique_ptr<Builder> builder_;
  std::map<int64_t, Op> ops_;
  std::map<std::pair<int, PrimitiveType>, const Computation*> reducers_;
  std::vector<std::unique_ptr<Builder>> sub_builders_;
  bool built_ = false;
};

PrimitiveType TypeByName(const std::string& name) {
  return ValueOrThrow(primitive_util::FromName(name));
}

HloOpcode OpcodeByName(const std::string& name) {
  std::optional<HloOpcode> op = StringToHloOpcode(name);
  if (!op.has_value()) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("unknown opcode '", name, "'")));
  }
  return *op;
}

Literal LiteralFromArray(py::array array) {
  const PrimitiveType type =
      ValueOrThrow(TypeFromDtype(array.dtype(), "constant"));
  py::array dense = py::array::ensure(array, py::array::c_style);
  std::vector<int64_t> dims(dense.shape(), dense.shape() + dense.ndim());
  Shape shape = ShapeUtil::MakeShape(type, dims);
  LayoutUtil::SetToDefaultLayout(&shape);
  Literal literal(shape);
  if (literal.mutable_data().size() != static_cast<size_t>(dense.nbytes())) {
    throw StatusError(absl::InternalError(
        absl::StrCat("constant ", shape.ToString(), ": ", dense.nbytes(),
                     " bytes of data for ", literal.mutable_data().size())));
  }
  if (dense.nbytes() > 0) {
    std::memcpy(literal.mutable_data().data(), dense.data(), dense.nbytes());
  }
  return literal;
}

py::tuple ShapeOf(PyBuilder& pb, int64_t id) {
  Shape s = ValueOrThrow(pb.b().GetShape(pb.Get(id)));
  if (s.IsTuple()) {
    return py::make_tuple("tuple", py::tuple(0));
  }
  py::tuple dims(s.dimensions().size());
  for (size_t i = 0; i < s.dimensions().size(); ++i)
    dims[i] = s.dimensions()[i];
  return py::make_tuple(std::string(primitive_util::Name(s.element_type())),
                        dims);
}

}  // namespace

void RegisterIr(py::module_& m) {
  py::class_<PyModule>(m, "Module")
      .def_static("parse", &Parse, py::arg("text"),
                  "Parses HLO text (errors carry LINE:COL).")
      .def_static(
          "from_file",
          [](const std::string& path) {
            std::ifstream in(path, std::ios::binary);
            if (!in) {
              throw StatusError(absl::NotFoundError(
                  absl::StrCat("cannot read '", path, "'")));
            }
            std::stringstream text;
            text << in.rdbuf();
            absl::StatusOr<std::unique_ptr<Module>> module =
                ParseHloModule(text.str());
            if (!module.ok()) {
              throw StatusError(absl::Status(
                  module.status().code(),
                  absl::StrCat(path, ":", module.status().message())));
            }
            auto pm = std::make_unique<PyModule>();
            pm->module = *std::move(module);
            return pm;
          },
          py::arg("path"))
      .def_property_readonly("name",
                             [](const PyModule& p) { return p.module->name(); })
      .def(
          "as_text",
          [](const PyModule& p, bool print_operand_shapes) {
            PrintOptions options;
            options.print_operand_shapes = print_operand_shapes;
            return PrintModule(*p.module, options);
          },
          py::arg("print_operand_shapes") = true)
      .def("__str__", [](const PyModule& p) { return PrintModule(*p.module); })
      .def("check",
           [](const PyModule& p) { ThrowIfError(VerifyModule(*p.module)); })
      .def_property_readonly(
          "program_shape",
          [](const PyModule& p) {
            if (p.module->entry_computation() == nullptr) {
              throw StatusError(absl::FailedPreconditionError(
                  "the module has no entry computation"));
            }
            return p.module->entry_computation()
                ->ComputeProgramShape()
                .ToString();
          })
      .def("optimize", &Optimize, py::arg("passes") = py::none(),
           py::arg("fusion") = false);
  m.def("registered_passes", &RegisteredPassNames);
}

void RegisterBuilder(py::module_& m) {
  py::class_<PyBuilder>(m, "Builder")
      .def(py::init<const std::string&>(), py::arg("name"))
      .def("parameter",
           [](PyBuilder& pb, int64_t number, const std::string& type,
              std::vector<int64_t> dims, const std::string& name) {
             Shape s = ShapeUtil::MakeShape(TypeByName(type), dims);
             LayoutUtil::SetToDefaultLayout(&s);
             return pb.Keep(pb.b().Parameter(number, s, name));
           })
      .def("constant",
           [](PyBuilder& pb, py::array array) {
             return pb.Keep(pb.b().ConstantLiteral(LiteralFromArray(array)));
           })
      .def("binary",
           [](PyBuilder& pb, const std::string& opcode, int64_t lhs,
              int64_t rhs, std::vector<int64_t> bdims) {
             return pb.Keep(pb.b().BinaryOp(OpcodeByName(opcode), pb.Get(lhs),
                                            pb.Get(rhs), bdims));
           })
      .def(
          "compare",
          [](PyBuilder& pb, const std::string& direction, int64_t lhs,
             int64_t rhs, std::vector<int64_t> bdims) {
            std::optional<ComparisonDirection> d =
                StringToComparisonDirection(direction);
            if (!d.has_value()) {
              throw StatusError(absl::InvalidArgumentError(absl::StrCat(
                  "unknown comparison direction '", direction, "'")));
            }
            return pb.Keep(pb.b().Compare(pb.Get(lhs), pb.Get(rhs), *d, bdims));
          })
      .def("unary",
           [](PyBuilder& pb, const std::string& opcode, int64_t x) {
             return pb.Keep(pb.b().UnaryOp(OpcodeByName(opcode), pb.Get(x)));
           })
      .def("convert",
           [](PyBuilder& pb, int64_t x, const std::string& type) {
             return pb.Keep(
                 pb.b().ConvertElementType(pb.Get(x), TypeByName(type)));
           })
      .def("broadcast_in_dim",
           [](PyBuilder& pb, int64_t x, std::vector<int64_t> out_dims,
              std::vector<int64_t> bdims) {
             return pb.Keep(pb.b().BroadcastInDim(pb.Get(x), out_dims, bdims));
           })
      .def("reshape",
           [](PyBuilder& pb, int64_t x, std::vector<int64_t> dims) {
             return pb.Keep(pb.b().Reshape(pb.Get(x), dims));
           })
      .def("transpose",
           [](PyBuilder& pb, int64_t x, std::vector<int64_t> perm) {
             return pb.Keep(pb.b().Transpose(pb.Get(x), perm));
           })
      .def("rev",
           [](PyBuilder& pb, int64_t x, std::vector<int64_t> dims) {
             return pb.Keep(pb.b().Rev(pb.Get(x), dims));
           })
      .def("slice",
           [](PyBuilder& pb, int64_t x, std::vector<int64_t> start,
              std::vector<int64_t> limit, std::vector<int64_t> strides) {
             return pb.Keep(pb.b().Slice(pb.Get(x), start, limit, strides));
           })
      .def("concatenate",
           [](PyBuilder& pb, std::vector<int64_t> xs, int64_t dim) {
             std::vector<Op> ops;
             for (int64_t x : xs) ops.push_back(pb.Get(x));
             return pb.Keep(pb.b().ConcatInDim(ops, dim));
           })
      .def("select",
           [](PyBuilder& pb, int64_t p, int64_t t, int64_t f) {
             return pb.Keep(pb.b().Select(pb.Get(p), pb.Get(t), pb.Get(f)));
           })
      .def("clamp",
           [](PyBuilder& pb, int64_t lo, int64_t x, int64_t hi) {
             return pb.Keep(pb.b().Clamp(pb.Get(lo), pb.Get(x), pb.Get(hi)));
           })
      .def("dot_general",
           [](PyBuilder& pb, int64_t lhs, int64_t rhs,
              std::vector<int64_t> lhs_contracting,
              std::vector<int64_t> rhs_contracting,
              std::vector<int64_t> lhs_batch, std::vector<int64_t> rhs_batch) {
             DotDimensionNumbers dn;
             dn.lhs_contracting_dimensions = std::move(lhs_contracting);
             dn.rhs_contracting_dimensions = std::move(rhs_contracting);
             dn.lhs_batch_dimensions = std::move(lhs_batch);
             dn.rhs_batch_dimensions = std::move(rhs_batch);
             return pb.Keep(pb.b().DotGeneral(pb.Get(lhs), pb.Get(rhs), dn));
           })
      .def("reduce",
           [](PyBuilder& pb, int64_t x, int64_t init, const std::string& opcode,
              std::vector<int64_t> dims) {
             Shape s = ValueOrThrow(pb.b().GetShape(pb.Get(x)));
             const Computation* reducer =
                 pb.Reducer(OpcodeByName(opcode), s.element_type());
             return pb.Keep(
                 pb.b().Reduce(pb.Get(x), pb.Get(init), reducer, dims));
           })
      .def("iota",
           [](PyBuilder& pb, const std::string& type, std::vector<int64_t> dims,
              int64_t dimension) {
             Shape s = ShapeUtil::MakeShape(TypeByName(type), dims);
             return pb.Keep(pb.b().Iota(s, dimension));
           })
      .def("tuple",
           [](PyBuilder& pb, std::vector<int64_t> xs) {
             std::vector<Op> ops;
             for (int64_t x : xs) ops.push_back(pb.Get(x));
             return pb.Keep(pb.b().Tuple(ops));
           })
      .def("custom_call",
           [](PyBuilder& pb, const std::string& target,
              std::vector<int64_t> operands, const std::string& type,
              std::vector<int64_t> dims, const std::string& opaque,
              int32_t api_version, bool has_side_effect) {
             std::vector<Op> ops;
             for (int64_t x : operands) ops.push_back(pb.Get(x));
             Shape s = ShapeUtil::MakeShape(TypeByName(type), dims);
             return pb.Keep(pb.b().CustomCall(
                 target, ops, s, opaque,
                 api_version == 0 ? CustomCallApiVersion::kOriginal
                                  : CustomCallApiVersion::kTypedFfi,
                 has_side_effect));
           })
      .def("shape", &ShapeOf)
      .def("build", &PyBuilder::BuildModule, py::arg("root"));
}

}  // namespace plexa::python
