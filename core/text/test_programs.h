// HLO programs written as XLA prints them (JAX dumps: `jax.jit(f).lower(x)
// .compile().as_text()` style with `%` names and operand shapes, and the
// newer `as_text(dialect="hlo")` style without either). Shared by the text
// tests (round trips, structure checks) and tests/parser_fuzz_test.cc.
// Test-only header.
#ifndef PLEXA_CORE_TEXT_TEST_PROGRAMS_H_
#define PLEXA_CORE_TEXT_TEST_PROGRAMS_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace plexa::testing_programs {

struct TestProgram {
  absl::string_view name;
  absl::string_view text;
};

// A two-layer MLP with bias, relu and a softmax built from reduce regions.
inline constexpr absl::string_view kMlp =
    R"hlo(HloModule jit_mlp, entry_computation_layout={(f32[8,16]{1,0}, f32[16,32]{1,0}, f32[32]{0}, f32[32,4]{1,0}, f32[4]{0})->f32[8,4]{1,0}}, allow_spmd_sharding_propagation_to_output={true}

%region_0.18 (Arg_0.19: f32[], Arg_1.20: f32[]) -> f32[] {
  %Arg_0.19 = f32[] parameter(0), metadata={op_name="jit(mlp)/jit(main)/reduce_max"}
  %Arg_1.20 = f32[] parameter(1), metadata={op_name="jit(mlp)/jit(main)/reduce_max"}
  ROOT %maximum.21 = f32[] maximum(f32[] %Arg_0.19, f32[] %Arg_1.20), metadata={op_name="jit(mlp)/jit(main)/reduce_max" source_file="/tmp/mlp.py" source_line=14}
}

%region_1.28 (Arg_0.29: f32[], Arg_1.30: f32[]) -> f32[] {
  %Arg_0.29 = f32[] parameter(0)
  %Arg_1.30 = f32[] parameter(1)
  ROOT %add.31 = f32[] add(f32[] %Arg_0.29, f32[] %Arg_1.30), metadata={op_name="jit(mlp)/jit(main)/reduce_sum" source_file="/tmp/mlp.py" source_line=15}
}

ENTRY %main.36 (Arg_0.1: f32[8,16], Arg_1.2: f32[16,32], Arg_2.3: f32[32], Arg_3.4: f32[32,4], Arg_4.5: f32[4]) -> f32[8,4] {
  %Arg_0.1 = f32[8,16]{1,0} parameter(0)
  %Arg_1.2 = f32[16,32]{1,0} parameter(1)
  %dot.6 = f32[8,32]{1,0} dot(f32[8,16]{1,0} %Arg_0.1, f32[16,32]{1,0} %Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(mlp)/jit(main)/dot_general[dimension_numbers=(([1], [0]), ([], [])) precision=None preferred_element_type=float32]" source_file="/tmp/mlp.py" source_line=10}
  %Arg_2.3 = f32[32]{0} parameter(2)
  %broadcast.7 = f32[8,32]{1,0} broadcast(f32[32]{0} %Arg_2.3), dimensions={1}, metadata={op_name="jit(mlp)/jit(main)/add" source_file="/tmp/mlp.py" source_line=10}
  %add.8 = f32[8,32]{1,0} add(f32[8,32]{1,0} %dot.6, f32[8,32]{1,0} %broadcast.7), metadata={op_name="jit(mlp)/jit(main)/add" source_file="/tmp/mlp.py" source_line=10}
  %constant.9 = f32[] constant(0)
  %broadcast.10 = f32[8,32]{1,0} broadcast(f32[] %constant.9), dimensions={}
  %maximum.11 = f32[8,32]{1,0} maximum(f32[8,32]{1,0} %add.8, f32[8,32]{1,0} %broadcast.10), metadata={op_name="jit(mlp)/jit(main)/max" source_file="/tmp/mlp.py" source_line=11}
  %Arg_3.4 = f32[32,4]{1,0} parameter(3)
  %dot.12 = f32[8,4]{1,0} dot(f32[8,32]{1,0} %maximum.11, f32[32,4]{1,0} %Arg_3.4), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,default}
  %Arg_4.5 = f32[4]{0} parameter(4)
  %broadcast.13 = f32[8,4]{1,0} broadcast(f32[4]{0} %Arg_4.5), dimensions={1}
  %add.14 = f32[8,4]{1,0} add(f32[8,4]{1,0} %dot.12, f32[8,4]{1,0} %broadcast.13)
  %constant.17 = f32[] constant(-inf)
  %reduce.22 = f32[8]{0} reduce(f32[8,4]{1,0} %add.14, f32[] %constant.17), dimensions={1}, to_apply=%region_0.18, metadata={op_name="jit(mlp)/jit(main)/reduce_max" source_file="/tmp/mlp.py" source_line=14}
  %broadcast.23 = f32[8,4]{1,0} broadcast(f32[8]{0} %reduce.22), dimensions={0}
  %subtract.24 = f32[8,4]{1,0} subtract(f32[8,4]{1,0} %add.14, f32[8,4]{1,0} %broadcast.23)
  %exponential.25 = f32[8,4]{1,0} exponential(f32[8,4]{1,0} %subtract.24)
  %constant.27 = f32[] constant(0)
  %reduce.32 = f32[8]{0} reduce(f32[8,4]{1,0} %exponential.25, f32[] %constant.27), dimensions={1}, to_apply=%region_1.28
  %broadcast.33 = f32[8,4]{1,0} broadcast(f32[8]{0} %reduce.32), dimensions={0}
  ROOT %divide.34 = f32[8,4]{1,0} divide(f32[8,4]{1,0} %exponential.25, f32[8,4]{1,0} %broadcast.33), metadata={op_name="jit(mlp)/jit(main)/div" source_file="/tmp/mlp.py" source_line=16}
}
)hlo";

// NHWC convolution + batch-norm-inference + relu.
inline constexpr absl::string_view kConvBlock =
    R"hlo(HloModule jit_conv_block, entry_computation_layout={(f32[1,8,8,3]{3,2,1,0}, f32[3,3,3,16]{3,2,1,0}, f32[16]{0}, f32[16]{0}, f32[16]{0}, /*index=5*/f32[16]{0})->f32[1,8,8,16]{3,2,1,0}}

ENTRY %main.12 (Arg_0.1: f32[1,8,8,3], Arg_1.2: f32[3,3,3,16], Arg_2.3: f32[16], Arg_3.4: f32[16], Arg_4.5: f32[16], Arg_5.6: f32[16]) -> f32[1,8,8,16] {
  %Arg_0.1 = f32[1,8,8,3]{3,2,1,0} parameter(0)
  %Arg_1.2 = f32[3,3,3,16]{3,2,1,0} parameter(1)
  %convolution.7 = f32[1,8,8,16]{3,2,1,0} convolution(f32[1,8,8,3]{3,2,1,0} %Arg_0.1, f32[3,3,3,16]{3,2,1,0} %Arg_1.2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, metadata={op_name="jit(conv_block)/jit(main)/conv_general_dilated[window_strides=(1, 1) padding=((1, 1), (1, 1))]" source_file="/tmp/conv.py" source_line=7}
  %Arg_2.3 = f32[16]{0} parameter(2)
  %Arg_3.4 = f32[16]{0} parameter(3)
  %Arg_4.5 = f32[16]{0} parameter(4)
  %Arg_5.6 = f32[16]{0} parameter(5)
  %batch-norm-inference.8 = f32[1,8,8,16]{3,2,1,0} batch-norm-inference(f32[1,8,8,16]{3,2,1,0} %convolution.7, f32[16]{0} %Arg_2.3, f32[16]{0} %Arg_3.4, f32[16]{0} %Arg_4.5, f32[16]{0} %Arg_5.6), epsilon=0.001, feature_index=3
  %constant.9 = f32[] constant(0)
  %broadcast.10 = f32[1,8,8,16]{3,2,1,0} broadcast(f32[] %constant.9), dimensions={}
  ROOT %maximum.11 = f32[1,8,8,16]{3,2,1,0} maximum(f32[1,8,8,16]{3,2,1,0} %batch-norm-inference.8, f32[1,8,8,16]{3,2,1,0} %broadcast.10)
}
)hlo";

// A fori_loop: (counter, value) state, condition and body computations.
inline constexpr absl::string_view kWhileLoop =
    R"hlo(HloModule jit_loop, entry_computation_layout={(f32[4]{0})->(s32[], f32[4]{0})}

%region_0.6 (arg_tuple.7: (s32[], f32[4])) -> (s32[], f32[4]) {
  %arg_tuple.7 = (s32[], f32[4]{0}) parameter(0)
  %get-tuple-element.8 = s32[] get-tuple-element((s32[], f32[4]{0}) %arg_tuple.7), index=0
  %constant.10 = s32[] constant(1)
  %add.11 = s32[] add(s32[] %get-tuple-element.8, s32[] %constant.10)
  %get-tuple-element.9 = f32[4]{0} get-tuple-element((s32[], f32[4]{0}) %arg_tuple.7), index=1
  %multiply.12 = f32[4]{0} multiply(f32[4]{0} %get-tuple-element.9, f32[4]{0} %get-tuple-element.9)
  ROOT %tuple.13 = (s32[], f32[4]{0}) tuple(s32[] %add.11, f32[4]{0} %multiply.12)
}

%region_1.14 (arg_tuple.15: (s32[], f32[4])) -> pred[] {
  %arg_tuple.15 = (s32[], f32[4]{0}) parameter(0)
  %get-tuple-element.16 = s32[] get-tuple-element((s32[], f32[4]{0}) %arg_tuple.15), index=0
  %constant.18 = s32[] constant(3)
  ROOT %compare.19 = pred[] compare(s32[] %get-tuple-element.16, s32[] %constant.18), direction=LT
}

ENTRY %main.21 (Arg_0.1: f32[4]) -> (s32[], f32[4]) {
  %constant.2 = s32[] constant(0)
  %Arg_0.1 = f32[4]{0} parameter(0)
  %tuple.3 = (s32[], f32[4]{0}) tuple(s32[] %constant.2, f32[4]{0} %Arg_0.1)
  ROOT %while.20 = (s32[], f32[4]{0}) while((s32[], f32[4]{0}) %tuple.3), condition=%region_1.14, body=%region_0.6, backend_config={"known_trip_count":{"n":"3"}}
}
)hlo";

// jnp.argsort: a stable two-operand sort with a comparator.
inline constexpr absl::string_view kSort =
    R"hlo(HloModule jit_argsort, entry_computation_layout={(f32[5]{0})->s32[5]{0}}

%region_0.4 (Arg_0.5: f32[], Arg_1.6: f32[], Arg_2.7: s32[], Arg_3.8: s32[]) -> pred[] {
  %Arg_0.5 = f32[] parameter(0)
  %Arg_1.6 = f32[] parameter(1)
  %Arg_2.7 = s32[] parameter(2)
  %Arg_3.8 = s32[] parameter(3)
  ROOT %compare.9 = pred[] compare(f32[] %Arg_0.5, f32[] %Arg_1.6), direction=LT, type=TOTALORDER
}

ENTRY %main.12 (Arg_0.1: f32[5]) -> s32[5] {
  %Arg_0.1 = f32[5]{0} parameter(0)
  %iota.2 = s32[5]{0} iota(), iota_dimension=0
  %sort.10 = (f32[5]{0}, s32[5]{0}) sort(f32[5]{0} %Arg_0.1, s32[5]{0} %iota.2), dimensions={0}, is_stable=true, to_apply=%region_0.4
  ROOT %get-tuple-element.11 = s32[5]{0} get-tuple-element((f32[5]{0}, s32[5]{0}) %sort.10), index=1
}
)hlo";

// x[idx] and x.at[idx].add(v).
inline constexpr absl::string_view kGatherScatter =
    R"hlo(HloModule jit_gather_scatter, entry_computation_layout={(f32[5,3]{1,0}, s32[2]{0}, f32[2,3]{1,0})->(f32[2,3]{1,0}, f32[5,3]{1,0})}

%region_0.9 (Arg_0.10: f32[], Arg_1.11: f32[]) -> f32[] {
  %Arg_0.10 = f32[] parameter(0)
  %Arg_1.11 = f32[] parameter(1)
  ROOT %add.12 = f32[] add(f32[] %Arg_0.10, f32[] %Arg_1.11)
}

ENTRY %main.16 (Arg_0.1: f32[5,3], Arg_1.2: s32[2], Arg_2.3: f32[2,3]) -> (f32[2,3], f32[5,3]) {
  %Arg_0.1 = f32[5,3]{1,0} parameter(0)
  %Arg_1.2 = s32[2]{0} parameter(1)
  %reshape.4 = s32[2,1]{1,0} reshape(s32[2]{0} %Arg_1.2)
  %gather.5 = f32[2,3]{1,0} gather(f32[5,3]{1,0} %Arg_0.1, s32[2,1]{1,0} %reshape.4), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true
  %Arg_2.3 = f32[2,3]{1,0} parameter(2)
  %scatter.13 = f32[5,3]{1,0} scatter(f32[5,3]{1,0} %Arg_0.1, s32[2,1]{1,0} %reshape.4, f32[2,3]{1,0} %Arg_2.3), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%region_0.9
  ROOT %tuple.14 = (f32[2,3]{1,0}, f32[5,3]{1,0}) tuple(f32[2,3]{1,0} %gather.5, f32[5,3]{1,0} %scatter.13)
}
)hlo";

// Custom calls: a JSON backend_config with operand layout constraints and
// an API version; a quoted binary backend_config with side effects.
inline constexpr absl::string_view kCustomCall =
    R"hlo(HloModule jit_lu, entry_computation_layout={(f32[16,16]{1,0})->(f32[16,16]{1,0}, s32[16]{0})}

ENTRY %main.7 (Arg_0.1: f32[16,16]) -> (f32[16,16], s32[16]) {
  %Arg_0.1 = f32[16,16]{1,0} parameter(0)
  %custom-call.2 = (f32[16,16]{0,1}, s32[16]{0}, s32[]) custom-call(f32[16,16]{1,0} %Arg_0.1), custom_call_target="cusolver_getrf", operand_layout_constraints={f32[16,16]{0,1}}, api_version=API_VERSION_STATUS_RETURNING, metadata={op_name="jit(lu)/jit(main)/lu" source_file="/tmp/lu.py" source_line=5}, backend_config={"operation":"getrf","batch":1,"n":16}
  %get-tuple-element.3 = f32[16,16]{0,1} get-tuple-element((f32[16,16]{0,1}, s32[16]{0}, s32[]) %custom-call.2), index=0
  %copy.4 = f32[16,16]{1,0} copy(f32[16,16]{0,1} %get-tuple-element.3)
  %get-tuple-element.5 = s32[16]{0} get-tuple-element((f32[16,16]{0,1}, s32[16]{0}, s32[]) %custom-call.2), index=1
  %custom-call.6 = s32[16]{0} custom-call(s32[16]{0} %get-tuple-element.5), custom_call_target="my_log\"ger", custom_call_has_side_effect=true, backend_config="\001\002 opaque"
  ROOT %tuple.7 = (f32[16,16]{1,0}, s32[16]{0}) tuple(f32[16,16]{1,0} %copy.4, s32[16]{0} %custom-call.6)
}
)hlo";

// A loop fusion, as in an optimized (scheduled) dump.
inline constexpr absl::string_view kFusion =
    R"hlo(HloModule jit_fused, is_scheduled=true, entry_computation_layout={(f32[128]{0}, f32[128]{0})->f32[128]{0}}, frontend_attributes={fingerprint_before_lhs="3bc1f0a4"}

%fused_computation (param_0: f32[128], param_1.1: f32[128]) -> f32[128] {
  %param_0 = f32[128]{0} parameter(0)
  %param_1.1 = f32[128]{0} parameter(1)
  %multiply.0 = f32[128]{0} multiply(f32[128]{0} %param_0, f32[128]{0} %param_1.1)
  ROOT %add.0 = f32[128]{0} add(f32[128]{0} %multiply.0, f32[128]{0} %param_0)
}

ENTRY %main.5 (Arg_0.1: f32[128], Arg_1.2: f32[128]) -> f32[128] {
  %Arg_0.1 = f32[128]{0} parameter(0), sharding={replicated}
  %Arg_1.2 = f32[128]{0} parameter(1), sharding={replicated}
  ROOT %fusion = f32[128]{0} fusion(f32[128]{0} %Arg_0.1, f32[128]{0} %Arg_1.2), kind=kLoop, calls=%fused_computation, metadata={op_name="jit(f)/jit(main)/mul" source_file="/tmp/f.py" source_line=4}
}
)hlo";

// The newer `as_text(dialect="hlo")` spelling: no '%', no operand shapes,
// no signatures, computations referenced before their definition.
inline constexpr absl::string_view kModernDump =
    R"hlo(HloModule jit_f, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[2,3]{1,0}, f32[3]{0})}

ENTRY main.12 {
  Arg_0.1 = f32[2,3]{1,0} parameter(0)
  constant.3 = f32[] constant(0)
  reduce_sum.4 = f32[3]{0} reduce(Arg_0.1, constant.3), dimensions={0}, to_apply=region_0.8
  constant.2 = f32[] constant(1.5)
  broadcast.5 = f32[2,3]{1,0} broadcast(constant.2), dimensions={}
  mul.6 = f32[2,3]{1,0} multiply(Arg_0.1, broadcast.5)
  Arg_1.2 = s32[] parameter(1)
  convert.7 = f32[] convert(Arg_1.2)
  add.9 = f32[2,3]{1,0} add(mul.6, broadcast.10)
  broadcast.10 = f32[2,3]{1,0} broadcast(convert.7), dimensions={}
  ROOT tuple.11 = (f32[2,3]{1,0}, f32[3]{0}) tuple(add.9, reduce_sum.4)
}

region_0.8 {
  reduce_sum.9 = f32[] parameter(0)
  reduce_sum.10 = f32[] parameter(1)
  ROOT reduce_sum.11 = f32[] add(reduce_sum.9, reduce_sum.10)
}
)hlo";

// The example from the task description.
inline constexpr absl::string_view kJitF =
    R"hlo(HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}, allow_spmd_sharding_propagation_to_output={true}

ENTRY %main.5 (Arg_0.1: f32[2,3]) -> f32[2,3] {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0)
  %constant.1 = f32[] constant(2)
  %broadcast.2 = f32[2,3]{1,0} broadcast(f32[] %constant.1), dimensions={}
  ROOT %add.3 = f32[2,3]{1,0} add(f32[2,3]{1,0} %Arg_0.1, f32[2,3]{1,0} %broadcast.2), metadata={op_name="jit(f)/add" source_file="x.py" source_line=3}
}
)hlo";

// Control flow and collectives: conditional (pred and indexed forms), call,
// map, all-reduce with iota replica groups, control dependencies.
inline constexpr absl::string_view kControlFlow =
    R"hlo(HloModule control_flow, entry_computation_layout={(pred[], s32[], f32[4]{0})->(f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0})}, replica_count=4

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

%negate_branch (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(f32[4]{0} %p)
}

%identity_branch (q: f32[4]) -> f32[4] {
  ROOT %q = f32[4]{0} parameter(0)
}

%exp_branch (r: f32[4]) -> f32[4] {
  %r = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(f32[4]{0} %r)
}

%double (s: f32[]) -> f32[] {
  %s = f32[] parameter(0)
  ROOT %twice = f32[] add(f32[] %s, f32[] %s)
}

ENTRY %main (pred: pred[], index: s32[], data: f32[4]) -> (f32[4], f32[4], f32[4], f32[4]) {
  %pred = pred[] parameter(0)
  %data = f32[4]{0} parameter(2)
  %cond = f32[4]{0} conditional(pred[] %pred, f32[4]{0} %data, f32[4]{0} %data), true_computation=%negate_branch, false_computation=%identity_branch
  %index = s32[] parameter(1)
  %switch = f32[4]{0} conditional(s32[] %index, f32[4]{0} %data, f32[4]{0} %data, f32[4]{0} %data), branch_computations={%negate_branch, %identity_branch, %exp_branch}
  %mapped = f32[4]{0} map(f32[4]{0} %data), dimensions={0}, to_apply=%double
  %called = f32[4]{0} call(f32[4]{0} %data), to_apply=%exp_branch
  %all-reduce = f32[4]{0} all-reduce(f32[4]{0} %called), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=%add, control-predecessors={%mapped}
  ROOT %tuple = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(f32[4]{0} %cond, f32[4]{0} %switch, f32[4]{0} %mapped, f32[4]{0} %all-reduce)
}
)hlo";

// Data movement and windowed ops.
inline constexpr absl::string_view kDataMovement =
    R"hlo(HloModule data_movement, entry_computation_layout={(f32[4,6]{1,0}, s32[], s32[])->(f32[2,3]{1,0}, f32[6,4]{0,1}, f32[4,12]{1,0}, f32[2,3]{1,0}, f32[4,6]{1,0}, /*index=5*/f32[2,3]{1,0}, f32[4,6]{1,0}, f32[8,12]{1,0}, f32[4,6]{1,0})}

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(f32[] %a, f32[] %b)
}

%ge (c: f32[], d: f32[]) -> pred[] {
  %c = f32[] parameter(0)
  %d = f32[] parameter(1)
  ROOT %cmp = pred[] compare(f32[] %c, f32[] %d), direction=GE
}

%sum (e: f32[], f: f32[]) -> f32[] {
  %e = f32[] parameter(0)
  %f = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %e, f32[] %f)
}

ENTRY %main (x: f32[4,6], i: s32[], j: s32[]) -> (f32[2,3], f32[6,4], f32[4,12], f32[2,3], f32[4,6], /*index=5*/f32[2,3], f32[4,6], f32[8,12], f32[4,6]) {
  %x = f32[4,6]{1,0} parameter(0)
  %slice = f32[2,3]{1,0} slice(f32[4,6]{1,0} %x), slice={[0:4:2], [1:4]}
  %transpose = f32[6,4]{0,1} transpose(f32[4,6]{1,0} %x), dimensions={1,0}
  %concatenate = f32[4,12]{1,0} concatenate(f32[4,6]{1,0} %x, f32[4,6]{1,0} %x), dimensions={1}
  %i = s32[] parameter(1)
  %j = s32[] parameter(2)
  %dynamic-slice = f32[2,3]{1,0} dynamic-slice(f32[4,6]{1,0} %x, s32[] %i, s32[] %j), dynamic_slice_sizes={2,3}
  %dynamic-update-slice = f32[4,6]{1,0} dynamic-update-slice(f32[4,6]{1,0} %x, f32[2,3]{1,0} %dynamic-slice, s32[] %i, s32[] %j)
  %init = f32[] constant(-inf)
  %reduce-window = f32[2,3]{1,0} reduce-window(f32[4,6]{1,0} %x, f32[] %init), window={size=2x2 stride=2x2}, to_apply=%max
  %zero = f32[] constant(0)
  %select-and-scatter = f32[4,6]{1,0} select-and-scatter(f32[4,6]{1,0} %x, f32[2,3]{1,0} %reduce-window, f32[] %zero), window={size=2x2 stride=2x2}, select=%ge, scatter=%sum
  %pad = f32[8,12]{1,0} pad(f32[4,6]{1,0} %x, f32[] %zero), padding=0_1_1x2_-1_1
  %reverse = f32[4,6]{1,0} reverse(f32[4,6]{1,0} %x), dimensions={0,1}
  ROOT %tuple = (f32[2,3]{1,0}, f32[6,4]{0,1}, f32[4,12]{1,0}, f32[2,3]{1,0}, f32[4,6]{1,0}, /*index=5*/f32[2,3]{1,0}, f32[4,6]{1,0}, f32[8,12]{1,0}, f32[4,6]{1,0}) tuple(f32[2,3]{1,0} %slice, f32[6,4]{0,1} %transpose, f32[4,12]{1,0} %concatenate, f32[2,3]{1,0} %dynamic-slice, f32[4,6]{1,0} %dynamic-update-slice, /*index=5*/f32[2,3]{1,0} %reduce-window, f32[4,6]{1,0} %select-and-scatter, f32[8,12]{1,0} %pad, f32[4,6]{1,0} %reverse)
}
)hlo";

// Constants of every element type and the remaining ops.
inline constexpr absl::string_view kMiscOps = R"hlo(HloModule misc_ops

ENTRY %main (a: f32[2,2], b: f32[2,2], t: token[]) -> (f32[2,2], c64[2], (f32[2], s32[]), f32[2,2], u64[2], /*index=5*/s64[2], token[]) {
  %a = f32[2,2]{1,0} parameter(0)
  %b = f32[2,2]{1,0} parameter(1)
  %t = token[] parameter(2)
  %cholesky = f32[2,2]{1,0} cholesky(f32[2,2]{1,0} %a), lower=true
  %triangular-solve = f32[2,2]{1,0} triangular-solve(f32[2,2]{1,0} %cholesky, f32[2,2]{1,0} %b), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
  %complex = c64[2]{0} constant({(1, 2), (-0.5, inf)})
  %tuple-constant = (f32[2]{0}, s32[]) constant(( {1.5, -2}, 7 ))
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %rng = f32[2,2]{1,0} rng(f32[] %lo, f32[] %hi), distribution=rng_uniform
  %reduce-precision = f32[2,2]{1,0} reduce-precision(f32[2,2]{1,0} %rng), exponent_bits=5, mantissa_bits=10
  %clamp = f32[2,2]{1,0} clamp(f32[2,2]{1,0} %a, f32[2,2]{1,0} %reduce-precision, f32[2,2]{1,0} %b)
  %umax = u64[2]{0} constant({18446744073709551615, 0})
  %smin = s64[2]{0} constant({-9223372036854775808, 9223372036854775807})
  %bitcast-convert = s32[2,2]{1,0} bitcast-convert(f32[2,2]{1,0} %clamp)
  %convert = f32[2,2]{1,0} convert(s32[2,2]{1,0} %bitcast-convert)
  %get-dimension-size = s32[] get-dimension-size(f32[2,2]{1,0} %convert), dimensions={1}
  %infeed = ((f32[2]{0}), token[]) infeed(token[] %t), infeed_config="feed"
  %infeed-token = token[] get-tuple-element(((f32[2]{0}), token[]) %infeed), index=1
  %after-all = token[] after-all(token[] %t, token[] %infeed-token)
  %outfeed = token[] outfeed(f32[2,2]{1,0} %convert, token[] %after-all), outfeed_shape=f32[2,2]{1,0}, outfeed_config="out"
  ROOT %result = (f32[2,2]{1,0}, c64[2]{0}, (f32[2]{0}, s32[]), f32[2,2]{1,0}, u64[2]{0}, /*index=5*/s64[2]{0}, token[]) tuple(f32[2,2]{1,0} %triangular-solve, c64[2]{0} %complex, (f32[2]{0}, s32[]) %tuple-constant, f32[2,2]{1,0} %convert, u64[2]{0} %umax, /*index=5*/s64[2]{0} %smin, token[] %outfeed)
}
)hlo";

// rng-bit-generator with each algorithm, both Philox state sizes and the
// state threaded from one generator to the next, as XLA prints it.
inline constexpr absl::string_view kRngBitGenerator =
    R"hlo(HloModule rng_bit_generator, entry_computation_layout={(u64[2]{0}, u64[3]{0})->(u64[2]{0}, u32[2,3]{1,0}, s64[5]{0}, u8[7]{0})}

ENTRY %main (state: u64[2], state3: u64[3]) -> (u64[2], u32[2,3], s64[5], u8[7]) {
  %state = u64[2]{0} parameter(0)
  %rng = (u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(u64[2]{0} %state), algorithm=rng_three_fry
  %next = u64[2]{0} get-tuple-element((u64[2]{0}, u32[2,3]{1,0}) %rng), index=0
  %bits = u32[2,3]{1,0} get-tuple-element((u64[2]{0}, u32[2,3]{1,0}) %rng), index=1
  %state3 = u64[3]{0} parameter(1)
  %philox = (u64[3]{0}, s64[5]{0}) rng-bit-generator(u64[3]{0} %state3), algorithm=rng_philox
  %wide = s64[5]{0} get-tuple-element((u64[3]{0}, s64[5]{0}) %philox), index=1
  %default = (u64[2]{0}, u8[7]{0}) rng-bit-generator(u64[2]{0} %next), algorithm=rng_default
  %last = u64[2]{0} get-tuple-element((u64[2]{0}, u8[7]{0}) %default), index=0
  %bytes = u8[7]{0} get-tuple-element((u64[2]{0}, u8[7]{0}) %default), index=1
  ROOT %result = (u64[2]{0}, u32[2,3]{1,0}, s64[5]{0}, u8[7]{0}) tuple(u64[2]{0} %last, u32[2,3]{1,0} %bits, s64[5]{0} %wide, u8[7]{0} %bytes)
}
)hlo";

// Batch norm training and gradient, plus layouts with tiles and memory
// spaces, bounded dynamic shapes and batched dot.
inline constexpr absl::string_view kBatchNormAndLayouts =
    R"hlo(HloModule bn_layouts, entry_computation_layout={(f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}, f32[2,8,16]{2,1,0:T(8,128)}, f32[2,16,4]{2,1,0:T(8,128)S(1)}, /*index=5*/s32[<=10]{0})->(f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}, f32[2,8,4]{2,1,0})}

ENTRY %main (x: f32[2,4,4,8], scale: f32[8], offset: f32[8], lhs: f32[2,8,16], rhs: f32[2,16,4], dyn: s32[<=10]) -> (f32[2,4,4,8], f32[8], f32[8], f32[2,8,4]) {
  %x = f32[2,4,4,8]{3,2,1,0} parameter(0)
  %scale = f32[8]{0} parameter(1)
  %offset = f32[8]{0} parameter(2)
  %bn = (f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}) batch-norm-training(f32[2,4,4,8]{3,2,1,0} %x, f32[8]{0} %scale, f32[8]{0} %offset), epsilon=1e-05, feature_index=3
  %mean = f32[8]{0} get-tuple-element((f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}) %bn), index=1
  %var = f32[8]{0} get-tuple-element((f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}) %bn), index=2
  %grad = (f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}) batch-norm-grad(f32[2,4,4,8]{3,2,1,0} %x, f32[8]{0} %scale, f32[8]{0} %mean, f32[8]{0} %var, f32[2,4,4,8]{3,2,1,0} %x), epsilon=0.001, feature_index=3
  %dx = f32[2,4,4,8]{3,2,1,0} get-tuple-element((f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}) %grad), index=0
  %lhs = f32[2,8,16]{2,1,0:T(8,128)} parameter(3)
  %rhs = f32[2,16,4]{2,1,0:T(8,128)S(1)} parameter(4)
  %dot = f32[2,8,4]{2,1,0} dot(f32[2,8,16]{2,1,0:T(8,128)} %lhs, f32[2,16,4]{2,1,0:T(8,128)S(1)} %rhs), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  %dyn = s32[<=10]{0} parameter(5)
  ROOT %out = (f32[2,4,4,8]{3,2,1,0}, f32[8]{0}, f32[8]{0}, f32[2,8,4]{2,1,0}) tuple(f32[2,4,4,8]{3,2,1,0} %dx, f32[8]{0} %mean, f32[8]{0} %var, f32[2,8,4]{2,1,0} %dot)
}
)hlo";

inline constexpr TestProgram kAllPrograms[] = {
    {"mlp", kMlp},
    {"conv_block", kConvBlock},
    {"while_loop", kWhileLoop},
    {"sort", kSort},
    {"gather_scatter", kGatherScatter},
    {"custom_call", kCustomCall},
    {"fusion", kFusion},
    {"modern_dump", kModernDump},
    {"jit_f", kJitF},
    {"control_flow", kControlFlow},
    {"data_movement", kDataMovement},
    {"misc_ops", kMiscOps},
    {"batch_norm_and_layouts", kBatchNormAndLayouts},
    {"rng_bit_generator", kRngBitGenerator},
};

#ifdef PLEXA_SOURCE_DIR
// Every .hlo file under examples/ and tests/ of the source tree, in path
// order: (path relative to the tree, text).
inline std::vector<std::pair<std::string, std::string>> TreeHloFiles() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"examples", "tests"}) {
    const std::filesystem::path root =
        std::filesystem::path(PLEXA_SOURCE_DIR) / dir;
    std::error_code ec;
    if (!std::filesystem::exists(root, ec)) continue;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(root, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".hlo") {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    out.emplace_back(std::filesystem::relative(f, PLEXA_SOURCE_DIR).string(),
                     buffer.str());
  }
  return out;
}
#endif  // PLEXA_SOURCE_DIR

}  // namespace plexa::testing_programs

#endif  // PLEXA_CORE_TEXT_TEST_PROGRAMS_H_
