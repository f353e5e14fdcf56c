# SPDX-License-Identifier: Apache-2.0
# tpe's spread option (the start auto uses): the random points before the
# model, each the farthest of `spread` uniform draws from those visited,
# cover the space better than uniform draws. On the T1-like recording
# (4,362 feasible points, 7 parameters) tpe with 10 random points is
# replayed for 10 evaluations with seeds 1-8, spread 1 (uniform) and 30;
# the smallest distance between two evaluated points (each parameter's
# value position over its count less one, values sorted) must be larger
# with spread 30 in the mean over the seeds. About 2 s.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
rm -rf runs && mkdir runs
for spread in 1 30; do
    for seed in 1 2 3 4 5 6 7 8; do
        expect_exit 0 "$KTUNE" tune "$DATA/t1like/t1like.ini" --set job.n=4096 \
            --replay "$DATA/t1like-synthetic-n4096.jsonl.gz" --quiet \
            --set strategy.name=tpe --set strategy.spread=$spread \
            --set strategy.seed=$seed --set strategy.max_evals=10 \
            --set strategy.max_seconds=0 --journal "runs/$spread-$seed.jsonl"
    done
done
python3 - "$DATA/t1like-synthetic-n4096.meta.json" <<'PY' || failures=$((failures + 1))
import glob, itertools, json, statistics, sys
params = json.load(open(sys.argv[1]))["space"]["variants"][0]["params"]
pos = {k: {v: i / max(1, len(vs) - 1) for i, v in enumerate(sorted(vs))}
       for k, vs in params.items()}
def min_gap(path):
    pts = []
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "eval" and r["purpose"] == "measure":
            pts.append([pos[k][v] for k, v in r["point"]["params"].items()])
    return min(sum((a - b) ** 2 for a, b in zip(p, q))
               for p, q in itertools.combinations(pts, 2))
mean = {s: statistics.mean(min_gap(f) for f in glob.glob(f"runs/{s}-*.jsonl"))
        for s in (1, 30)}
print("smallest squared distance between evaluated points, mean over seeds:",
      mean)
sys.exit(0 if mean[30] > mean[1] else 1)
PY
finish
