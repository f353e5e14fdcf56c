#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_layers.sh ROOT: holds every #include under ROOT to the dependency
# rule of docs/hacking.md ("Layers"). Prints one line per violation,
# FILE:LINE: what it includes and what that folder may include, and exits 1
# when there is any.
#
#   folder          may include (project headers, "dir/file.h")
#   core/           core/ (and <ktune/plugin.h>): the pure base
#   declared/       core/ declared/ (and <ktune/plugin.h>): a declaration's
#                   parser, files and fills; no CUDA header, no cuda*() call
#   engine/         core/ declared/ engine/: the CUDA side
#   isolation/      core/ declared/ engine/ isolation/: the child processes
#   metrics/        core/ metrics/, but not metrics/cupti/
#   metrics/cupti/  core/ declared/ engine/ metrics/ metrics/cupti/
#   records/        core/ metrics/ records/ (and <ktune/select.h>), not
#                   metrics/cupti/: the on-disk formats, below the tuner
#   tuner/          core/ metrics/ records/ tuner/, not metrics/cupti/
#   compare/        core/ metrics/ records/ tuner/ compare/, not
#                   metrics/cupti/
#   report/         core/ metrics/ records/ report/, not metrics/cupti/
#   timeline/       core/ timeline/
#   timeline/trace/ nothing of ktune (it is loaded into other programs)
#   app/            anything: it is the top
#   plugins/ examples/  only <ktune/plugin.h> (plugins never link ktune)
#   bench/          anything, like app/: benchmarks sit on top
#   select/         select/ (and <ktune/select.h>): libktune-select stands alone
#   capture/        core/ capture/ (and <ktune/plugin.h>)
#   capture/trace/  nothing of ktune (it is loaded into other programs)
#   libktune/       libktune/ (and <ktune/ktune.h>) and app/embed.h alone:
#                   the public C API runs the CLI's commands (ktune_cmd)
#                   through that one plain-C entry
# and only metrics/cupti/, timeline/trace/ and capture/trace/ include CUPTI
# headers
# (<cupti*.h>; nvperf's <nvperf*.h> and <generated_*> only metrics/cupti/).
# core/, declared/, metrics/, records/, tuner/, compare/ and report/ include
# no CUDA
# header
# (<cuda*.h>, <nvrtc.h>, <cu*/...>), and no file but core/proc.c calls
# fork, exec, waitpid or posix_spawn: the one process module (core/proc.h)
# starts, reaps and describes every child process (the injected
# */trace/ libraries, which link nothing of ktune, start none).
root=${1:?usage: check_layers.sh ROOT}
cd "$root" || exit 2

# One awk pass over every include line of the checked folders.
grep -rnE '^[[:space:]]*#[[:space:]]*include' core declared engine isolation \
    metrics records tuner compare report timeline plugins examples select capture libktune \
    --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
    --include='*.cpp' 2>/dev/null | awk '
BEGIN {
    allow["core"] = "core/ ktune/"
    allow["declared"] = "core/ declared/ ktune/"
    allow["engine"] = "core/ declared/ engine/ ktune/"
    allow["isolation"] = "core/ declared/ engine/ isolation/ ktune/"
    allow["metrics/cupti"] = "core/ declared/ engine/ metrics/ ktune/"
    allow["metrics"] = "core/ metrics/ ktune/"
    allow["records"] = "core/ metrics/ records/ ktune/"
    allow["tuner"] = "core/ metrics/ records/ tuner/ ktune/"
    allow["compare"] = "core/ metrics/ records/ tuner/ compare/ ktune/"
    allow["report"] = "core/ metrics/ records/ report/ ktune/"
    allow["timeline"] = "core/ timeline/ ktune/"
    allow["timeline/trace"] = "(nothing-of-ktune)"
    allow["plugins"] = "ktune/"
    allow["examples"] = "ktune/"
    allow["select"] = "select/ ktune/"
    allow["capture"] = "core/ capture/ ktune/"
    allow["capture/trace"] = "(nothing-of-ktune)"
    allow["libktune"] = "libktune/ ktune/ app/embed.h"
    # The floors that must build and run without the CUDA toolkit.
    cudafree["core"] = cudafree["metrics"] = cudafree["tuner"] = 1
    cudafree["declared"] = cudafree["records"] = 1
    cudafree["compare"] = cudafree["report"] = cudafree["libktune"] = 1
    bad = 0
}
function complain(msg) { print msg; bad++ }
{
    # FILE:LINE:TEXT
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    layer = file; sub(/\/.*/, "", layer)
    if (file ~ /^metrics\/cupti\//) layer = "metrics/cupti"
    if (file ~ /^timeline\/trace\//) layer = "timeline/trace"
    if (file ~ /^capture\/trace\//) layer = "capture/trace"
    target = text
    sub(/^[ \t]*#[ \t]*include[ \t]*[<"]/, "", target)
    sub(/[>"].*/, "", target)
    where = file ":" line ": "
    if (target ~ /^cupti/ && (layer == "timeline/trace" || layer == "capture/trace")) next
    if (target ~ /^(cupti|nvperf|generated_)/) {
        if (layer != "metrics/cupti")
            complain(where "includes <" target ">: only metrics/cupti/ may use CUPTI or nvperf (and timeline/trace/ CUPTI)")
        next
    }
    if (cudafree[layer] && target ~ /^(cuda|nvrtc|cu[a-z]*\/|cub\/|thrust\/)/) {
        complain(where "includes <" target ">: " layer "/ includes no CUDA header (only engine/ and the layers above it)")
        next
    }
    if (index(target, "/") == 0) next            # system or same-folder
    if (target ~ /^(sys|cub|thrust|cuda|linux)\//) next
    if (layer != "metrics/cupti" && target ~ /^metrics\/cupti\//) {
        complain(where "includes \"" target "\": only the app links metrics/cupti/ (" layer "/ may include: " allow[layer] ")")
        next
    }
    n = split(allow[layer], prefixes, " ")
    for (i = 1; i <= n; ++i)
        if (index(target, prefixes[i]) == 1) next
    complain(where "includes \"" target "\": " layer "/ may include only " allow[layer])
}
END {
    if (bad) {
        print bad " include(s) break the dependency rule (docs/hacking.md, Layers)"
        exit 1
    }
    print "includes follow the dependency rule"
}' || bad=1

# The declared floor calls no CUDA runtime either (cudaMalloc, ...): its
# parser compiles through the function it is given (engine/declared_run.h).
calls=$(grep -rnE '(^|[^[:alnum:]_])cuda[A-Z][[:alnum:]_]*[[:space:]]*\(' \
    declared --include='*.c' --include='*.h' 2>/dev/null |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*( |/|$)|//)')
if [ -n "$calls" ]; then
    echo "$calls" | sed 's/$/: declared\/ calls no CUDA runtime (the run part is engine\/declared_run.c)/'
    bad=1
fi
# One module starts processes: fork, exec, wait, waitpid and posix_spawn
# are core/proc.c's alone (comment lines are skipped).
calls=$(grep -rnE '(^|[^.>[:alnum:]_])(fork|vfork|execv|execvp|execve|execl|execlp|execle|wait|waitpid|posix_spawnp?)[[:space:]]*\(' \
    core declared engine isolation metrics records tuner compare report timeline \
    select capture app bench --include='*.c' --include='*.h' --include='*.cu' \
    2>/dev/null | grep -vE '^(core/proc\.c|[^:]*/trace/[^:]*):' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*( |/|$)|//)')
if [ -n "$calls" ]; then
    echo "$calls" | sed 's/$/: starts or waits for a process outside core\/proc.c (the process module, core\/proc.h)/'
    echo "calls that start or wait for processes outside core/proc.c break the dependency rule (docs/hacking.md, Layers)"
    bad=1
fi
# libktune/ starts no process either: its runs are the CLI's commands in
# process (app/embed.h); only the workers isolation/ starts are children.
calls=$(grep -rnE '\<(fork|vfork|execv|execvp|execve|execl|execlp|execle|waitpid|posix_spawnp?)[[:space:]]*\(' \
    libktune --include='*.c' --include='*.h' 2>/dev/null |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$calls" ]; then
    echo "$calls" | sed 's/$/: libktune\/ starts no process (its runs are in process, app\/embed.h)/'
    bad=1
fi
[ "${bad:-0}" -eq 0 ]
