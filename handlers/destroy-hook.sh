# cdktf-homelab's destroy hook: `sh destroy-hook.sh <bundle> <domain> destroy`, the object in HOMELAB_* variables.
# It hands the object to the leader of this stack's destroys (a Node process serving a FIFO in the private
# relay folder, src/core/destroy-relay/fifo-lead.ts) and prints the outcome the leader writes back, so a
# destroy costs a few execs instead of a Node start. With no live leader it becomes one, or runs the Node
# hook itself (which destroys through the socket relay); every wait is bounded, a dead leader included.
# POSIX sh only (dash, bash --posix): Terraform's local-exec runs `sh` as the hook's interpreter.
bundle=$1
domain=$2
node_hook() { exec node "$bundle" "$HOMELAB_KIND" destroy; }
# The Terraform run this hook is in, `<pid>.<start time>`, into `run`: the nearest ancestor that is no shell (a shell
# the user's `sh` may be, or a `/bin/sh -c` between), as whole-destroy.ts finds it. Builtins only, and no subshell:
# fails without /proc.
run_of() {
  p=$PPID n=0
  while [ "$n" -le 4 ]; do
    { IFS= read -r s <"/proc/$p/stat"; } 2>/dev/null || return 1
    c=${s#*\(} r=${s##*) }
    c=${c%)*}
    set -f
    # shellcheck disable=SC2086 # split on purpose: the fields after the name
    set -- $r
    set +f
    [ $# -ge 20 ] || return 1
    case $c in
    sh | dash | bash | busybox) p=$2 n=$((n + 1)) ;;
    *)
      eval "run=\$p.\${20}"
      return 0
      ;;
    esac
  done
  return 1
}
# `sh destroy-hook.sh <bundle> <domain> teardown`: a target's teardown, the destroy hook of its batch apply, which
# removes the target's objects in one run when Terraform destroys the whole state (src/core/destroy-relay/teardown.ts
# decides). The apply resource is replaced at every apply that changes something: a Terraform run whose arguments
# say no `destroy` ends here, without a Node start.
if [ "${3-}" = teardown ]; then
  run_of || exit 0
  case "$(tr '\0' ' ' <"/proc/${run%%.*}/cmdline" 2>/dev/null) ${TF_CLI_ARGS-} ${TF_CLI_ARGS_apply-}" in
  *destroy*) exec node "$bundle" batch teardown ;;
  esac
  exit 0
fi
# The request's fields, in its order (fifo-protocol.ts REQUEST_FIELDS).
fields='HOMELAB_KIND HOMELAB_STACK HOMELAB_LIFECYCLE HOMELAB_TARGET HOMELAB_TARGET_LABEL HOMELAB_ADOPT HOMELAB_DECLARED'
# Values are data: each set variable as NAME=value, NUL-terminated (an environment value holds no NUL).
request() {
  for name in $fields; do
    eval "isset=\${$name+x} value=\${$name-}"
    [ -n "$isset" ] && printf '%s=%s\0' "$name" "$value"
  done
  :
}
data=${TF_DATA_DIR-.terraform}
dir=${data:+$data/}cdktf-homelab-relay
case $domain in '' | *[!a-z0-9-]*) node_hook ;; esac
# The folder is this user's alone (0700, not a link), in a data dir no one else may write (as run.ts's
# relayDirectory checks), else an object's request could be read or a lock swapped: the Node hook then
# destroys alone. Both are checked on every run: a folder found in a data dir another user made was a link
# they planted, and the hook led there (an audit, 2026-12-05).
# Once the folder is there, one `ls` checks both (a process less per hook: 1.3 ms of a fast path's 7, measured
# 2026-12-07): it lists the data dir first, since it sorts a path before those it prefixes; any other order fails
# the match, and the Node hook runs.
[ -d "$data" ] && [ ! -L "$data" ] && [ -O "$data" ] || node_hook
if [ ! -e "$dir" ]; then
  case $(ls -ld -- "$data" 2>/dev/null) in d????[!w]??[!w]*) ;; *) node_hook ;; esac
  mkdir -m 700 "$dir" 2>/dev/null
fi
[ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ] || node_hook
case $(ls -ld -- "$data" "$dir" 2>/dev/null) in d????[!w]??[!w]*"
"drwx------*) ;; *) node_hook ;; esac
# In a destroy of the whole state the target's teardown may have removed this object already, in one run with the
# target's others: its outcome waits under this run, named by the object's lifecycle (HOMELAB_OBJECT), in lines: the
# request it answers (q<NAME>=<value>, a line a set field, in the request's order), then as a leader answers
# (l<line>, then x<code>). Taken once: the file goes as it is opened, and the run's folder with the last (rm -d, one
# exec for both; a rm without -d leaves the folder to the next read's sweep). Read with builtins: no digest to compute
# (a sha256sum and two subshells were 2.5 ms of a hook's 10, measured 2026-12-07). An outcome for another request
# (a value with a newline never matches) or cut short says nothing: the leader destroys the object.
taken() {
  done=$1/$HOMELAB_OBJECT
  if [ -f "$done" ] && [ ! -L "$done" ] && { command exec 6<"$done"; } 2>/dev/null; then
    rm -df -- "$done" "$1" 2>/dev/null
    [ ! -e "$done" ] || rm -f -- "$done"
    for name in $fields; do
      eval "isset=\${$name+x} value=\${$name-}"
      [ -z "$isset" ] || { IFS= read -r line <&6 && [ "$line" = "q$name=$value" ]; } || break
      name=
    done
    while [ -z "$name" ] && IFS= read -r line <&6; do
      case $line in
      l*) printf '%s\n' "${line#l}" >&2 ;;
      x[0-9] | x[0-9][0-9] | x[0-9][0-9][0-9]) exit "${line#x}" ;;
      *) break ;;
      esac
    done
    exec 6<&-
  fi
}
case ${HOMELAB_OBJECT-} in
'' | *[!A-Za-z0-9_-]*) ;;
*) run_of && [ -d "$dir/done.$run" ] && taken "$dir/done.$run" ;;
esac
lock=$dir/$domain.lead
req=$dir/h$$.req
out=$dir/h$$.out
set -C
pid=
{ IFS= read -r pid <"$lock"; } 2>/dev/null
if [ -z "$pid" ] && [ ! -e "$lock" ]; then
  # No leader: the hook that makes the lock becomes one, its FIFO made first so a lock always names a
  # FIFO; exec keeps the pid the lock holds. The lock is a hard link of a file that already holds the pid
  # (`ln` fails when the lock exists), so no hook ever reads it empty: one made by noclobber and written
  # after could be read between the two, and the hook that did ran a Node hook of its own (3 of 20 hooks
  # at once under CI's load, test/e2e/destroy-hook.test.ts).
  claim=$dir/$domain.$$.new
  mkfifo "$dir/$domain.$$.in" 2>/dev/null || node_hook
  if { printf '%s\n' "$$" >"$claim"; } 2>/dev/null && ln "$claim" "$lock" 2>/dev/null; then
    rm -f "$claim"
    HOMELAB_RELAY_DOMAIN=$domain exec node "$bundle" "$HOMELAB_KIND" destroy
  fi
  rm -f "$claim" "$dir/$domain.$$.in"
  { IFS= read -r pid <"$lock"; } 2>/dev/null
fi
case $pid in '' | *[!0-9]*) node_hook ;; esac
fifo=$dir/$domain.$pid.in
# A lock whose leader is gone is stale: the Node hook sweeps it (and leads through its socket).
[ -p "$fifo" ] && kill -0 "$pid" 2>/dev/null || node_hook
request >"$req" 2>/dev/null || node_hook
mkfifo "$out" 2>/dev/null || {
  rm -f "$req"
  node_hook
}
dog=
give_up() {
  [ -n "$dog" ] && kill "$dog" 2>/dev/null
  exec 3<&- 5<&-
  rm -f "$req" "$out"
}
fall_back() {
  give_up
  trap - INT TERM HUP
  node_hook
}
trap 'give_up; exit 130' INT
trap 'give_up; exit 143' TERM
trap 'give_up; exit 129' HUP
# The reply FIFO is held open for writing by the watchdog alone: the hook reads EOF when it ends with no
# leader having opened it (no acknowledgement), or when the leader that did goes, killed or not.
# `command exec`: a failed redirection of a plain `exec` would end the shell.
{ command exec 4<>"$out"; } 2>/dev/null || fall_back
# The watchdog gives the leader 5 s from when it serves (it makes its `up` file once it reads its FIFO), at
# most 30 polls of 1 s before, and ends once the leader is gone. Counted from the hook's start, the 5 s ran
# out while a leader under CI's load was still starting (4.5-4.8 s), and most hooks ran a Node hook each.
up=$dir/$domain.$pid.up
{
  polls=0
  while [ ! -e "$up" ] && [ "$polls" -lt 30 ] && kill -0 "$pid" 2>/dev/null; do
    sleep 1
    polls=$((polls + 1))
  done
  kill -0 "$pid" 2>/dev/null && exec sleep 5
} </dev/null >/dev/null 2>&1 &
dog=$!
{ command exec 5<"$out" 4<&-; } 2>/dev/null || fall_back
# Read-write, so the open never blocks; the path checked again, since `<>` creates a missing one.
{ command exec 3<>"$fifo"; } 2>/dev/null || fall_back
if [ ! -p "$fifo" ]; then
  rm -f "$fifo"
  fall_back
fi
printf '%s\n' "$$" >&3
taken=
while :; do
  while IFS= read -r line <&5; do
    case $line in
    a)
      kill "$dog" 2>/dev/null
      dog=
      exec 3<&-
      ;;
    l*) printf '%s\n' "${line#l}" >&2 ;;
    x[0-9] | x[0-9][0-9] | x[0-9][0-9][0-9])
      exec 5<&-
      exit "${line#x}"
      ;;
    *) break ;;
    esac
  done
  # No acknowledgement in time, a leader that went before the outcome, or one that refused the request
  # (another stack's, or ending): the hook takes its request back by removing it, its reply FIFO still
  # open. A leader serves only a request it removed itself (fifo-lead.ts), so exactly one of the two
  # destroys the object: without it, a leader that opened the FIFO just as the watchdog ran out destroyed
  # it while this hook's Node hook did too. A request already gone is the leader's, which holds the FIFO
  # open for its answer: read on, to the outcome, or to EOF once that leader went or refused it.
  [ -z "$taken" ] || break
  taken=1
  rm "$req" 2>/dev/null && break
done
# Destroy through the Node hook. A destroy is idempotent.
fall_back
