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
chmod +x clean.sh racy.sh broken.sh

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
finish
