#!/usr/bin/env bash
# test-slurm.sh OUT: the bench as a Slurm array job on this machine, checked
# against one machine (make test-slurm SLURM_OUT=DIR).
#
# It installs slurm-wlm and munge from Debian when missing, starts munged,
# slurmctld and slurmd on localhost as plain processes (no service manager;
# no cgroup plugin: proctrack/linuxproc, task/none), runs a one-machine bench
# of a few suite tasks, submits the same bench as an array of 2 shards
# (deploy/slurm/authbench-bench.sbatch), cancels shard 1 once it has stored a
# run, merges (shard 1 unfinished), resumes shard 1 as its own array task,
# merges again (deploy/slurm/authbench-merge.sbatch), and fails unless every
# verdict of the merged results.db equals the one-machine bench's. OUT keeps
# the array tasks' logs (slurm-%A_%a.out), the shards, OUT/merged/results.db
# and OUT/one-machine. Everything it started is stopped when it ends.
set -euo pipefail
out=${1:?usage: test-slurm.sh OUT}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${AUTHBENCH_BIN:-$repo/bin/authbench}
tasks_list=${SLURM_TASKS:-data-sales-report text-error-report sci-fasta-gc sec-cert-expiry-check db-nightly-backup}
sources=${SLURM_SOURCES:-unconstrained,spec}
start=$(date +%s)

need=""
for p in slurm-wlm munge python3; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
	echo "test-slurm: installing$need"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
[ -x "$bin" ] || { echo "test-slurm: $bin missing (make build)" >&2; exit 2; }

# OUT is made anew; an existing OUT is removed only if an earlier run made it.
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ ! -e "$out/.authbench-test-slurm" ]; then
	echo "test-slurm: $out exists and is not an earlier test-slurm output: give another SLURM_OUT" >&2
	exit 2
fi
rm -rf "$out"
mkdir -p "$out"
touch "$out/.authbench-test-slurm"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/authbench-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
	status=$?
	scancel --quiet --user=root 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
	exit $status
}
trap cleanup EXIT

# The task set: a few suite tasks, standard and sensitive.
mkdir -p "$work/tasks"
for t in $tasks_list; do cp -r "$repo/tasks/suite/$t" "$work/tasks/"; done

# munge: its own key and socket.
mkdir -p "$work/munge" && chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" -F 2>>"$work/munge/munged.log" &
pids+=($!)

# slurm: one node, localhost.
host=$(hostname -s)
mkdir -p "$work/slurm/state" "$work/slurm/spool"
export SLURM_CONF="$work/slurm/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=authbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurm/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurm/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
	state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
	[ "$state" = idle ] && break
	sleep 1
done
if [ "$state" != idle ]; then
	echo "test-slurm: the node did not come up (state '${state:-none}')" >&2
	tail -20 "$work/slurm/slurmctld.log" "$work/slurm/slurmd.log" >&2 || true
	exit 1
fi
echo "test-slurm: slurm up on $host ($(sinfo -h -o '%P %D %c'))"

common=(--tasks "$work/tasks" --sources "$sources" --agent oracle --trials 1)

# One machine first: it also builds the task images the shards share.
t0=$(date +%s)
"$bin" bench --socket "" "${common[@]}" --parallel 1 --state-dir "$work/state-one" --out "$out/one-machine" 2>"$out/one-machine.log"
echo "test-slurm: one machine: $(tail -1 "$out/one-machine.log") ($(($(date +%s) - t0)) s)"

export AUTHBENCH_BIN="$bin" AUTHBENCH_TASKS="$work/tasks" AUTHBENCH_SOURCES="$sources" AUTHBENCH_AGENT=oracle \
	AUTHBENCH_RESULTS="$out" AUTHBENCH_STATE="$work/state" AUTHBENCH_SOCKET="$work/no-daemon.sock"
t0=$(date +%s)
job=$(cd "$out" && sbatch --parsable --array=0-1 --export=ALL,AUTHBENCH_SHARDS=2 "$repo/deploy/slurm/authbench-bench.sbatch")
job=${job%%;*}
echo "test-slurm: array job $job submitted (2 shards)"
# Cancel shard 1 once it has stored a run: its shard must resume.
cancelled=no
for _ in $(seq 1 600); do
	if compgen -G "$out/shard-1/*/result.json" >/dev/null; then
		if squeue -h -j "${job}_1" -o '%T' 2>/dev/null | grep -q RUNNING; then
			scancel "${job}_1" && cancelled=yes
		fi
		break
	fi
	squeue -h -j "$job" 2>/dev/null | grep -q . || break
	sleep 0.5
done
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 1; done
echo "test-slurm: array job $job ended ($(($(date +%s) - t0)) s); shard 1 cancelled mid-run: $cancelled"
"$bin" bench merge "$out/merged" "$out"/shard-* 2>&1 | sed 's/^/test-slurm: first merge: /'
if [ "$cancelled" = yes ]; then
	t1=$(date +%s)
	rjob=$(cd "$out" && sbatch --parsable --wait --array=1 --export=ALL,AUTHBENCH_SHARDS=2 "$repo/deploy/slurm/authbench-bench.sbatch")
	echo "test-slurm: shard 1 resumed as job ${rjob%%;*} ($(($(date +%s) - t1)) s)"
fi
mjob=$(cd "$out" && sbatch --parsable --wait --export=ALL "$repo/deploy/slurm/authbench-merge.sbatch")
mjob=${mjob%%;*}
sed 's/^/test-slurm: merge job: /' "$out/slurm-$mjob-merge.out"

python3 - "$out/one-machine/results.db" "$out/merged/results.db" <<'EOF'
import sqlite3, sys
cols = "utility, attack, traced_exposure, policy_valid, round(read_f1, 6), round(write_f1, 6), round(execute_f1, 6), classes, primary_class, error = ''"
def runs(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    return {r[:4]: r[4:] for r in con.execute(f"SELECT task, source, agent, trial, {cols} FROM runs")}
one, merged = runs(sys.argv[1]), runs(sys.argv[2])
diff = 0
for k in sorted(set(one) | set(merged)):
    if one.get(k) != merged.get(k):
        diff += 1
        print(f"test-slurm: DIFFERENT {'/'.join(map(str, k))}: one machine {one.get(k)}, merged {merged.get(k)}")
print(f"test-slurm: compared {len(one)} runs of one machine with {len(merged)} merged runs: {diff} different")
sys.exit(1 if diff or not one else 0)
EOF
ls "$out"/slurm-*.out | sed 's/^/test-slurm: log /'
echo "test-slurm: passed in $(($(date +%s) - start)) s"
