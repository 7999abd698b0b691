#!/usr/bin/env bash
# CI's packaging step (.ci/run, after the gates): makes the Debian package from the release
# build in build/ (CPack), installs it with apt, and runs the installed binaries from their
# installed paths, outside the checkout, so that a binary or a file the package lacks, or a
# runtime library its Depends line leaves out, fails here rather than on a user's machine.
# docs/install.md. STAGEBENCH_PACKAGE_KEEP=1 leaves the package installed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"

[ -f build/CMakeCache.txt ] || { echo "package-ci: no release build in build/ (run scripts/build.sh)" >&2; exit 1; }
rm -f build/stagebench_*.deb
# The release build is current after scripts/test.sh; cpack's own build step then has nothing to do.
(cd build && cpack -G DEB >/dev/null 2>&1) || (cd build && cpack -G DEB)
debs=(build/stagebench_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "package-ci: expected one build/stagebench_*.deb" >&2; exit 1; }
deb="$root/${debs[0]}"
echo "package-ci: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# The control file: a Depends line naming the libraries the binaries link.
info=$(dpkg-deb -I "$deb")
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
[ -n "$depends" ] || { echo "package-ci: dpkg-deb -I lists no Depends:" >&2; echo "$info" >&2; exit 1; }
for pkg in libc6 libstdc++6; do
  tr ',|' '\n\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep -qxF "$pkg" || { echo "package-ci: Depends lacks $pkg: $depends" >&2; exit 1; }
done
echo "package-ci: Depends: $depends"

# The files: both binaries, the reference scripts and the docs where layout/ looks for them.
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/stagebench ./usr/share/stagebench/scripts/reference/geneformer_torch.py \
  ./usr/share/stagebench/scripts/reference/peer_timing.py ./usr/share/doc/stagebench/README.md \
  ./usr/share/doc/stagebench/docs/viewer.md; do
  grep -qE " $f\$" <<<"$contents" || { echo "package-ci: the package lacks $f" >&2; exit 1; }
done
if grep -q '^STAGEBENCH_GUI:BOOL=ON' build/CMakeCache.txt; then
  grep -qE ' ./usr/bin/stagebench-viewer$' <<<"$contents" || { echo "package-ci: the package lacks the viewer" >&2; exit 1; }
fi

# apt resolves the Depends line as a user's machine would.
work=$(mktemp -d)
cleanup() {
  cd / && rm -rf "$work"
  [ "${STAGEBENCH_PACKAGE_KEEP:-0}" != 0 ] ||
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get remove -y stagebench >/dev/null
}
trap cleanup EXIT
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "$deb" >/dev/null

# From a folder outside the checkout, so nothing is found through the working directory.
cd "$work"
sb=/usr/bin/stagebench
[ "$(command -v stagebench)" = "$sb" ] || echo "package-ci: note: stagebench on PATH is $(command -v stagebench)"
"$sb" probe >/dev/null
"$sb" run gemm --size tiny --no-ceilings --max-time 1 -q -o "$work/x.json"
"$sb" report "$work/x.json" >/dev/null
if [ -x /usr/bin/stagebench-viewer ]; then
  /usr/bin/stagebench-viewer "$work/x.json" --screenshot "$work/ladder.png" >/dev/null 2>&1
  [ -s "$work/ladder.png" ] || { echo "package-ci: the installed viewer wrote no screenshot" >&2; exit 1; }
fi
# peer finds the installed reference scripts: with them found, it goes on to refuse the missing
# result (exit 2); without them it would name the folders it searched instead.
set +e
out=$("$sb" peer geneformer --size tiny -o "$work/absent.json" 2>&1)
rc=$?
set -e
if [ $rc -ne 2 ] || ! grep -q "absent.json does not exist" <<<"$out"; then
  echo "package-ci: peer did not find the installed scripts (exit $rc): $out" >&2
  exit 1
fi
echo "package-ci: the installed probe, run, report, viewer and peer's script lookup passed"
