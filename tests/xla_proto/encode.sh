#!/usr/bin/env bash
# Encodes a hand-written protobuf text file of XLA's schema into the binary
# file XLA would write, with Debian's protoc:
#   encode.sh PROTOC SCHEMA_DIR IN.textproto OUT.pb
# The message is HloModuleProto unless the file's first lines say
# `# proto-message: HloProto` (or HloSnapshot).
set -euo pipefail
protoc=$1 dir=$2 in=$3 out=$4
msg=$(sed -n 's/^# proto-message: \([A-Za-z]*\).*/\1/p' "$in" | head -n1)
"$protoc" --encode="plexa.xla_pb.${msg:-HloModuleProto}" -I "$dir" xla_hlo.proto \
  <"$in" >"$out.tmp"
mv "$out.tmp" "$out"
