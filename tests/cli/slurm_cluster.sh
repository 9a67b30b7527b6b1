# A one-node Slurm cluster on this machine for tests/cli/slurm.sh (and by hand: docs/slurm.md):
# munged with its own key and socket, slurmctld and slurmd with a generated slurm.conf, all state,
# spool, pid and log files under one directory. Needs root (SlurmUser=root) and Debian's slurmctld,
# slurmd, slurm-client and munge (scripts/install-deps). Source it, then:
#   start_cluster DIR   starts it; exports SLURM_CONF so sbatch, squeue, scancel find it
#   stop_cluster        stops what start_cluster started, by the pids in its pid files
# The ports are free ones picked at start, so clusters of concurrent runs do not meet.

# A TCP port nothing listens on now.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
  cluster=$1
  local program
  for program in munged slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$program" >/dev/null || PATH=$PATH:/usr/sbin command -v "$program" >/dev/null ||
      { echo "start_cluster: $program is missing: run scripts/install-deps" >&2; return 1; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "start_cluster: a one-node cluster with SlurmUser=root needs root" >&2; return 1; }
  export PATH=$PATH:/usr/sbin
  # munged wants its key private and its socket's directory open to all.
  mkdir -p "$cluster/key" "$cluster/munge" "$cluster/state" "$cluster/spool" "$cluster/log"
  chmod 0700 "$cluster/key"
  chmod 0755 "$cluster" "$cluster/munge"
  head -c 1024 /dev/urandom >"$cluster/key/munge.key"
  chmod 0400 "$cluster/key/munge.key"
  munged --key-file="$cluster/key/munge.key" --socket="$cluster/munge/munge.socket" \
    --pid-file="$cluster/munge/munged.pid" --log-file="$cluster/log/munged.log" \
    --seed-file="$cluster/munge/munged.seed" || return 1
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  cat >"$cluster/slurm.conf" <<CONF
ClusterName=reusesim-test
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$cluster/munge/munge.socket
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
ReturnToService=2
KillWait=5
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$cluster/slurm.conf
  slurmctld -f "$SLURM_CONF" || return 1
  slurmd -f "$SLURM_CONF" || return 1
  local _
  for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
    sleep 0.2
  done
  echo "start_cluster: the node did not become idle in 20 s; logs in $cluster/log" >&2
  return 1
}

stop_cluster() {
  [ -n "${cluster:-}" ] || return 0
  local pid_file pid _
  for pid_file in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
    [ -s "$pid_file" ] || continue
    pid=$(cat "$pid_file")
    kill "$pid" 2>/dev/null || continue
    # Gone, or a zombie its parent has yet to reap.
    for _ in $(seq 100); do
      ps -o stat= -p "$pid" | grep -qv '^Z' || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
  done
  cluster=
}
