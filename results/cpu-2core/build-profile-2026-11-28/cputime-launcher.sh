#!/bin/bash
# Records the user+sys CPU seconds of each compile/link: $out is the -o argument.
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
exec /usr/bin/time -a -o /tmp/cpu-times.txt -f "%U %S $out" "$@"
