#!/usr/bin/env bash
# lazyfs, the power-loss test's FUSE file system (test/powerloss/lazyfs):
# built from the Go module proxy and cached per machine under a name that
# carries a hash of its source, so an edit rebuilds it.
#
# Usage:
#   scripts/lazyfs.sh build   build/cache the binary
#   scripts/lazyfs.sh path    build if needed, print the binary's path
#
# Environment: SLIPGATE_CACHE (default ~/.cache/slipgate); the binary is
# $SLIPGATE_CACHE/bin/lazyfs-<hash>.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/../test/powerloss/lazyfs" && pwd)"
CACHE="${SLIPGATE_CACHE:-$HOME/.cache/slipgate}"

die() { echo "lazyfs: $*" >&2; exit 1; }

binary() {
  local hash
  hash="$(cd "$SRC" && cat go.mod go.sum $(ls ./*.go | sort) | sha256sum | cut -c1-16)"
  echo "$CACHE/bin/lazyfs-$hash"
}

build() {
  local bin; bin="$(binary)"
  [[ -x "$bin" ]] && return
  local go; go="$(command -v go || echo /usr/local/go/bin/go)"
  [[ -x "$go" ]] || die "go not found (need Go >= 1.22)"
  mkdir -p "$(dirname "$bin")"
  # Build to a temp name then rename, so a half-written binary is never cached.
  (cd "$SRC" && GOTOOLCHAIN=local "$go" build -trimpath -o "$bin.tmp.$$" .) >&2
  mv -f "$bin.tmp.$$" "$bin"
}

case "${1:-}" in
  build) build ;;
  path) build && binary ;;
  *) die "usage: $0 build | path" ;;
esac
