#!/usr/bin/env bash
# Installs Plexa's development files to a temporary prefix, builds
# examples/out_of_tree_plugin against that install alone (find_package(Plexa),
# Plexa::sdk), runs a program on the built plugin with `plexa run`, and
# checks it with `plexa test-plugin`.
#   out_of_tree_test.sh CMAKE BUILD_DIR SOURCE_DIR PLEXA_EXE
set -euo pipefail
cmake=$1 build_dir=$2 source_dir=$3 plexa=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/plexa-oot.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }

# write_f32_npy FILE SHAPE DATA: a little-endian f32 .npy file by hand
# (magic, version 1.0, header length, header padded to 64 bytes, DATA as
# printf escapes).
write_f32_npy() {
  local header="{'descr': '<f4', 'fortran_order': False, 'shape': $2, }"
  while [ $(( (10 + ${#header} + 1) % 64 )) -ne 0 ]; do header+=" "; done
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $(( (${#header} + 1) % 256 )))\\x$(printf %02x $(( (${#header} + 1) / 256 )))"
    printf '%s\n' "$header"
    printf "$3"
  } >"$1"
}

echo "== install (component Plexa_Development) to $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" --component Plexa_Development
for f in include/plexa/plexa_c_api.h include/plexa/internal/abi/sdk/plugin.h \
         include/plexa/internal/core/ir/module.h lib/libplexa_sdk.a \
         lib/cmake/Plexa/PlexaConfig.cmake lib/cmake/Plexa/PlexaConfigVersion.cmake \
         lib/cmake/Plexa/PlexaTargets.cmake lib/cmake/Plexa/plugin.map; do
  [ -f "$prefix/$f" ] || fail "install is missing $f"
done

echo "== configure and build the example against the install"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$source_dir/examples/out_of_tree_plugin" -B "$work/build" \
  "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
"$cmake" --build "$work/build" -j1
plugin=$work/build/libplexa_plugin_elementwise.so
[ -f "$plugin" ] || fail "the build did not produce $plugin"
# Built from the install only: no include path into the source tree.
if grep -q -- "-I$source_dir" "$work/build/compile_commands.json"; then
  fail "the example was compiled with the source tree on its include path"
fi
exported=$(nm -D --defined-only "$plugin" | awk 'NF >= 3 {print $3}' | sort -u)
[ "$exported" = "PLX_GetApi" ] || fail "the plugin exports: $exported"

echo "== plexa run on the example plugin"
# --no-opt: without it the default pipeline folds this all-constant program
# to one constant before the plugin sees it.
out=$("$plexa" run --no-opt --backend="$plugin" \
      "$source_dir/examples/out_of_tree_plugin/axpy.hlo" --print)
echo "$out"
# a * x + y = 2 * {1, -2, 3.5, 0} + {10, 20, 30, 40}
grep -q "12, 16, 37, 40" <<<"$out" || fail "unexpected result: $out"

echo "== with an input: x * x - x for x = {1, 2, -3, 0.5}"
write_f32_npy "$work/x.npy" "(4,)" \
  '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\xc0\x00\x00\x00\x3f'
cat >"$work/square_minus.hlo" <<'HLO'
HloModule square_minus

ENTRY main {
  x = f32[4] parameter(0)
  xx = f32[4] multiply(x, x)
  ROOT r = f32[4] subtract(xx, x)
}
HLO
out=$("$plexa" run --backend="$plugin" "$work/square_minus.hlo" \
      --input="$work/x.npy" --print)
echo "$out"
grep -q "0, 2, 12, -0.25" <<<"$out" || fail "unexpected result: $out"

echo "== a program outside the plugin's op family is refused at compile time"
cat >"$work/dot.hlo" <<'HLO'
HloModule dot

ENTRY main {
  a = f32[2,2] parameter(0)
  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
HLO
if "$plexa" run --backend="$plugin" "$work/dot.hlo" --print \
     >"$work/out.txt" 2>"$work/err.txt"; then
  fail "the dot program ran on the elementwise plugin"
fi
cat "$work/err.txt"
grep -q "'d' (dot" "$work/err.txt" || fail "the error does not name the instruction"
grep -q "elementwise" "$work/err.txt" || fail "the error does not name the plugin"

echo "== plexa test-plugin: the conformance cases of the plugin's op family"
# Plexa's own suite, run on the plugin built out of tree (the f32 cases of
# the ops it implements; everything else it refuses by design).
"$plexa" test-plugin "$plugin" --jobs=2 --junit="$work/junit.xml" \
  --filter='binary/add_f32*,binary/subtract_f32*,binary/multiply_f32*,binary/divide_f32.hlo,binary/maximum_f32.hlo,binary/minimum_f32.hlo,unary/abs_f32*,unary/negate_f32*,unary/sqrt_f32*' \
  | tee "$work/kit.txt" || fail "test-plugin failed on the out-of-tree plugin"
grep -qE "^cases: [1-9][0-9]* passed, 0 failed, 0 skipped$" "$work/kit.txt" ||
  fail "test-plugin did not pass every case"
grep -qE "^abi: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$" "$work/kit.txt" ||
  fail "test-plugin's ABI checks did not pass"
grep -qE "^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$" "$work/kit.txt" ||
  fail "test-plugin did not pass every case"
grep -q "<testcase classname=\"binary\" name=\"add_f32\"" "$work/junit.xml" ||
  fail "the JUnit file lacks binary/add_f32"
echo "== pkg-config: the same plugin built with g++ alone (plexa-sdk.pc)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
for pc in plexa plexa-sdk; do
  [ -f "$prefix/lib/pkgconfig/$pc.pc" ] || fail "install is missing lib/pkgconfig/$pc.pc"
done
[ "$(pkg-config --modversion plexa)" = "$("$plexa" --version | awk '{print $2}')" ] ||
  fail "plexa.pc's version $(pkg-config --modversion plexa) is not the tool's"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 -shared -fPIC -fvisibility=hidden \
  "$source_dir/examples/out_of_tree_plugin/elementwise_plugin.cc" \
  -o "$work/libplexa_plugin_elementwise_pc.so" \
  $(pkg-config --cflags --libs plexa-sdk) \
  -Wl,--version-script="$(pkg-config --variable=plugin_map plexa-sdk)" -Wl,--no-undefined
out=$("$plexa" run --no-opt --backend="$work/libplexa_plugin_elementwise_pc.so" \
      "$source_dir/examples/out_of_tree_plugin/axpy.hlo" --print)
grep -q "12, 16, 37, 40" <<<"$out" || fail "unexpected result: $out"

echo "== the custom-call examples, built with CMake against the install"
"$cmake" -S "$source_dir/examples/custom_call" -B "$work/cc_build" \
  "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
"$cmake" --build "$work/cc_build" -j1
if grep -q -- "-I$source_dir" "$work/cc_build/compile_commands.json"; then
  fail "the custom-call examples were compiled with the source tree on the include path"
fi
printf 'HloModule row_sums\n\nENTRY main {\n  x = f32[2,3] parameter(0)\n  ROOT s = f32[2] custom-call(x), custom_call_target="row_sums_f32_2x3"\n}\n' \
  >"$work/row_sums.hlo"
cat >"$work/typed.hlo" <<'HLO'
HloModule typed

ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="my_scale",
    api_version=API_VERSION_TYPED_FFI, backend_config={scale = 2.5 : f32}
}
HLO
# x = {1, 2, -3, 0.5} (x.npy above) for the typed target;
# a 2x3 input for the row sums: {{1, 2, -3}, {0.5, 1, 2}} reshaped from 6.
write_f32_npy "$work/x23.npy" "(2, 3)" \
  '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\xc0\x00\x00\x00\x3f\x00\x00\x80\x3f\x00\x00\x00\x40'
out=$("$plexa" run "$work/row_sums.hlo" --input="$work/x23.npy" --print \
      --custom-call-lib="$work/cc_build/libplexa_example_custom_calls.so")
echo "$out"
# 1 + 2 - 3 = 0; 0.5 + 1 + 2 = 3.5
grep -q "0, 3.5" <<<"$out" || fail "unexpected row sums: $out"

echo "== the typed target built with cc and pkg-config alone (plexa.pc)"
# shellcheck disable=SC2046
cc -std=c11 -O1 -shared -fPIC -Wall -Werror $(pkg-config --cflags plexa) \
  "$source_dir/examples/custom_call/typed_scale.c" -o "$work/libtyped_pc.so"
out=$("$plexa" run "$work/typed.hlo" --input="$work/x.npy" --print \
      --custom-call-lib="$work/libtyped_pc.so")
echo "$out"
# 2.5 * {1, 2, -3, 0.5}
grep -q "2.5, 5, -7.5, 1.25" <<<"$out" || fail "unexpected typed result: $out"
echo "ok"
