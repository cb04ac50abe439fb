#!/usr/bin/env python3
"""make bench-trace: overhead of `authbench trace` against no tracing and
against `strace -f`, on three workloads, in one interleaved run.

  (a) read every file of a ~20k-file tree   (find | xargs cat)
  (b) 2,000 process spawns                   (a shell loop running /bin/true)
  (c) a small C build                        (gcc -c on 24 files, then link)

Each (workload, mode) is run REPS times, modes interleaved per repetition
so that drift affects all alike, after one warm-up run each; the table
shows medians in seconds and the ratios traced/untraced (target <= 1.05)
and strace/traced (target >= 3 on a and b). The traced run writes its
JSONL to a file, like a real trace; strace writes its log to /dev/null and
traces the same system calls.

`authbench trace` pays a fixed start-up cost per run (loading and
verifying the eBPF programs, CO-RE against the kernel BTF: ~45 ms here),
which a short workload feels. The last columns separate it out: the
benchtrace helper (scripts/benchtrace) loads the programs once, as the
daemon does, and times untraced vs traced runs of the same workload in one
process ("loaded" = steady-state per-run overhead), with the default raw
syscall tracepoints and with the opt-in per-syscall tracepoints ("tp mode").
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STRACE_SYSCALLS = ("open,openat,openat2,creat,execve,execveat,mkdir,mkdirat,unlink,unlinkat,rmdir,"
                   "rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate,ftruncate,chdir,fchdir")


def make_tree(root, dirs=200, files=100):
    for d in range(dirs):
        p = os.path.join(root, "d%03d" % d)
        os.makedirs(p)
        for f in range(files):
            with open(os.path.join(p, "f%03d.txt" % f), "w") as fh:
                fh.write("line %d %d\n" % (d, f) * 8)


def make_build(root, n=24):
    for i in range(n):
        with open(os.path.join(root, "m%02d.c" % i), "w") as fh:
            fh.write("#include <stdio.h>\n#include <string.h>\n"
                     "int f%d(int x){char b[64];snprintf(b,sizeof b,\"%%d\",x);return (int)strlen(b)+x*%d;}\n" % (i, i))
    with open(os.path.join(root, "main.c"), "w") as fh:
        fh.write("".join("int f%d(int);\n" % i for i in range(n)))
        fh.write("int main(void){int s=0;" + "".join("s+=f%d(%d);" % (i, i) for i in range(n)) + "return s==0;}\n")


def workloads(tmp):
    tree = os.path.join(tmp, "tree")
    os.makedirs(tree)
    make_tree(tree)
    build = os.path.join(tmp, "build")
    os.makedirs(build)
    make_build(build)
    return [
        ("a: read ~20k files", ["sh", "-c", "find %s -type f -print0 | xargs -0 cat > /dev/null" % tree]),
        ("b: 2000 spawns", ["sh", "-c", "i=0; while [ $i -lt 2000 ]; do /bin/true; i=$((i+1)); done"]),
        ("c: small C build", ["sh", "-c", "cd %s && rm -f *.o prog && for f in *.c; do gcc -O1 -c $f; done && gcc -o prog *.o" % build]),
    ]


def timed(argv):
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("benchmark command failed (%d): %s\n%s" % (r.returncode, " ".join(argv), r.stderr.decode(errors="replace")))
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--authbench", default="bin/authbench")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--benchtrace", default="", help="prebuilt scripts/benchtrace binary (else go build)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-trace: run as root (tracing needs CAP_BPF and CAP_PERFMON)")
    for tool in ("strace", "gcc"):
        if shutil.which(tool) is None:
            sys.exit("bench-trace: %s is not installed (make deps)" % tool)
    authbench = os.path.abspath(args.authbench)
    tmp = tempfile.mkdtemp(prefix="bench-trace-")
    try:
        out = os.path.join(tmp, "trace.jsonl")
        modes = [
            ("untraced", lambda argv: argv),
            ("traced", lambda argv: [authbench, "trace", "--out", out, "--"] + argv),
            ("strace", lambda argv: ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + STRACE_SYSCALLS, "--"] + argv),
        ]
        bt = args.benchtrace
        if not bt:
            bt = os.path.join(tmp, "benchtrace")
            subprocess.run(["go", "build", "-o", bt, "./scripts/benchtrace"], check=True)
        rows = []
        for name, argv in workloads(tmp):
            times = {m: [] for m, _ in modes}
            for m, wrap in modes:  # warm-up: page cache, compiler, binaries
                timed(wrap(argv))
            for _ in range(args.reps):
                for m, wrap in modes:
                    times[m].append(timed(wrap(argv)))
            with open(out) as fh:
                summary = fh.readlines()[-1].strip()
            med = {m: statistics.median(v) for m, v in times.items()}
            r = subprocess.run([bt, "-reps", str(args.reps), "--"] + argv, stdout=subprocess.PIPE, check=True)
            steady = json.loads(r.stdout)
            med["loaded-untraced"] = statistics.median(steady["untraced"])
            med["loaded-traced"] = statistics.median(steady["traced"])
            r = subprocess.run([bt, "-reps", str(args.reps), "-syscall-tracepoints", "--"] + argv,
                               stdout=subprocess.PIPE, check=True)
            tp = json.loads(r.stdout)
            med["tp-ratio"] = statistics.median(tp["traced"]) / statistics.median(tp["untraced"])
            rows.append((name, med, summary))
            print("%-20s done: %s" % (name, summary), file=sys.stderr)
        print()
        print("%-20s %9s %9s %9s %9s %9s | %9s %9s %9s | %9s" % (
            "workload", "untraced", "traced", "strace", "traced/", "strace/",
            "loaded:", "loaded:", "traced/", "tp mode:"))
        print("%-20s %9s %9s %9s %9s %9s | %9s %9s %9s | %9s" % (
            "", "", "(CLI)", "-f", "untraced", "traced", "untraced", "traced", "untraced", "tr./untr."))
        for name, med, _ in rows:
            print("%-20s %8.3fs %8.3fs %8.3fs %9.3f %9.2f | %8.3fs %8.3fs %9.3f | %9.3f" % (
                name, med["untraced"], med["traced"], med["strace"],
                med["traced"] / med["untraced"], med["strace"] / med["traced"],
                med["loaded-untraced"], med["loaded-traced"],
                med["loaded-traced"] / med["loaded-untraced"], med["tp-ratio"]))
        print("\nmedians of %d interleaved runs; targets: traced/untraced <= 1.05, strace/traced >= 3 on a and b;" % args.reps)
        print("'loaded' = programs loaded once beforehand (daemon), so the ratio excludes the fixed start-up cost;")
        print("'tp mode' = loaded, with the opt-in per-syscall tracepoints (tracer.Options.SyscallTracepoints)")
        for name, _, summary in rows:
            print("last traced run of %-20s %s" % (name + ":", summary))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
