# SPDX-License-Identifier: Apache-2.0
# On a host with two GPUs of one model (skipped, 77, with fewer): the same
# job on 1 and on 2 GPUs gives the same answer or a statistical tie, each
# GPU has its environment record in the journal and measured points, and
# every comparison was made on one GPU. Wall times are printed, not judged
# (performance claims are benchmarks: docs/results).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${gpus:-0}" -ge 2 ] || { echo "fewer than 2 GPUs: skipped"; exit 77; }
rm -f ./*.json ./*.jsonl
cat > job.ini <<'INI'
[job]
operator = vector_add:add
n = 2^26
[strategy]
name = exhaustive
INI

best() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['best']['config'])" "$1"; }
ties() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('\n'.join(t['config'] for t in d.get('tie') or []))" "$1"; }

for n in 1 2; do
    devices=0
    [ $n = 2 ] && devices=0,1
    start=$(date +%s.%N)
    expect_exit 0 "$KTUNE" tune job.ini --devices $devices --quiet \
        --journal "gpus$n.jsonl" --json "gpus$n.json"
    echo "$n GPU(s): $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s, $(best "gpus$n.json")"
done
a=$(best gpus1.json)
b=$(best gpus2.json)
if [ "$a" != "$b" ] && ! ties gpus1.json | grep -qxF "$b" &&
    ! ties gpus2.json | grep -qxF "$a"; then
    echo "FAIL: 2 GPUs answered $b, 1 GPU $a (and neither is tied with the other)"
    failures=$((failures + 1))
fi
python3 - gpus2.jsonl <<'PY' || failures=$((failures + 1))
import json, sys
envs, calls = 1, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("kind") == "environment":
        envs += 1
    if r.get("kind") == "eval":
        calls.setdefault(r["call"], set()).add(r["env"])
used = set().union(*calls.values())
split = [c for c, e in calls.items() if len(e) > 1]
ok = envs == 2 and used == {0, 1} and not split
print("environment records %d, GPUs used %s, calls split across GPUs %d"
      % (envs, sorted(used), len(split)))
sys.exit(0 if ok else 1)
PY
finish
