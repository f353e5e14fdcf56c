# SPDX-License-Identifier: Apache-2.0
# Hostile plugins (tests/fixtures/hostile_plugin.c) never take ktune down
# and never make a command a silent success: a plugin that ends the process
# that loads it with exit(0) or _exit(0), crashes or hangs in a constructor,
# or hands out a text without its NUL is one "not loaded" line; one that
# crashes only outside the probe is never loaded into ktune at all; hanging
# plugins are probed together and remembered; shape(), check() and work()
# that fault or hang cost points (tune --replay) or a note (report), never
# the process. No GPU needed.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

H=$KT_FIXTURES/hostile_
export KTUNE_CACHE_DIR=$PWD/cache
rm -rf cache ./*.ini ./*.json ./*.html my_op

# --- load time: a handshake, not an exit status --------------------------------
for c in exit0_entry uexit0_entry exit0_ctor uexit0_ctor; do
    KTUNE_PLUGIN_PATH="${H}$c.so" expect_exit 0 "$KTUNE" list
    expect_text "not loaded: ${H}$c.so: loading it exited with status 0 without saying it loaded"
    expect_text "operator vector_add:add"
done
KTUNE_PLUGIN_PATH="${H}crash_ctor.so" expect_exit 0 "$KTUNE" list
expect_text "${H}crash_ctor.so: loading it killed by signal 11"
# Every command survives it on the search path: new-plugin still writes.
KTUNE_PLUGIN_PATH="${H}exit0_ctor.so" expect_exit 0 "$KTUNE" new-plugin my_op
[ -s my_op/my_op.cu ] || { echo "FAIL: new-plugin wrote nothing"; failures=$((failures + 1)); }
KTUNE_PLUGIN_PATH="${H}exit0_entry.so" expect_exit 2 "$KTUNE" bench nosuch:op
expect_text "not loaded: ${H}exit0_entry.so"

# Texts are read with a bound, in the probe.
for f in summary version; do
    expect_exit 1 "$KTUNE" list --plugin "${H}unterminated_$f.so"
    expect_text "descriptor.$f is not NUL-terminated within 4096 bytes"
done

# Loaded only in children: a plugin that crashes in any process but ktune's
# own children is listed, and ktune never maps it.
expect_exit 0 "$KTUNE" list --plugin "${H}crash_outside_probe.so"
expect_text "operator good:scale"
expect_exit 0 "$KTUNE" list --json --plugin "${H}crash_outside_probe.so"
expect_text '"name": "good"'

# --- hanging plugins: probed together, paid for once -------------------------------
hang="${H}hang_ctor.so:${H}hang_ctor_2.so:$KT_FIXTURES/bad_hang_entry.so"
ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(ms)
KTUNE_PLUGIN_TIMEOUT=2 KTUNE_PLUGIN_PATH=$hang expect_exit 0 "$KTUNE" list
first=$(($(ms) - start))
expect_text "hang_ctor.so: did not finish loading within 2 s"
expect_text "hang_ctor_2.so: did not finish loading within 2 s"
start=$(ms)
KTUNE_PLUGIN_TIMEOUT=2 KTUNE_PLUGIN_PATH=$hang expect_exit 0 "$KTUNE" list
second=$(($(ms) - start))
expect_text "remembered from an earlier probe of this very file"
# Three plugins that hang cost one time limit (2 s), not three (6 s); the
# second run costs none (both bounds are generous for a loaded machine).
[ "$first" -lt 5000 ] ||
    { echo "FAIL: probing three hanging plugins took $first ms"; failures=$((failures + 1)); }
[ "$second" -lt 1500 ] ||
    { echo "FAIL: remembered verdicts took $second ms"; failures=$((failures + 1)); }
# A changed file is probed again.
cp "${H}hang_ctor.so" changed.so
KTUNE_PLUGIN_TIMEOUT=1 expect_exit 1 "$KTUNE" list --plugin changed.so
expect_text "changed.so: did not finish loading within 1 s"
cp "$KT_FIXTURES/good_plugin.so" changed.so
KTUNE_PLUGIN_TIMEOUT=1 expect_exit 0 "$KTUNE" list --plugin changed.so
expect_text "operator good:scale"

# --- pure callbacks run in a child -------------------------------------------------
cat > g.ini <<'INI'
[job]
operator = good:scale
n = 1024
[strategy]
name = exhaustive
INI
GOOD=$KT_SOURCE_DIR/tests/data/good-synthetic.jsonl
# A check() or shape() that faults or hangs is named, as work()'s is
# (issue 30 item 9), in the quiet line and in the summary alike.
for c in shape_fault:"killed by signal 11" check_fault:"killed by signal 11" \
    shape_hang:"did not return within 1 s"; do
    KTUNE_PLUGIN_TIMEOUT=1 expect_exit 1 "$KTUNE" tune g.ini --replay "$GOOD" \
        --plugin "${H}${c%%:*}.so" --quiet
    expect_text "no configuration of good:scale verified and timed"
    expect_text "the plugin failed on the host: variant 'tiled': "
    expect_text "check()/shape() ${c#*:}"
done
KTUNE_PLUGIN_TIMEOUT=1 expect_exit 1 "$KTUNE" tune g.ini --replay "$GOOD" \
    --plugin "${H}shape_fault.so" --journal none
expect_text "112 point(s) where the plugin's check() or shape() failed on the host, never run"
KTUNE_PLUGIN_TIMEOUT=1 expect_exit 1 "$KTUNE" tune g.ini --replay "$GOOD" \
    --plugin "${H}work_fault.so"
expect_text "work() killed by signal 11"
# report: the roofline needs work(); a faulting one is a note, not a crash.
"$KTUNE" tune g.ini --replay "$GOOD" --plugin "$KT_FIXTURES/good_plugin.so" \
    --quiet --json run.json --journal none >/dev/null 2>&1 ||
    { echo "FAIL: the replayed run failed"; failures=$((failures + 1)); }
expect_exit 0 "$KTUNE" report run.json --no-journal --plugin "${H}work_fault.so" -o r.html
expect_text "could not compute the work"
finish
