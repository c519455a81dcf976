#!/bin/sh
# `cmake --install` puts smrun, smcc, the library and the headers under a
# prefix, and the installed smcc/smrun build and run a program from there.
set -eu
builddir=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$builddir" --prefix "$tmp/prefix" >/dev/null
for f in bin/smrun bin/smcc include/smartmap.h; do
  [ -e "$tmp/prefix/$f" ] || { echo "install lacks $f"; exit 1; }
done
ls "$tmp"/prefix/lib*/libsmartmap.so* >/dev/null 2>&1 || ls "$tmp"/prefix/lib/*/libsmartmap.so* >/dev/null
"$tmp/prefix/bin/smcc" -show -o app app.c | grep -q -- "-I$tmp/prefix/include" || { echo "smcc -show: wrong include path"; exit 1; }
"$tmp/prefix/bin/smcc" -o "$tmp/hello" "$src"
"$tmp/prefix/bin/smrun" -n 3 "$tmp/hello" | grep -c '^hello from rank' | grep -qx 3
"$tmp/prefix/bin/smrun" -n 2 --preload "$tmp/hello" >/dev/null
echo "install: ok"
