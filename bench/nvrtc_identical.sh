#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Whether NVRTC's code is the same where ktune says it is, from the dumps
# of bench_compile_pool --dump (each kernel compiled alone, sharing off):
#   nvrtc_identical.sh DIR         kernels of one front-end IR hash (one code
#                                  key, engine/nvrtc_code.c) must have
#                                  byte-identical cubins
#   nvrtc_identical.sh DIR OTHER   kernel N of both (the same kernels, other
#                                  NVRTC options): cubin bytes, and the SASS
#                                  (cuobjdump -sass, when on PATH) compared
# One line per group or pair, then a total; exits 1 on any difference
# the check is about (IR groups: bytes; pairs: SASS, or bytes without
# cuobjdump).
set -u
dir=${1:?usage: nvrtc_identical.sh DIR [OTHER]}
other=${2:-}
sass() { cuobjdump -sass "$1" 2>/dev/null | grep -v -E '^\s*(Fatbin|code for|\.\.\.|$)|Function :|arch = |host = |compile_size|identifier = ' ; }
status=0
if [ -z "$other" ]; then
    groups=0 members=0 same=0
    for ir in $(awk '{print $2}' "$dir/index.txt" | sort | uniq -d | grep -v '^ir=-$'); do
        ids=$(awk -v ir="$ir" '$2 == ir {print $1}' "$dir/index.txt")
        first=""
        n=0 ok=0
        for i in $ids; do
            n=$((n + 1))
            if [ -z "$first" ]; then first=$i; ok=1; continue; fi
            if cmp -s "$dir/$first.cubin" "$dir/$i.cubin" ||
                { [ ! -e "$dir/$first.cubin" ] && [ ! -e "$dir/$i.cubin" ]; }; then
                ok=$((ok + 1))
            else
                status=1
            fi
        done
        echo "$ir kernels $(echo $ids | tr ' ' ,) identical $ok/$n"
        groups=$((groups + 1)); members=$((members + n)); same=$((same + ok))
    done
    echo "total: $groups groups of one IR hash, $members kernels, $same identical to their group's first"
    exit $status
fi
n=0 bytes=0 sasseq=0 tool=0
command -v cuobjdump >/dev/null && tool=1
for f in "$dir"/*.cubin; do
    i=$(basename "$f" .cubin)
    g="$other/$i.cubin"
    [ -e "$g" ] || { echo "$i: missing in $other"; status=1; continue; }
    n=$((n + 1))
    b=0 s=-
    cmp -s "$f" "$g" && b=1
    bytes=$((bytes + b))
    if [ $tool = 1 ]; then
        if [ "$(sass "$f")" = "$(sass "$g")" ]; then s=1; sasseq=$((sasseq + 1)); else s=0; status=1; fi
    elif [ $b = 0 ]; then
        status=1
    fi
    echo "$i bytes_identical=$b sass_identical=$s"
done
echo "total: $n kernels, cubin bytes identical $bytes, SASS identical $([ $tool = 1 ] && echo $sasseq || echo 'not checked (no cuobjdump)')"
exit $status
