#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/compat/newer-b4.sh CACHE: a b4 newer than Debian 12's 0.12, for the
# tests of b4's per-patch check commands (b4.prep-perpatch-check-cmd and
# b4.am-perpatch-check-cmd came with b4 0.14).  b4 is pure Python and runs
# on Debian 12's Python 3.11 with Debian 12's python3-requests, -dkim,
# -dnspython, -patatt and git-filter-repo; only its own package is newer.
#
# Once per cache, and only when missing: Debian 13's (trixie's) b4 package
# is downloaded with apt-get through a private sources list, lists and cache
# (the system's apt setup is neither read nor written) and unpacked with
# dpkg -x.  Prints the directory to put on PYTHONPATH.
#
# Exit status: 0 with the directory printed; 2 with the reason on stderr.
set -euo pipefail

die() {
	echo "newer-b4: $*" >&2
	exit 2
}

[ $# -eq 1 ] || die "usage: $0 CACHE-DIR"
CACHE=$1/b4-trixie
mkdir -p "$CACHE"
exec 9> "$CACHE/lock"
flock 9

PYDIR=$CACHE/root/usr/lib/python3/dist-packages
if [ ! -f "$CACHE/.complete" ]; then
	apt=$CACHE/apt
	rm -rf "$apt" "$CACHE/root" "$CACHE/download"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$CACHE/download"
	cat > "$apt/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	opts=(-q -o "Dir::Etc::SourceList=$apt/trixie.sources" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Dir::State::status=/dev/null
		-o APT::Architecture=amd64)
	# As root apt fetches as _apt, who cannot write into root's cache dir.
	[ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
	echo "newer-b4: fetching Debian 13's b4 package (apt-get download b4)" >&2
	apt-get "${opts[@]}" update > "$apt/update.log" 2>&1 ||
		{ cat "$apt/update.log" >&2; die "apt-get update (trixie) failed"; }
	(cd "$CACHE/download" && apt-get "${opts[@]}" download b4) > "$apt/download.log" 2>&1 ||
		{ cat "$apt/download.log" >&2; die "apt-get download b4 failed"; }
	deb=$(ls "$CACHE"/download/b4_*_all.deb)
	dpkg -x "$deb" "$CACHE/root"
	[ -f "$PYDIR/b4/command.py" ] || die "no b4/command.py in $deb"
	# The lists are big and not needed again.
	rm -rf "$apt"
	touch "$CACHE/.complete"
fi
echo "$PYDIR"
