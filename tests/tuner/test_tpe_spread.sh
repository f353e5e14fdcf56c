# SPDX-License-Identifier: Apache-2.0
# tpe's spread and design options (the start auto uses). On the T1-like
# recording (4,362 feasible points, 7 parameters) tpe with 10 random
# points is replayed for 10 evaluations with seeds 1-8 three ways: spread
# 1 (uniform), spread 30 with design 0 (maximin: each point the farthest
# of 30 draws from those visited) and spread 30 with design 1 (maximum
# projection). In the mean over the seeds, (1) the smallest distance
# between two evaluated points (each parameter's value position over its
# count less one, values sorted) must be larger with spread 30 than
# uniform: the spread covers the space; (2) the share of each parameter's
# values the evaluated points hold (mean over the parameters) must be
# larger with design 1 than design 0: maximin sends points to the corners,
# the ends of each range, maximum projection spreads each parameter's own
# values. About 4 s.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
rm -rf runs && mkdir runs
for way in 1-0 30-0 30-1; do
    for seed in 1 2 3 4 5 6 7 8; do
        expect_exit 0 "$KTUNE" tune "$DATA/t1like/t1like.ini" --set job.n=4096 \
            --replay "$DATA/t1like-synthetic-n4096.jsonl.gz" --quiet \
            --set strategy.name=tpe --set strategy.spread=${way%-*} \
            --set strategy.design=${way#*-} --set strategy.seed=$seed \
            --set strategy.max_evals=10 --set strategy.max_seconds=0 \
            --journal "runs/$way-$seed.jsonl"
    done
done
python3 - "$DATA/t1like-synthetic-n4096.meta.json" <<'PY' || failures=$((failures + 1))
import glob, itertools, json, statistics, sys
params = json.load(open(sys.argv[1]))["space"]["variants"][0]["params"]
pos = {k: {v: i / max(1, len(vs) - 1) for i, v in enumerate(sorted(vs))}
       for k, vs in params.items()}
def points(path):
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "eval" and r["purpose"] == "measure":
            yield r["point"]["params"]
def min_gap(path):
    pts = [[pos[k][v] for k, v in p.items()] for p in points(path)]
    return min(sum((a - b) ** 2 for a, b in zip(p, q))
               for p, q in itertools.combinations(pts, 2))
def coverage(path):
    pts = list(points(path))
    return statistics.mean(len({p[k] for p in pts}) / len(vs)
                           for k, vs in params.items())
def mean(f, way):
    return statistics.mean(f(p) for p in glob.glob(f"runs/{way}-*.jsonl"))
gap = {w: mean(min_gap, w) for w in ("1-0", "30-0")}
cov = {w: mean(coverage, w) for w in ("30-0", "30-1")}
print("smallest squared distance between evaluated points (spread-design):", gap)
print("share of each parameter's values evaluated (spread-design):", cov)
sys.exit(0 if gap["30-0"] > gap["1-0"] and cov["30-1"] > cov["30-0"] else 1)
PY
finish
