#!/usr/bin/env bash
# Starts a one-node Slurm (munged, slurmctld, slurmd from Debian's slurm-wlm and munge) under a
# temporary folder, runs the test program DRIVER against it, and stops everything on exit.
#   run_slurm_test.sh DRIVER [ARGS...]
# Every wait is bounded; if the daemons cannot start, it says why (with their logs) and fails:
# a machine that cannot run Slurm must not pass this test silently. Runs as root (CI) or as any
# user (then that user is SlurmUser). No systemd: the daemons run in the foreground (-D, -F)
# as children of this script.
set -euo pipefail

driver=("$@")
[ ${#driver[@]} -ge 1 ] || { echo "usage: $0 DRIVER [ARGS...]" >&2; exit 2; }

fail() {
  echo "slurm test: FAILED: $*" >&2
  exit 1
}

for cmd in munged slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$cmd" >/dev/null ||
    fail "$cmd is not on PATH: install Debian's slurm-wlm and munge (scripts/setup.sh)"
done

# munged refuses keys and sockets in folders others can write: mktemp -d gives 0700.
work=$(mktemp -d "${TMPDIR:-/tmp}/sb_slurm.XXXXXX")
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # Bounded: a daemon that ignores SIGTERM for 10 s is killed.
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  if [ "$rc" -ne 0 ]; then
    for log in "$work"/*.log; do
      [ -f "$log" ] && { echo "---- $log (last 30 lines)"; tail -n 30 "$log"; } >&2
    done
  fi
  if [ -z "${SB_SLURM_KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

user=$(id -un)
# Ports of this run (another test or a real Slurm may hold the defaults 6817/6818).
base=$((20000 + ($$ % 10000) * 2))
ctld_port=$base
slurmd_port=$((base + 1))

mkdir -p "$work/state" "$work/spool" "$work/run"
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge.key"
# --force: a root-run munged with keys in /tmp is fine for a test; -F stays in the foreground.
munged -F --force --key-file="$work/munge.key" --socket="$work/munge.socket" \
  --pid-file="$work/run/munged.pid" --log-file="$work/munged.log" \
  --seed-file="$work/munge.seed" >"$work/munged.out.log" 2>&1 &
pids+=($!)

cat >"$work/slurm.conf" <<CONF
ClusterName=sbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# The node is what this file says (2 CPUs), whatever the machine has: never drained for it.
SlurmdParameters=config_overrides
KillWait=5
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"

for _ in $(seq 1 50); do
  [ -S "$work/munge.socket" ] && break
  sleep 0.1
done
[ -S "$work/munge.socket" ] || fail "munged did not start (no socket after 5 s)"

slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/slurmd.out.log" 2>&1 &
pids+=($!)

# The node answers and is idle: at most 60 s.
state=""
for _ in $(seq 1 120); do
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || fail "a daemon exited at start (pid $pid; logs below)"
  done
  state=$(timeout 10 sinfo -h -N -o %t 2>/dev/null | head -n 1 || true)
  [ "$state" = "idle" ] && break
  sleep 0.5
done
[ "$state" = "idle" ] || fail "the node is not idle after 60 s (sinfo: '${state:-no answer}')"
echo "slurm test: slurmctld and slurmd up on ports $ctld_port/$slurmd_port ($work)"

# The driver gets SLURM_CONF (exported) and a folder on the same file system as the daemons.
export SB_SLURM_WORK="$work"
timeout 420 "${driver[@]}"
