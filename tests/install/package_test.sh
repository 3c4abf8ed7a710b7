#!/usr/bin/env bash
# Makes the Debian package of a build tree (cpack -G DEB), checks its
# control data and contents, unpacks it into a scratch root (not the
# system) and runs the packaged tool and plugins from there.
#   package_test.sh CPACK BUILD_DIR SOURCE_DIR
set -euo pipefail
cpack=$1 build_dir=$2 source_dir=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/plexa-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== cpack -G DEB"
"$cpack" --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.txt" ||
  { cat "$work/cpack.txt"; fail "cpack failed"; }
deb=$(ls "$work"/out/*.deb)
echo "$deb ($(du -h "$deb" | cut -f1))"

echo "== control data"
dpkg-deb -I "$deb" >"$work/info.txt"
cat "$work/info.txt"
grep -q "^ Package: plexa$" "$work/info.txt" || fail "package name"
grep -q "^ Architecture: amd64$" "$work/info.txt" || fail "architecture"
# dpkg-shlibdeps found the shared libraries the binaries need.
for dep in libc6 libstdc++6 libabsl libprotobuf; do
  grep -q "^ Depends:.*$dep" "$work/info.txt" || fail "Depends lacks $dep"
done

echo "== contents"
dpkg-deb -c "$deb" | awk '{print $6}' >"$work/files.txt"
for f in ./usr/bin/plexa ./usr/lib/plexa/libplexa_plugin_cpu.so \
         ./usr/lib/plexa/libplexa_plugin_reference.so \
         ./usr/include/plexa/plexa_c_api.h \
         ./usr/include/plexa/internal/abi/sdk/plugin.h \
         ./usr/lib/libplexa_sdk.a ./usr/lib/cmake/Plexa/PlexaConfig.cmake \
         ./usr/lib/cmake/Plexa/PlexaConfigVersion.cmake \
         ./usr/lib/pkgconfig/plexa.pc ./usr/lib/pkgconfig/plexa-sdk.pc \
         ./usr/share/plexa/conformance/cases/binary/add_f32.hlo; do
  grep -qx -- "$f" "$work/files.txt" || fail "the package lacks $f"
done
grep -q "^ Recommends:.*libvulkan1" "$work/info.txt" || fail "Recommends lacks libvulkan1"
if grep -q "libplexa_plugin_cpu.so" "$work/files.txt"; then
  grep -q "^ Depends:.*libllvm19" "$work/info.txt" || fail "Depends lacks libllvm19"
fi
if grep -q "libplexa_plugin_onednn.so" "$work/files.txt"; then
  grep -q "^ Depends:.*libdnnl2" "$work/info.txt" || fail "Depends lacks libdnnl2"
fi
if grep -q "/build/\|^./work/" "$work/files.txt"; then
  fail "the package holds build-tree paths"
fi

echo "== the unpacked tool and plugins"
dpkg-deb -x "$deb" "$work/root"
root=$work/root/usr
# Stripped: no debug sections left in the plugins.
for f in lib/plexa/libplexa_plugin_cpu.so lib/libplexa_eval.a; do
  if readelf -S "$root/$f" 2>/dev/null | grep -q debug_info; then
    fail "$f is not stripped"
  fi
done
unset PLEXA_PLUGIN_PATH
"$root/bin/plexa" --version
"$root/bin/plexa" plugins >"$work/plugins.txt"
cat "$work/plugins.txt"
grep -q "cpu" "$work/plugins.txt" || fail "plexa plugins does not find the packaged CPU plugin"
grep -q "$work/root/usr/lib/plexa" "$work/plugins.txt" ||
  fail "plexa plugins did not look beside the packaged tool"
cat >"$work/axpy.hlo" <<'HLO'
HloModule axpy

ENTRY main {
  a = f32[4] constant({1, -2, 3.5, 0})
  b = f32[4] constant({10, 20, 30, 40})
  two = f32[] constant(2)
  t = f32[4] broadcast(two), dimensions={}
  m = f32[4] multiply(t, a)
  ROOT r = f32[4] add(m, b)
}
HLO
out=$("$root/bin/plexa" run --no-opt --backend=cpu "$work/axpy.hlo" --print)
echo "$out"
# 2 * {1, -2, 3.5, 0} + {10, 20, 30, 40}
grep -q "12, 16, 37, 40" <<<"$out" || fail "unexpected result: $out"
# The packaged conformance cases, found beside the packaged tool.
"$root/bin/plexa" test-plugin cpu --part=cases --filter='binary/add_f32*' \
  --jobs=2 | tee "$work/kit.txt"
grep -qE "^[1-9][0-9]* passed, 0 failed, 0 skipped$" "$work/kit.txt" ||
  fail "test-plugin on the packaged CPU plugin"
echo "ok"
