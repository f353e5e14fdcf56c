# SPDX-License-Identifier: Apache-2.0
"""Bad-input generator: more than a thousand inputs no user should be able
to crash ktune with, over every command's options, job files, declarations,
journals (--replay and --resume, plain and gzip), wisdom files, diff and
report inputs (plain and gzip), help and worker, and every documented
environment variable.

Each case runs ktune under a time limit in a folder of its own. A case
fails when ktune is killed by a signal, exits 124/128+ (a hang or a crash),
prints a sanitizer report (AddressSanitizer, LeakSanitizer, UBSan), or
exits 0 on an input that is nonsense by construction ("nonzero" cases; the
random byte mutations are "any": they may happen to stay valid).

usage: bad_inputs.py KTUNE SOURCE_DIR [--seed N] [--jobs N]
"""
import concurrent.futures
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

TIME_LIMIT_S = 30
SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
             "UndefinedBehaviorSanitizer")

GARBAGE = ["", "abc", "-1", "2^64", "1e999", "nan", "((", "0x", "--",
           "\x1b[2J\x1b]0;x\x07", "1..", "'", "x" * 5000, "\\"]
# Values that are nonsense for every key of a job file (numbers, lists,
# names alike); "" and a bare '\\' are left to the "any" cases.
JOB_NONSENSE = ["abc", "-1x", "2^640", "1e999", "nan", "((", "0x",
                "\x1b[2J", "1..", "'", "x" * 5000]
EXPR_NONSENSE = ["(", "1 +", "bx by", "1 / 0", "2^70 * 2^70", "nosuch",
                 "\x1b]0;x\x07", "ceil_div(1)", "max()"]
NUM_NONSENSE = [-1, -1e308, 1e308, 5e-324, "x", None, [], {}, True, 2 ** 40]


class Case:
    def __init__(self, name, argv, expect="nonzero", files=None, env=None):
        self.name, self.argv, self.expect = name, argv, expect
        self.files, self.env = files or {}, env or {}


def dump_lines(recs):
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs)


def set_path(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def byte_mutations(rng, text, n):
    """n random damages of text: flipped, cut, doubled or inserted bytes."""
    data = text.encode() if isinstance(text, str) else text
    out = []
    for _ in range(n):
        b = bytearray(data)
        how = rng.randrange(5)
        at = rng.randrange(max(len(b), 1))
        if how == 0:
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(b))
                b[i] = rng.randrange(256)
        elif how == 1:
            b = b[:at]
        elif how == 2:
            b[at:at] = b[at:at + rng.randint(1, 400)]
        elif how == 3:
            b[at:at] = bytes(rng.choice([b"\x00", b"\xff\xfe", b"{", b"\n",
                                         b"[", b"\"", b"=", b"\x1b[2J"]))
        else:
            lines = bytes(b).split(b"\n")
            rng.shuffle(lines)
            b = bytearray(b"\n".join(lines))
        out.append(bytes(b))
    return out


def job_cases(src, rng):
    text = open(os.path.join(src, "configs/vector_add.ini")).read()
    lines = text.split("\n")
    cases = []
    for i, line in enumerate(lines):
        if "=" not in line or line.startswith(";") or "journal" in line:
            continue
        key = line.split("=")[0].strip()
        for g in JOB_NONSENSE:
            mutated = lines[:]
            mutated[i] = key + " = " + g
            cases.append(Case("job %s=%r" % (key, g[:20]),
                              ["tune", "job.ini", "--check"],
                              files={"job.ini": "\n".join(mutated)}))
    structural = ["[job]]\n", "[nosuch]\nx = 1\n", "x = 1\n" + text,
                  text + "\n[job]\nn = 1\n", text + "\nn = 3\n",
                  text.replace("[space]", "[space"), text + "\nx = \\",
                  text.replace("operator = vector_add:add",
                               "operator = \"vector_add:add"),
                  "[job]\noperator = nosuch:op\n", "\x00\x01\x02",
                  "[job]\n" + "n = 1, " * 20000 + "\n",
                  "".join("[s%d]\n" % i for i in range(20000))]
    for k, t in enumerate(structural):
        cases.append(Case("job structural %d" % k,
                          ["tune", "job.ini", "--check"],
                          files={"job.ini": t}))
    for k, b in enumerate(byte_mutations(rng, text, 80)):
        cases.append(Case("job bytes %d" % k, ["tune", "job.ini", "--check"],
                          expect="any", files={"job.ini": b}))
    return cases


def declaration_cases(src, rng):
    d = os.path.join(src, "examples/declared_transpose")
    ini = open(os.path.join(d, "transpose.ini")).read()
    cu = open(os.path.join(d, "transpose.cu")).read()
    lines = ini.split("\n")
    keys = ("block", "grid", "require", "buffer.x", "param.bx", "sizes",
            "args", "kernel")
    cases = []
    for i, line in enumerate(lines):
        key = line.split("=")[0].strip()
        if key not in keys:
            continue
        for g in EXPR_NONSENSE:
            mutated = lines[:]
            if key == "buffer.x":
                mutated[i] = "buffer.x = input f32[%s]" % g
            else:
                mutated[i] = key + " = " + g
            cases.append(Case("decl %s=%r" % (key, g[:20]),
                              ["tune", "t.ini", "--check"],
                              files={"t.ini": "\n".join(mutated),
                                     "transpose.cu": cu}))
    extra = [("source = .", "source = transpose.cu"),
             ("source = nosuch.cu", "source = transpose.cu"),
             ("name = a/b", "name = transpose"),
             ("check_arch = compute_9999\nname = transpose",
              "name = transpose"),
             ("options = -o /tmp/x\nname = transpose", "name = transpose"),
             ("[variant.naive]\n[variant.naive]", "[variant.naive]"),
             ("block = 0, by", "block = bx, by"),
             ("block = 0 - 32, by", "block = bx, by"),
             # A built-in plugin's name: the declaration takes its place.
             ("name = vector_add", "name = transpose")]
    for k, (new, old) in enumerate(extra):
        # Two headers of one section read as one, and a built-in plugin's
        # name taken: not nonsense.
        expect = "any" if new.startswith("[variant") or \
            new == "name = vector_add" else "nonzero"
        cases.append(Case("decl extra %d" % k, ["tune", "t.ini", "--check"],
                          expect,
                          files={"t.ini": ini.replace(old, new, 1),
                                 "transpose.cu": cu}))
    for k, b in enumerate(byte_mutations(rng, ini, 40)):
        cases.append(Case("decl bytes %d" % k, ["list", "--plugin", "t.ini"],
                          expect="any",
                          files={"t.ini": b, "transpose.cu": cu}))
    return cases


def journal_cases(src, rng):
    rec = os.path.join(src, "tests/data/vector_add-synthetic-n1048576.jsonl")
    recs = [json.loads(l) for l in open(rec)]
    first_eval = next(i for i, r in enumerate(recs) if r.get("kind") == "eval")
    eval_paths = [("env",), ("elapsed_s",), ("call",), ("slot",), ("of",),
                  ("shape", "grid", 0), ("shape", "block", 0),
                  ("timing", "samples_us", 0), ("timing", "kernel", "median"),
                  ("point", "params", "block"), ("point", "variant"),
                  ("status",), ("point",)]
    header_paths = [("kind",), ("format",), ("seed",), ("sizes", "n"),
                    ("operator",), ("environment", "device", "sm_count"),
                    ("environment", "device", "limits",
                     "max_threads_per_block"),
                    ("environment", "calibration", "copy_gbs")]
    job = "[job]\noperator = vector_add:add\nn = 2^20\n" \
          "[strategy]\nname = exhaustive\n"
    cases = []

    def add(name, mutated, expect="nonzero"):
        text = dump_lines(mutated)
        cases.append(Case("journal --replay " + name,
                          ["tune", "job.ini", "--replay", "j.jsonl",
                           "--quiet"], expect,
                          files={"job.ini": job, "j.jsonl": text}))
        cases.append(Case("journal --resume " + name,
                          ["tune", "job.ini", "--replay", rec, "--journal",
                           "j.jsonl", "--resume", "--quiet"], expect,
                          files={"job.ini": job, "j.jsonl": text}))

    for path in eval_paths:
        for v in NUM_NONSENSE:
            if path == ("point", "variant") and v is None:
                continue
            # A clock just after the start; a discarded sample (null).
            if (path == ("elapsed_s",) and v == 5e-324) or \
                    (path[-1] == 0 and path[1] == "samples_us" and v is None):
                continue
            m = copy.deepcopy(recs)
            if path[-1] == "block" and path[0] == "point" and v in (True,):
                continue
            set_path(m[first_eval], path, v)
            if path in (("slot",), ("of",)) and v in (True,):
                continue
            add("eval %s=%r" % (".".join(map(str, path)), v), m)
    for path in header_paths:
        for v in ("x", -5, None, 1e308, [], 0):
            m = copy.deepcopy(recs)
            try:
                set_path(m[0], path, v)
            except (KeyError, IndexError, TypeError):
                continue
            if path == ("seed",) and v == 0:
                continue
            add("header %s=%r" % (".".join(map(str, path)), v), m)
    m = copy.deepcopy(recs)
    m.append(copy.deepcopy(recs[0]))
    add("second header", m)
    m = copy.deepcopy(recs)
    m.append(copy.deepcopy(recs[first_eval]))
    add("repeated record", m)
    text = dump_lines(recs)
    for k, b in enumerate(byte_mutations(rng, text, 60)):
        cases.append(Case("journal bytes %d" % k,
                          ["tune", "job.ini", "--replay", "j.jsonl",
                           "--quiet"], "any",
                          files={"job.ini": job, "j.jsonl": b}))
    return cases


def wisdom_cases(src, rng):
    folder = os.path.join(src, "tests/fuzz/corpus_wisdom")
    name = sorted(os.listdir(folder))[0]
    text = open(os.path.join(folder, name), "rb").read().decode()
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    cases = []
    paths = [(0, "ktune_wisdom"), (0, "entries"), (1, "operator"),
             (1, "device"), (1, "sizes"), (1, "variant"), (1, "params"),
             (1, "time_us"), (1, "ci_us")]
    for line, key in paths:
        for v in ("x", -1, None, [9, 1], {}, 1e308, "\x1b]0;t\x07"):
            m = copy.deepcopy(lines)
            m[line][key] = v
            if key == "device" and v == "\x1b]0;t\x07":
                continue
            for cmd in ("show", "check"):
                # Any text names a device; show prints entries it cannot
                # check against a plugin; a slow time is still a time.
                free = (key == "device" and isinstance(v, str)) or \
                    (cmd == "show" and key in ("operator", "variant",
                                               "params")) or \
                    (key == "time_us" and v == 1e308)
                cases.append(Case("wisdom %s %s=%r" % (cmd, key, v),
                                  ["wisdom", cmd, "w.jsonl"],
                                  "any" if free else "nonzero",
                                  files={"w.jsonl": dump_lines(m)}))
    cases.append(Case("wisdom select two sizes",
                      ["wisdom", "select", "w.jsonl", "vector_add:add",
                       "NVIDIA H200", "1", "2"],
                      files={"w.jsonl": text}))
    for k, b in enumerate(byte_mutations(rng, text, 60)):
        cases.append(Case("wisdom bytes %d" % k, ["wisdom", "check",
                                                  "w.jsonl"], "any",
                          files={"w.jsonl": b}))
    return cases


def results_cases(src, rng):
    a = os.path.join(src, "tests/data/diff/a.tune.json")
    doc = json.load(open(a))
    cases = []
    paths = [("kind",), ("format",), ("best", "median_us"),
             ("best", "ci_lo_us"), ("best", "variant"), ("best",),
             ("sizes",), ("operator",), ("device",)]
    for path in paths:
        for v in ("x", -1, None, 99, [], 1e308):
            m = copy.deepcopy(doc)
            set_path(m, path, v)
            body = json.dumps(m)
            # "best" repeats an entry of "top"; sizes, device and the
            # operator's name are labels: only their absence is refused.
            free = path[0] in ("best", "sizes", "device") or \
                (path == ("operator",) and isinstance(v, str))
            cases.append(Case("diff %s=%r" % (".".join(path), v),
                              ["diff", a, "b.json"],
                              "any" if free else "nonzero",
                              files={"b.json": body}))
            cases.append(Case("report %s=%r" % (".".join(path), v),
                              ["report", "b.json", "-o", "r.html",
                               "--no-plugins"], "any" if free else "nonzero",
                              files={"b.json": body}))
    m = copy.deepcopy(doc)
    m["best"]["ci_lo_us"], m["best"]["ci_hi_us"] = 900, 100
    cases.append(Case("diff upside-down interval", ["diff", a, "b.json"],
                      files={"b.json": json.dumps(m)}))
    text = open(a).read()
    for k, b in enumerate(byte_mutations(rng, text, 40)):
        cases.append(Case("diff bytes %d" % k, ["diff", a, "b.json"], "any",
                          files={"b.json": b}))
        cases.append(Case("report bytes %d" % k,
                          ["report", "b.json", "-o", "r.html"], "any",
                          files={"b.json": b}))
    return cases


def report_cases(src):
    """A tune summary whose numbers no run writes: report refuses it (exit
    2) rather than drawing it. Each field of the answer, of a top entry and
    of the counts, set to values out of any run's range."""
    a = os.path.join(src, "tests/data/diff/a.tune.json")
    doc = json.load(open(a))
    entry = ["median_us", "ci_lo_us", "ci_hi_us", "noise", "samples",
             "bandwidth_gbs", "pct_of_copy"]
    paths = ([("best", k) for k in entry] + [("top", 0, k) for k in entry] +
             [("finalists", 0, "median_us"), ("tie", 0, "median_us"),
              ("evaluations",), ("measured",), ("host_invalid",),
              ("elapsed_s",), ("space", "size"), ("space", "feasible")])
    cases = []
    for path in paths:
        for v in (-1, 1e308, "x", [], {}, True):
            m = copy.deepcopy(doc)
            set_path(m, path, v)
            cases.append(Case("report %s=%r" % (".".join(map(str, path)), v),
                              ["report", "b.json", "-o", "r.html",
                               "--no-plugins"], files={"b.json": json.dumps(m)}))
    for key in ("space", "finalists", "top", "path", "stop_reason",
                "strategy", "protocol", "tie"):
        for v in (-1, 1e308, "x" if key != "stop_reason" else 7, True):
            m = copy.deepcopy(doc)
            m[key] = v
            cases.append(Case("report %s=%r" % (key, v),
                              ["report", "b.json", "-o", "r.html",
                               "--no-plugins"], files={"b.json": json.dumps(m)}))
    for name, change in (("median 0", ("best", "median_us", 0)),
                         ("samples 0", ("best", "samples", 0)),
                         ("upside-down interval", ("best", "ci_lo_us", 1e6)),
                         ("measured > evaluations", ("measured", 1000)),
                         ("feasible > size", ("space", "feasible", 10 ** 6))):
        m = copy.deepcopy(doc)
        set_path(m, change[:-1], change[-1])
        cases.append(Case("report " + name, ["report", "b.json", "-o",
                                              "r.html", "--no-plugins"],
                          files={"b.json": json.dumps(m)}))
    m = copy.deepcopy(doc)
    m["environment"]["device"]["limits"]["max_threads_per_block"] = 0
    cases.append(Case("report max_threads_per_block 0",
                      ["report", "b.json", "-o", "r.html"],
                      files={"b.json": json.dumps(m)}))
    m = copy.deepcopy(doc)
    m["top"] = []
    cases.append(Case("report measured, none listed", ["report", "b.json",
                                                        "-o", "r.html"],
                      files={"b.json": json.dumps(m)}))
    return cases


def command_cases(src):
    job = os.path.join(src, "configs/vector_add.ini")
    commands = {
        "tune": [job, "--check"], "bench": ["vector_add:add"],
        "profile": ["vector_add:add"], "compare": ["vector_add:add"],
        "list": [], "info": [], "report": ["x.json"],
        "diff": ["a", "b"], "wisdom": ["show", "w"], "timeline": ["true"],
        "sanitize": ["true"], "new-plugin": ["x"], "worker": [],
    }
    bad = [["--no-such-option"], ["--seed", "abc"], ["--device", "-5"],
           ["--size", "n=abc"], ["--set", "zzz"], ["--json"],
           ["\x1b[2J"], ["--fd", str(2 ** 40)], ["--timeout", "nan"]]
    cases = []
    for cmd, base in commands.items():
        for extra in bad:
            if cmd in ("list", "info") and extra == ["--json"]:
                continue  # a flag there (docs/cli.md)
            # Before the operands: after them, timeline's belong to the
            # program it runs.
            cases.append(Case("cli %s %s" % (cmd, " ".join(extra)[:20]),
                              [cmd] + extra + base))
    for cmd in ("nosuch", "--nosuch", ""):
        cases.append(Case("cli top %r" % cmd, [cmd]))
    return cases


ENV = {
    "KTUNE_PLUGIN_TIMEOUT": ["abc", "-1", "nan", "18446744073709551616",
                             "0", "inf"],
    "KTUNE_PLUGIN_CACHE": ["/dev/full", "2"],
    "KTUNE_CACHE_DIR": ["/etc/passwd", "/dev/null"],
    "KTUNE_NVRTC_CACHE": ["0", "nope"],
    "KTUNE_NVRTC_SHARE": ["0", "nope"],
    "KTUNE_PROFILE_FLUSH": ["fast"],
    "KTUNE_ROUND_SYNC": ["2"],
    "KTUNE_WORKER_TIMES": ["0"],
    "KTUNE_CUPTI_RANGE": ["kernels"],
    "KTUNE_TIMELINE_DRIVER": ["2"],
    "KTUNE_TIMELINE_FLUSH_MS": ["0", "x"],
    "KTUNE_TRACER": ["/no/such.so", "/"],
    "KTUNE_NVML_LIBRARY": ["/", "/dev/zero"],
    "KTUNE_PLUGIN_PATH": ["/dev/zero"],
    "KTUNE_NVML_RESTORE": ["/dev/zero", "/", "/no/such/folder/restore"],
    "KTUNE_NVRTC_HELPER": ["/no/such/helper", "/", "/dev/zero"],
}


# Documented variables whose garbage is no error by design: a missing NVML
# library is a note (docs/energy.md; a folder or a device is refused, in
# ENV), KTUNE_TIMELINE_DIR is set by ktune
# for the programs it traces. They must not crash it.
ENV_FREE = {
    "KTUNE_NVML_LIBRARY": ["/no/such.so", "x" * 5000],
    "KTUNE_TIMELINE_DIR": ["/etc/passwd", "/dev/null", ""],
}
# Folders a declaration names with ${VAR}: garbage there leaves its source
# unreadable, which --check must refuse.
ENV_SOURCES = {
    "KTUNE_HUB_DIR": ("examples/hub/gemm.ini", ["/etc/passwd", "/nonexistent",
                                                 "", "\x1b[2J", "x" * 5000]),
    "KTUNE_BAT_DIR": ("examples/hub/triad.ini", ["/etc/passwd", "/dev/null",
                                                 "", "../../.."]),
}


def env_cases(src):
    cases = []
    job = os.path.join(src, "configs/vector_add.ini")
    for table, expect in ((ENV, "nonzero"), (ENV_FREE, "any")):
        for var, values in table.items():
            for v in values:
                for argv in (["list"], ["tune", job, "--check"]):
                    # A bad KTUNE_PLUGIN_PATH entry is a 'not loaded' line.
                    e = "any" if var == "KTUNE_PLUGIN_PATH" else expect
                    cases.append(Case("env %s=%s %s" % (var, v[:20], argv[0]),
                                      argv, e, env={var: v}))
    for var, (decl, values) in ENV_SOURCES.items():
        for v in values:
            cases.append(Case("env %s=%s %s" % (var, v[:20], decl),
                              ["tune", os.path.join(src, decl), "--check"],
                              env={var: v}))
    return cases


def gzip_cases(src, rng):
    """Compressed inputs, which tune --replay and report both read: damaged
    gzip streams of a journal and of a summary."""
    import gzip
    rec = os.path.join(src, "tests/data/vector_add-h200-n1048576.jsonl")
    summary = os.path.join(src, "tests/report/data/"
                           "vector_add-h200-main.summary.json")
    job = "[job]\noperator = vector_add:add\nn = 2^20\n" \
          "[strategy]\nname = exhaustive\n"
    cases = []
    for name, path in (("journal", rec), ("summary", summary)):
        packed = gzip.compress(open(path, "rb").read(), mtime=0)
        for k, b in enumerate(byte_mutations(rng, packed, 15)):
            cases.append(Case("gz %s report %d" % (name, k),
                              ["report", "x.gz", "-o", "r.html",
                               "--no-journal"], "any", files={"x.gz": b}))
            if name == "journal":
                cases.append(Case("gz journal replay %d" % k,
                                  ["tune", "job.ini", "--replay", "x.gz",
                                   "--quiet", "--journal", "none"], "any",
                                  files={"x.gz": b, "job.ini": job}))
        # A journal cut short reads as a run killed mid-line (its last
        # line left out, as for a plain one); a summary cut short is none.
        cases.append(Case("gz %s cut in half" % name,
                          ["report", "x.gz", "-o", "r.html", "--no-journal"],
                          "any" if name == "journal" else "nonzero",
                          files={"x.gz": packed[:len(packed) // 2]}))
    return cases


def help_cases():
    """help and worker: words no user should type, and ones they may."""
    cases = [Case("help %s" % c, ["help", c], "any")
             for c in ("tune", "list", "wisdom", "worker", "diff")]
    cases += [Case("help %r" % c, ["help", c]) for c in ("nosuch", "",
                                                         "\x1b[2J", "--x")]
    cases += [Case("worker --fd %s" % fd, ["worker", "--fd", fd])
              for fd in ("0x", "-1", str(2 ** 31), str(2 ** 40), "987", "")]
    return cases


def run(ktune, case, base_env):
    folder = tempfile.mkdtemp(prefix="kt_bad_")
    try:
        for name, body in case.files.items():
            mode = "wb" if isinstance(body, bytes) else "w"
            with open(os.path.join(folder, name), mode) as f:
                f.write(body)
        env = dict(base_env)
        env.update(case.env)
        try:
            p = subprocess.run([ktune] + case.argv, cwd=folder, env=env,
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIME_LIMIT_S)
        except subprocess.TimeoutExpired:
            return "hang (over %d s)" % TIME_LIMIT_S
        err = p.stderr.decode(errors="replace")
        if p.returncode < 0 or p.returncode >= 124:
            return "crash (exit %d): %s" % (p.returncode, err[-400:])
        if any(s in err for s in SANITIZER):
            return "sanitizer report: %s" % err[-1200:]
        if case.expect == "nonzero" and p.returncode == 0:
            return "exit 0 on nonsense"
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    ktune, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    seed, jobs = 30, os.cpu_count() or 2
    args = sys.argv[3:]
    for i in range(0, len(args), 2):
        if args[i] == "--seed":
            seed = int(args[i + 1])
        elif args[i] == "--jobs":
            jobs = int(args[i + 1])
    rng = random.Random(seed)
    cases = (job_cases(src, rng) + declaration_cases(src, rng) +
             journal_cases(src, rng) + wisdom_cases(src, rng) +
             results_cases(src, rng) + report_cases(src) +
             command_cases(src) + env_cases(src) +
             gzip_cases(src, rng) + help_cases())
    base_env = dict(os.environ)
    base_env.setdefault("KTUNE_CACHE_DIR", tempfile.mkdtemp(prefix="kt_c_"))
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = pool.map(lambda c: (c, run(ktune, c, base_env)), cases)
        for case, why in results:
            if why:
                failures += 1
                print("FAIL: %s: ktune %r: %s" % (case.name,
                                                 case.argv[:6], why))
    print("%d cases (%d must fail, %d may pass), %d failures" %
          (len(cases), sum(c.expect == "nonzero" for c in cases),
           sum(c.expect == "any" for c in cases), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
