# SPDX-License-Identifier: Apache-2.0
# `ktune sanitize` without a GPU, against stand-ins for compute-sanitizer:
# it runs one bench per variant and tool, reads both summary formats
# (memcheck's ERROR SUMMARY, racecheck's RACECHECK SUMMARY), and exits 1 when
# any run found something or failed.
. "$(dirname "$0")/lib.sh"

cat > clean.sh <<'SH'
#!/bin/sh
echo "========= COMPUTE-SANITIZER"
echo "========= ERROR SUMMARY: 0 errors"
SH
cat > racy.sh <<'SH'
#!/bin/sh
echo "========= Warning: Race reported between Write access at k+0x10"
echo "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)"
exit 99
SH
cat > broken.sh <<'SH'
#!/bin/sh
echo "ktune: no CUDA device found" >&2
exit 1
SH
cat > hangs.sh <<'SH'
#!/bin/sh
sleep 600 &
wait
SH
# Prints the arguments it was given, as the sanitizer would run them.
cat > args.sh <<'SH'
#!/bin/sh
echo "ARGS: $*"
echo "========= ERROR SUMMARY: 0 errors"
SH
chmod +x clean.sh racy.sh broken.sh hangs.sh args.sh

expect_exit 0 "$KTUNE" sanitize vector_add:add --sanitizer ./clean.sh \
    --tools memcheck
expect_text "coalesced        memcheck          0"
expect_text "vec4             memcheck          0"
expect_exit 1 "$KTUNE" sanitize vector_add:add --sanitizer ./racy.sh \
    --tools racecheck
expect_text "strided          racecheck         3  Warning: Race reported"
expect_exit 1 "$KTUNE" sanitize vector_add:add --sanitizer ./broken.sh \
    --tools memcheck
expect_text "the run exited with status 1"
expect_exit 2 "$KTUNE" sanitize vector_add:add --tools memchek
expect_text "unknown tool 'memchek'"
expect_exit 2 "$KTUNE" sanitize
expect_exit 1 "$KTUNE" sanitize vector_add:add --sanitizer /nonexistent/cs
expect_text "compute-sanitizer not found at /nonexistent/cs"

# A run that never ends is stopped, with everything it started, and costs
# its line.
start=$(date +%s)
expect_exit 1 "$KTUNE" sanitize vector_add:add --sanitizer ./hangs.sh \
    --tools memcheck --timeout 1
expect_text "coalesced        memcheck         -1  the run did not finish within 1 s; stopped"
[ $(($(date +%s) - start)) -lt 30 ] ||
    { echo "FAIL: the timeout did not stop the runs"; failures=$((failures + 1)); }
pgrep -f "sleep 600" >/dev/null && { echo "FAIL: a stopped run left a process"; failures=$((failures + 1)); }

# An out-of-tree plugin named by a relative path reaches the bench as an
# absolute one; the bench runs the plugin in-process under the sanitizer.
cp "$KT_FIXTURES/good_plugin.so" ./local_plugin.so
expect_exit 0 "$KTUNE" sanitize good:scale --plugin local_plugin.so \
    --sanitizer ./args.sh --tools memcheck --log-dir logs
expect_text "tiled            memcheck          0"
grep -q -- "--plugin $PWD/local_plugin.so" logs/good.tiled.memcheck.log ||
    { echo "FAIL: the plugin path was not made absolute"; failures=$((failures + 1)); }
grep -q -- "--in-process" logs/good.tiled.memcheck.log ||
    { echo "FAIL: the bench was not run in-process"; failures=$((failures + 1)); }

# Input is checked before anything runs or is looked for (exit 2).
expect_exit 2 "$KTUNE" sanitize vector_add:add --size n=0 \
    --sanitizer /nonexistent/cs
expect_text "--size: n: expected 1 to 8589934592, found 0"
touch notadir
expect_exit 2 "$KTUNE" sanitize vector_add:add --log-dir notadir \
    --sanitizer ./clean.sh
expect_text "--log-dir notadir: not a writable folder"
expect_exit 2 "$KTUNE" sanitize vector_add:add --plugin missing.so \
    --sanitizer ./clean.sh
expect_text "--plugin missing.so: No such file or directory"
expect_exit 2 "$KTUNE" sanitize vector_add:add --timeout 0
finish
