#!/usr/bin/env bash
# Regenerate the Python code for proto/craits/v1/*.proto into server/craits/v1/.
# The proto tree mirrors the Python package (craits.v1), so the generated absolute imports work.
# Run from anywhere: bash proto/generate.sh   (tests/protocol/test_codegen.py checks it is fresh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/server}"
py="${PYTHON:-$root/.venv/bin/python}"
export PATH="$(dirname "$py"):$PATH"   # protoc-gen-mypy lives beside the interpreter
mkdir -p "$out/craits/v1"
"$py" -m grpc_tools.protoc -I "$root/proto" \
  --python_out="$out" --grpc_python_out="$out" \
  --mypy_out="$out" --mypy_grpc_out="$out" \
  "$root"/proto/craits/v1/*.proto
printf '"""Generated protobuf and gRPC code for the craits.v1 protocol (see proto/generate.sh)."""\n' \
  > "$out/craits/v1/__init__.py"
