#!/usr/bin/env bash
# Builds the browser side into www/: ambient.wasm from the wasm main in ./wasm,
# and the wasm_exec.js of the same Go toolchain. `serve` runs the same build
# itself when www/ambient.wasm is missing or older than any .go source.
set -euo pipefail
cd "$(dirname "$0")"

mains=()
for f in wasm/*.go; do
	[[ -e $f && $f != *_test.go ]] && mains+=("$f")
done
if ((${#mains[@]} == 0)); then
	echo "build.sh: no wasm main (wasm/*.go) yet; nothing to build"
	exit 0
fi

mkdir -p www
echo "+ GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o www/ambient.wasm ./wasm"
GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o www/ambient.wasm ./wasm

# wasm_exec.js moved from misc/wasm to lib/wasm in Go 1.24.
goroot="$(go env GOROOT)"
glue=""
for rel in lib/wasm/wasm_exec.js misc/wasm/wasm_exec.js; do
	if [[ -f $goroot/$rel ]]; then
		glue="$goroot/$rel"
		break
	fi
done
if [[ -z $glue ]]; then
	echo "build.sh: wasm_exec.js not found under $goroot (lib/wasm or misc/wasm)" >&2
	exit 1
fi
echo "+ cp $glue www/wasm_exec.js"
cp "$glue" www/wasm_exec.js

size=$(wc -c <www/ambient.wasm)
gz=$(gzip -9 -c www/ambient.wasm | wc -c)
echo "build.sh: www/ambient.wasm $size bytes ($gz gzipped), www/wasm_exec.js from $(go env GOVERSION)"
