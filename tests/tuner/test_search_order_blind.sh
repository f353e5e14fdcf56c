# SPDX-License-Identifier: Apache-2.0
# No strategy depends on the order a space lists its values (issue 52):
# a Kernel Tuner cache file (made here: five parameters, one of them
# labels, 720 points with a rugged time landscape and a few failures, no
# declared default) is replayed by every strategy with seed 1 and a budget
# of 60 evaluations, then again with every value list reversed and
# shuffled with two seeds; the configurations each strategy evaluated must
# be the same set every time. The start is drawn (the summary says so),
# never the first listed value, unless the job names one ([strategy]
# start), which is evaluated first. The check itself is shown to fail: the
# order the evaluations came in, compared with the listing's own order
# under exhaustive, differs between the listings.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

rm -rf runs && mkdir runs

python3 - <<'PY'
import json, random, hashlib, math
params = {"bx": [16, 32, 64, 128, 256], "by": [1, 2, 3, 4, 8, 16],
          "tile": [1, 2, 3, 4], "mode": ["direct", "shared", "texture"],
          "unroll": [0, 1]}
keys = list(params)

def h(*xs):
    return int(hashlib.sha256(repr(xs).encode()).hexdigest()[:8], 16) / 2**32

cache = {}
import itertools
for combo in itertools.product(*params.values()):
    c = dict(zip(keys, combo))
    k = ",".join(str(v) for v in combo)
    e = dict(c)
    if h("fail", combo) < 0.05:
        e.update(time=1e20, times=[], compile_time=0.0,
                 verification_time=0, benchmark_time=0.0, strategy_time=0,
                 framework_time=0.0, timestamp="2026-12-07T00:00:00Z")
        e["time"] = "RuntimeFailedConfig"
    else:
        t = (1 + abs(math.log2(c["bx"] * c["by"] / 256))
             + 0.3 * abs(c["tile"] - 2) + {"direct": 0.4, "shared": 0.0,
                                           "texture": 0.2}[c["mode"]]
             + 0.1 * c["unroll"] + 2.0 * h("t", combo))
        e.update(time=t, times=[t] * 8, compile_time=50.0,
                 verification_time=1.0, benchmark_time=8 * t,
                 strategy_time=0, framework_time=1.0,
                 timestamp="2026-12-07T00:00:00Z")
    cache[k] = e

def write(name, order):
    tp = {}
    for p in keys:
        v = list(params[p])
        if order == "reversed":
            v.reverse()
        elif order.startswith("shuffle"):
            random.Random(order + p).shuffle(v)
        tp[p] = v
    doc = {"device_name": "synthetic", "kernel_name": "synthetic",
           "problem_size": [1024], "tune_params_keys": keys,
           "tune_params": tp, "objective": "time", "cache": cache}
    json.dump(doc, open(f"runs/{name}.json", "w"))

for o in ["original", "reversed", "shuffle1", "shuffle2"]:
    write(o, o)
PY

# The configurations a T4 file lists, one per line, in evaluation order.
configs() {
    python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(json.dumps(r["configuration"], sort_keys=True))
PY
}

strategies=$("$KTUNE" tune --help 2>&1 | python3 -c '
import re, sys
text = sys.stdin.read()
names = re.findall(r"^\s{2,}([a-z_]+)\s{2,}", text.split("strategies", 1)[-1], re.M)
print(" ".join(n for n in names))')
[ -n "$strategies" ] || strategies="auto one_at_a_time exhaustive random annealing genetic coordinate tpe"

for s in $strategies; do
    for o in original reversed shuffle1 shuffle2; do
        expect_exit 0 "$KTUNE" tune --replay "runs/$o.json" \
            --set strategy.name="$s" --set strategy.seed=1 \
            --set strategy.max_evals=60 --t4 "runs/$s-$o.t4.json" \
            --json "runs/$s-$o.sum.json"
        configs "runs/$s-$o.t4.json" | sort >"runs/$s-$o.set"
    done
    [ -s "runs/$s-original.set" ] || fail "$s: evaluated nothing"
    for o in reversed shuffle1 shuffle2; do
        cmp -s "runs/$s-original.set" "runs/$s-$o.set" ||
            fail "$s: the listing $o changed which points were evaluated"
    done
    # A search with a start says where it came from: drawn, not listed.
    start=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["strategy"].get("start",""))' \
        "runs/$s-original.sum.json")
    case $s in
    exhaustive | random) ;;
    *) case $start in
        drawn*) ;;
        *) fail "$s: start '$start', expected a drawn one" ;;
        esac ;;
    esac
done

# A start someone names ([strategy] start: a benchmark's declared
# defaults, which a cache file does not carry) is evaluated first, is
# labelled as named, and keeps the search order-blind.
named="bx=64,by=4,tile=2,mode=shared,unroll=0"
for s in $strategies; do
    case $s in exhaustive | random) continue ;; esac
    for o in original reversed; do
        expect_exit 0 "$KTUNE" tune --replay "runs/$o.json" \
            --set strategy.name="$s" --set strategy.seed=1 \
            --set strategy.max_evals=30 --set strategy.start="$named" \
            --t4 "runs/$s-$o-named.t4.json" --json "runs/$s-$o-named.sum.json"
        configs "runs/$s-$o-named.t4.json" | sort >"runs/$s-$o-named.set"
    done
    cmp -s "runs/$s-original-named.set" "runs/$s-reversed-named.set" ||
        fail "$s: with a named start, the listing changed the points"
    first=$(configs "runs/$s-original-named.t4.json" | sed -n 1p)
    [ "$first" = '{"bx": 64, "by": 4, "mode": "shared", "tile": 2, "unroll": 0}' ] ||
        fail "$s: first evaluated $first, not the named start"
    start=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["strategy"].get("start",""))' \
        "runs/$s-original-named.sum.json")
    [ "$start" = "named in [strategy] start" ] ||
        fail "$s: start '$start', expected the named one"
done

# The check can fail: the listing's own order (exhaustive over the
# listing, as before issue 52) differs between a listing and its reverse.
python3 - <<'PY' || fail "the listings did not differ in their own order"
import itertools, json
a = json.load(open("runs/original.json"))["tune_params"]
b = json.load(open("runs/reversed.json"))["tune_params"]
first = lambda tp: [list(c) for c in itertools.islice(itertools.product(*tp.values()), 60)]
assert sorted(map(str, first(a))) != sorted(map(str, first(b)))
PY

finish
