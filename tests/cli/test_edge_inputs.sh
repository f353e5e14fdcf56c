# SPDX-License-Identifier: Apache-2.0
# Rough edges of issue 30 item 11: a journal that cannot be written (a
# file-size limit, as a full disk) is said once; report reads gzip files as
# tune --replay does; worker --fd of no open descriptor is a usage error
# with a message; a job with a broken section header, an unclosed quote or
# a final continuation backslash is refused at its line (exit 2).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

JOB=$KT_SOURCE_DIR/configs/vector_add.ini
R=$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl
SUM=$KT_SOURCE_DIR/tests/report/data/vector_add-h200-main.summary.json
rm -f ./*.jsonl ./*.gz ./*.html ./*.ini ./*.err

# --- a journal on a full disk: one message, exit 1 -------------------------
bash -c "trap '' XFSZ; ulimit -f 8; exec '$KTUNE' tune '$JOB' --replay '$R' --quiet --journal full.jsonl" \
    2>full.err
rc=$?
[ $rc = 1 ] || { echo "FAIL: a journal past the size limit exited $rc"; failures=$((failures + 1)); }
n=$(grep -c "write failed" full.err)
[ "$n" = 1 ] || {
    echo "FAIL: the journal's write error printed $n times:"
    sed 's/^/    /' full.err
    failures=$((failures + 1))
}

# --- report reads .gz like tune --replay --------------------------------------
gzip -c "$SUM" >s.json.gz
expect_exit 0 "$KTUNE" report s.json.gz --no-journal -o s.html
expect_text "report written to s.html"
grep -q "<svg" s.html || { echo "FAIL: the report of a .gz summary has no chart"; failures=$((failures + 1)); }
gzip -c "$R" >j.jsonl.gz
expect_exit 0 "$KTUNE" report j.jsonl.gz -o j.html
printf 'garbage' | gzip -c >bad.json.gz
expect_exit 2 "$KTUNE" report bad.json.gz -o b.html
expect_text "bad.json.gz:1: not JSON"

# a gzip journal whose check sum is wrong: a read error naming zlib's reason
# (the reason was read after zlib freed it: ASan, the bad-input generator)
python3 -c 'import gzip,sys; b=bytearray(gzip.compress(open(sys.argv[1],"rb").read(), mtime=0)); b[-8]^=0xff; open("crc.jsonl.gz","wb").write(b)' "$R"
expect_exit 2 "$KTUNE" tune "$JOB" --replay crc.jsonl.gz --quiet --journal none
expect_text "crc.jsonl.gz: read error: "

# --- worker --fd of nothing ---------------------------------------------------
expect_exit 2 "$KTUNE" worker --fd 1099511627776
expect_text "--fd 1099511627776: not an open descriptor"
expect_exit 2 "$KTUNE" worker --fd 987
expect_text "--fd 987: not an open descriptor"

# --- job syntax --------------------------------------------------------------
printf '[job]]\noperator = vector_add:add\n' >brk.ini
expect_exit 2 "$KTUNE" tune brk.ini --check
expect_text "brk.ini:1:"
printf '[job]\noperator = "vector_add:add\n' >quote.ini
expect_exit 2 "$KTUNE" tune quote.ini --check
expect_text "quote.ini:2:"
{ cat "$JOB"; printf 'x = \\'; } >bs.ini
expect_exit 2 "$KTUNE" tune bs.ini --check
expect_text "bs.ini:"
rm -f ./*.jsonl ./*.gz ./*.html ./*.ini ./*.err
finish
