#!/usr/bin/env bash
# lead30's Geneformer call: gf29's verify.sh (results/h200/gf29-2026-11-28/verify.sh) with the
# peer's scripts taken from the checkout (gf29's were merged into scripts/reference), run from the
# checkout's root with the bundle carried as build-h30/.gpu:
#   B=build-h30 BUDGET=260 bash results/h200/lead30-2026-11-28/geneformer/call.sh "$OUT"
set -u
v=$(mktemp)
sed 's|--scripts "\$B/reference"|--scripts scripts/reference|' \
  results/h200/gf29-2026-11-28/verify.sh > "$v"
bash "$v" "$@"
