#!/usr/bin/env bash
# Checks that every plugin given exports exactly one dynamic symbol,
# PLX_GetApi (docs/abi.md: "Plugins built with the SDK export nothing
# else"). Undefined symbols (what the plugin imports) are ignored.
#   exported_symbols_test.sh LIB.so [LIB.so ...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 LIB.so..." >&2; exit 2; }
status=0
for lib in "$@"; do
  # Name column of defined dynamic symbols that other objects can bind to
  # (global: upper-case type letters; 'u': GNU unique), without version
  # suffixes. Local entries of .dynsym (lower-case letters; the linker
  # keeps some for relocations) are not exports.
  exported=$(nm -D --defined-only "$lib" |
             awk 'NF >= 3 && ($2 ~ /^[A-Z]$/ || $2 == "u") {print $3}' |
             sed 's/@.*//' | sort -u)
  if [ "$exported" != "PLX_GetApi" ]; then
    echo "FAIL: $lib exports:" >&2
    printf '  %s\n' $exported >&2
    status=1
  else
    echo "ok: $lib exports only PLX_GetApi"
  fi
done
exit $status
