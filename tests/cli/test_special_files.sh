# SPDX-License-Identifier: Apache-2.0
# Whatever ktune is asked to read must be a regular file: a device, a FIFO or
# a folder named as a plugin, a job, a declared operator's source, a journal,
# a wisdom file or a report input is refused at once, by name, with exit 2
# (or a "not loaded" line naming it where other plugins may still load,
# the named plugin's line first);
# nothing blocks, spins or reads without end. Each command runs under a
# timeout: a hang is a failure (exit 124), not a stuck test.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

K=$KTUNE
REC=$KT_SOURCE_DIR/tests/data/vector_add-synthetic-n16777216.jsonl
JOB=$KT_SOURCE_DIR/configs/vector_add.ini
rm -rf ./* && mkfifo fifo
cp "$KT_SOURCE_DIR"/examples/declared_transpose/transpose.* .

# --- plugins: KTUNE_PLUGIN_PATH naming a device, a FIFO ------------------------
for p in /dev/zero "$PWD/fifo"; do
    for cmd in "list" "tune --check $JOB" "tune $JOB --replay $REC --quiet"; do
        # shellcheck disable=SC2086
        expect_exit 0 env KTUNE_PLUGIN_PATH=$p KTUNE_PLUGIN_TIMEOUT=1 \
            timeout 15 "$K" $cmd
        expect_text "$p: is a"
        expect_text "expected a regular file"
    done
    expect_exit 1 timeout 15 "$K" list --plugin "$p"
    expect_text "$p: is a"
done

# --- a job file that is not a file ------------------------------------------
for j in /dev/zero fifo .; do
    expect_exit 2 timeout 15 "$K" tune --check "$j"
    expect_text "job $j: is a"
done

# --- a declared operator's source that is not a file ---------------------------
for src in fifo . /dev/zero; do
    sed "s|^source = .*|source = $src|" transpose.ini > bad.ini
    expect_exit 2 timeout 15 "$K" tune --check bad.ini
    expect_text "bad.ini:5: [operator] source: cannot read"
    expect_text "expected a regular file"
    expect_exit 1 timeout 15 "$K" list --plugin bad.ini
    expect_text "bad.ini:5: [operator] source"
done

# --- journals, wisdom, results and report inputs -------------------------------
for f in /dev/zero fifo .; do
    expect_exit 2 timeout 15 "$K" tune "$JOB" --replay "$f" --quiet
    expect_exit 2 timeout 15 "$K" tune "$JOB" --replay "$REC" --resume "$f" --quiet
    expect_exit 2 timeout 15 "$K" wisdom show "$f"
    expect_exit 2 timeout 15 "$K" wisdom check "$f"
    expect_exit 2 timeout 15 "$K" wisdom select "$f" vector_add:add "NVIDIA H200" 1
    expect_exit 2 timeout 15 "$K" diff "$f" "$REC"
    expect_exit 2 timeout 15 "$K" report "$f" -o r.html
    expect_text "expected a regular file"
done
# --- a capture manifest and a declared .npy input (issue 53, N21) ------------
python3 "$KT_SOURCE_DIR/tests/capture/make_capture.py" caps/vecadd
rm caps/vecadd/capture.json
mkfifo caps/vecadd/capture.json
expect_exit 2 timeout 15 "$K" capture --check caps/vecadd
expect_text "capture manifest caps/vecadd/capture.json: is a FIFO"
expect_exit 2 timeout 15 "$K" capture --check /dev/zero
expect_text "capture manifest /dev/zero: is a character device"
cp "$KT_SOURCE_DIR"/tests/declared/features/features.* .
mkfifo pipe.npy
ln -s /dev/zero zero.npy
for f in pipe.npy zero.npy; do
    sed "s|from weights.npy|from $f|" features.ini > npy.ini
    expect_exit 2 timeout 15 "$K" tune --check npy.ini
    expect_text "npy.ini:13: [operator] buffer.w"
    expect_text "expected a regular file"
done
# A .npy cut short, or its header alone, is refused by --check too (N25).
head -c 150 "$KT_SOURCE_DIR"/tests/declared/features/weights.npy > cut.npy
sed "s|from weights.npy|from cut.npy|" features.ini > npy.ini
expect_exit 2 timeout 15 "$K" tune --check npy.ini
expect_text "cut short"
head -c 128 "$KT_SOURCE_DIR"/tests/declared/features/weights.npy > cut.npy
expect_exit 2 timeout 15 "$K" tune --check npy.ini
expect_text "cut short"

# --- list --plugin F: F's reason is the first line, not after the listing -----
: > empty.so
"$K" list --plugin empty.so > list.out 2>&1
first=$(head -n 1 list.out)
case $first in
"ktune list: --plugin empty.so: not loaded: "*"empty.so"*) ;;
*) echo "FAIL: list --plugin empty.so: first line is '$first'"
   failures=$((failures + 1)) ;;
esac
finish
