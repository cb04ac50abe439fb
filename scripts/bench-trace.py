#!/usr/bin/env python3
"""make bench-trace: overhead of `authbench trace` against no tracing and
against `strace -f`, on three workloads, in one interleaved run.

  (a) read every file of a ~20k-file tree   (find | xargs cat)
  (b) 2,000 process spawns                   (a shell loop running /bin/true)
  (c) a small C build                        (gcc -c on 24 files, then link)

Modes, interleaved per repetition so that drift affects all alike, after
one warm-up run each (medians of REPS runs):

  untraced   the command alone;
  CLI        `authbench --socket '' trace --out F`: loads and verifies the
             eBPF programs in the process (a fixed ~40 ms), then traces;
  daemon     `authbench trace --out F` through a daemon started for the
             benchmark, which keeps the programs loaded (attached only
             while a run is traced), as deployed;
  strace     `strace -f` of the same syscalls, its log to /dev/null.

Targets: traced/untraced <= 1.05, strace/traced >= 3 on a and b.

The last columns come from scripts/benchtrace, which times in one process
(no process start-ups) untraced runs, runs with an EMPTY program attached
to the tracer's hook (sys_exit), and traced runs. hook/untraced is the
floor of any tracer built on syscall tracepoints on this machine: while a
program is attached every syscall takes the kernel's slow path and the
program dispatch, whatever the program does. in-proc/untraced is the
tracer's whole steady-state cost.

A second table says where the CPU goes (medians, CPU seconds per run):
the untraced command; under the daemon, the traced tree (the daemon's
waited-for children), the daemon itself (tracer reader, recording, log
streaming) and the client; from scripts/benchtrace, the tracer's BPF
programs (run time, every CPU) and its reader. On a machine with few
cores every CPU second the tracer takes is one the traced work waits for.
"""
import argparse
import json
import os
import resource
import shutil
import socket
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


# SETTLE is the pause after every run, outside the timing: the daemon keeps
# the programs attached for 250 ms after a run (tracer.DefaultIdleDetach)
# and the kernel finishes a detach after a grace period; no mode should run
# with the previous one's programs still attached, or wait for their detach.
SETTLE = 0.6


def proc_cpu(pid):
    """CPU seconds of process pid itself and of its waited-for children."""
    with open("/proc/%d/stat" % pid) as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(f[11]) + int(f[12])) / tick, (int(f[13]) + int(f[14])) / tick


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(argv, daemon_pid):
    """Runs argv; returns its wall time and the CPU seconds (of the
    command, the daemon itself and the daemon's children) it took."""
    c0, (d0, dc0) = children_cpu(), proc_cpu(daemon_pid)
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    c1, (d1, dc1) = children_cpu(), proc_cpu(daemon_pid)
    time.sleep(SETTLE)
    if r.returncode != 0:
        sys.exit("benchmark command failed (%d): %s\n%s" % (r.returncode, " ".join(argv), r.stderr.decode(errors="replace")))
    return dt, (c1 - c0, d1 - d0, dc1 - dc0)


def wait_socket(path, proc, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit("bench-trace: the daemon exited (%d)" % proc.returncode)
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("bench-trace: the daemon did not listen on %s" % path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--authbench", default="bin/authbench")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--benchtrace", default="", help="prebuilt scripts/benchtrace binary (else go build)")
    ap.add_argument("--only", default="", help="run only the workloads whose names start with these letters (e.g. a)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-trace: run as root (tracing needs CAP_BPF and CAP_PERFMON)")
    for tool in ("strace", "gcc"):
        if shutil.which(tool) is None:
            sys.exit("bench-trace: %s is not installed (make deps)" % tool)
    authbench = os.path.abspath(args.authbench)
    tmp = tempfile.mkdtemp(prefix="bench-trace-")
    sock = os.path.join(tmp, "authbench.sock")
    daemon = subprocess.Popen([authbench, "daemon", "--socket", sock, "--state-dir", os.path.join(tmp, "state")],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        wait_socket(sock, daemon)
        out = os.path.join(tmp, "trace.jsonl")
        modes = [
            ("untraced", lambda argv: argv),
            ("cli", lambda argv: [authbench, "--socket", "", "trace", "--out", out, "--"] + argv),
            ("daemon", lambda argv: [authbench, "--socket", sock, "trace", "--out", out, "--"] + argv),
            ("strace", lambda argv: ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + STRACE_SYSCALLS, "--"] + argv),
        ]
        bt = args.benchtrace
        if not bt:
            bt = os.path.join(tmp, "benchtrace")
            subprocess.run(["go", "build", "-o", bt, "./scripts/benchtrace"], check=True)
        rows = []
        for name, argv in workloads(tmp):
            if args.only and name[0] not in args.only:
                continue
            times = {m: [] for m, _ in modes}
            cpu = {m: [] for m, _ in modes}
            for m, wrap in modes:  # warm-up: page cache, compiler, binaries
                timed(wrap(argv), daemon.pid)
            for _ in range(args.reps):
                for m, wrap in modes:
                    dt, c = timed(wrap(argv), daemon.pid)
                    times[m].append(dt)
                    cpu[m].append(c)
            with open(out) as fh:
                summary = fh.readlines()[-1].strip()
            med = {m: statistics.median(v) for m, v in times.items()}
            r = subprocess.run([bt, "-reps", str(args.reps), "--"] + argv, stdout=subprocess.PIPE, check=True)
            inproc = json.loads(r.stdout)
            base = statistics.median(inproc["untraced"])
            med["hook-ratio"] = statistics.median(inproc["hook"]) / base
            med["inproc-ratio"] = statistics.median(inproc["traced"]) / base
            events = json.loads(summary).get("events", 0)
            med["cpu"] = {
                # the command alone; the traced tree (the daemon's children);
                # the daemon's tracer, recording and HTTP; the CLI client
                "untraced": statistics.median(c[0] for c in cpu["untraced"]),
                "tree": statistics.median(c[2] for c in cpu["daemon"]),
                "daemon": statistics.median(c[1] for c in cpu["daemon"]),
                "client": statistics.median(c[0] for c in cpu["daemon"]),
                "events": events,
                "bpf": statistics.median(inproc["traced_bpf"]),
                "reader": statistics.median(inproc["traced_self_cpu"]),
            }
            rows.append((name, med, summary))
            print("%-20s done: %s" % (name, summary), file=sys.stderr)
        print()
        head = "%-20s %9s %9s %9s %9s | %9s %9s | %9s %9s | %9s %9s"
        print(head % ("workload", "untraced", "CLI", "daemon", "strace", "CLI/", "daemon/",
                      "strace/", "strace/", "hook/", "in-proc/"))
        print(head % ("", "", "", "", "-f", "untraced", "untraced", "CLI", "daemon", "untraced", "untraced"))
        for name, med, _ in rows:
            print("%-20s %8.3fs %8.3fs %8.3fs %8.3fs | %9.3f %9.3f | %9.2f %9.2f | %9.3f %9.3f" % (
                name, med["untraced"], med["cli"], med["daemon"], med["strace"],
                med["cli"] / med["untraced"], med["daemon"] / med["untraced"],
                med["strace"] / med["cli"], med["strace"] / med["daemon"],
                med["hook-ratio"], med["inproc-ratio"]))
        print("\nmedians of %d interleaved runs; targets: traced/untraced <= 1.05, strace/traced >= 3 on a and b;" % args.reps)
        print("hook/untraced: an empty program on the tracer's hook (the floor of syscall-tracepoint tracing);")
        print("in-proc/untraced: the tracer loaded once, traced runs timed in the same process (scripts/benchtrace)")
        for name, _, summary in rows:
            print("last traced run of %-20s %s" % (name + ":", summary))
        print()
        head = "%-20s %9s %9s %9s %9s | %9s %9s %9s"
        print(head % ("CPU seconds", "untraced", "daemon:", "daemon", "client", "BPF", "in-proc", "events"))
        print(head % ("(medians)", "command", "tree", "itself", "", "programs", "reader", ""))
        for name, med, _ in rows:
            c = med["cpu"]
            print("%-20s %9.3f %9.3f %9.3f %9.3f | %9.3f %9.3f %9d" % (
                name, c["untraced"], c["tree"], c["daemon"], c["client"], c["bpf"], c["reader"], c["events"]))
        print("daemon: tree is the traced command under the daemon (its children), itself the daemon's own CPU")
        print("(tracer reader, recording, HTTP), client the `authbench trace` process; BPF programs and in-proc")
        print("reader: the tracer's kernel programs and reader per traced run in scripts/benchtrace")
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
