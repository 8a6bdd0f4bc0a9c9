/**
 * cdktf-homelab-root's file steps (root-helper-script.ts composes the program): intents and records staged and
 * renamed into place, a file written whole or not at all behind its digest and only over the file its apply read
 * (the file it replaces kept, to be put back exactly by an undo, and only over the file that apply wrote), and a
 * unit's removal over the paths its checked name makes.
 * Split from the script so each part stays readable; the text is sh, edited as in root-helper-script.ts (\\ for a
 * backslash, \${ for an expansion).
 */

/** The staging, writing and removal functions the steps call. */
export const ROOT_HELPER_FILES = `\
# Intents and records: every file of the request written into a staging directory on the same file
# system, then renamed over its target (rename is atomic), one mv per directory; removals after them.
staged='' removed='' intents=''
stage() {
  k=$1 f=$2
  shift 2
  staged=$staged$k' '$f' '$*$NL
  [ "$k" = r ] || intents=1
}
install_staged() {
  dirs=
  IFS=$NL
  for e in $staged; do
    f=\${e#? } f=\${f%% *}
    case $NL$dirs in *"$NL\${f%/*}$NL"*) ;; *) dirs=$dirs\${f%/*}$NL ;; esac
  done
  # shellcheck disable=SC2086 # one directory a line, split on purpose (set -f: no globbing)
  set -- $dirs
  IFS=' '
  mkdir -p -- "$STATE" "$@" || return 1
  [ -z "$intents" ] || chmod -R a+rX,go-w -- "$INTENTS" || return 1
  n=$(mktemp -d "$STATE/.new.XXXXXX") || return 1
  i=0
  for e in "$@"; do
    i=$((i + 1))
    set -- "$@" "$n/$i"
  done
  shift $i
  mkdir -- "$@" || return 1
  now=$(date -u +%s)
  IFS=$NL
  for e in $staged; do
    k=\${e%% *} f=\${e#? } x=\${e#? * }
    f=\${f%% *} i=0
    for g in $dirs; do
      i=$((i + 1))
      [ "$g" = "\${f%/*}" ] && break
    done
    if [ "$k" = i ]; then
      printf 'cdktf-homelab-intent since=%s %s\\n' "$now" "$x" >"$n/$i/\${f##*/}" || return 1
    else
      printf '%s\\n' "$x" >"$n/$i/\${f##*/}" || return 1
    fi
  done
  i=0
  for e in $dirs; do
    i=$((i + 1))
    set +f
    set -- "$n/$i"/*
    set -f
    mv -f -- "$@" "$e/" || return 1
  done
  IFS=' '
  rm -rf -- "$n"
  n='' staged='' intents=''
}
flush() {
  [ -z "$staged" ] || install_staged || exit 1
  [ -n "$removed" ] || return 0
  IFS=$NL
  # shellcheck disable=SC2086 # one path a line, split on purpose (set -f: no globbing)
  set -- $removed
  IFS=' '
  removed=
  rm -f -- "$@" || exit 1
}

# A request's files, written whole or not at all, in few processes (a 50-file request cost about five forks a
# file: mktemp, head, sha256sum, chmod, mv). After the check, before any step runs, every write's bytes, the
# next $size of the request's (on fd 3), go to a temp file: one head each, which reads at most N bytes of a
# pipe and leaves the next file's (GNU coreutils 9.1, measured on the systemd 252 test host). The temp files
# of a directory are in one private directory inside it, made by mktemp -d (0700, a name no one had, never
# following a link), so each rename stays on the file system of its target; one mktemp a directory, not a
# file. set -C and a name of our own instead would follow a link to a device or a fifo (sh's noclobber opens
# an existing non-regular file). Then one sha256sum and one chmod 0644 for them all. Each write step, in its
# turn, installs its file only when its digest is the one its step named: the file it replaces kept, checked to be
# the one its apply read, then mv -f -T (a directory of that name is refused), then "wrote <path>". A file that
# cannot be staged, whose bytes are not the ones named, or whose target is not the file read, fails its own step,
# so the ones before it are in place and named and nothing after it runs; the trap removes the temp directories
# (and a drop-in directory made for a file not written).
TD=.cdktf-homelab-root.
plan='' tdirs='' made='' wn=0 wk=0 wfiles='' sums=''
plan_write() { plan=$plan$1' '$2' '$3$NL; }
stage_writes() {
  [ -n "$plan" ] || return 0
  i=0
  IFS=$NL
  for e in $plan; do
    IFS=' '
    i=$((i + 1))
    wd=\${e%% *} f=\${e#* } f=\${f% *}
    if [ ! -d "$wd" ]; then mkdir -p -- "$wd" && made=$made$wd$NL || break; fi
    td=$NL$tdirs
    case $td in
    *"$NL$wd/$TD"*) td=\${td#*"$NL$wd/$TD"} td=$wd/$TD\${td%%"$NL"*} ;;
    *) td=$(mktemp -d -p "$wd" "$TD"XXXXXX) && tdirs=$tdirs$td$NL || break ;;
    esac
    head -c "\${e##* }" <&3 >"$td/.$f.$i" || break
    wfiles=$wfiles$td/.$f.$i$NL wn=$i
  done
  IFS=$NL
  # shellcheck disable=SC2086 # one temp file a line, split on purpose (set -f: no globbing)
  set -- $wfiles
  IFS=' '
  [ $# -gt 0 ] || return 0
  # Their lines in their order, or none trusted: a file sha256sum could not read would shift the others'.
  sums=$(sha256sum -- "$@") && chmod 0644 -- "$@" || wn=0
  sums=$sums$NL
}
# The next staged file installed as $1 (its digest $2, its size $3), the file it replaces kept at $4 first, and only
# while that file is still the one its apply read ($5: its sha256, or none): a hand's edit since is left as it is,
# with no copy kept of it. Checked after the keep, right before the rename, so what the undo puts back is that file.
put() {
  wk=$((wk + 1))
  [ "$wk" -le "$wn" ] || fail "$1 not written: its bytes could not be staged"
  tmp=\${wfiles%%"$NL"*} wfiles=\${wfiles#*"$NL"} ws=\${sums%%"$NL"*} sums=\${sums#*"$NL"}
  # sha256sum starts the line of a name holding a backslash (an escaped unit name's) with one.
  ws=\${ws%% *} ws=\${ws#\\\\}
  if [ "$ws" != "$2" ]; then
    got=$(wc -c <"$tmp")
    if [ "$got" -ne "$3" ]; then
      echo "$1 not written: $got bytes arrived, not the $3 sent (cut short)" >&2
    else
      echo "$1 not written: its bytes' sha256 is $ws, not the $2 its step named" >&2
    fi
    exit 1
  fi
  keep "$1" "$4" || exit 1
  found "$1"
  if [ "$is" != "$5" ]; then
    rm -f -- "$4"
    was='a file' && [ "$5" != none ] || was=absent
    sized "$1"
    echo "$1 not written: it changed after this apply read it ($was when read, $now); left as it is" >&2
    exit 1
  fi
  mv -f -T -- "$tmp" "$1" && tmp= && printf 'wrote %s\\n' "$1"
}
# The file at $1 in words, as $now: its size, or gone (no regular file). Never its digest: a hand-edited file may hold
# a secret, and a full sha256 in an apply's output lets anyone test guesses of it offline.
sized() {
  now='gone now'
  [ -f "$1" ] || return 0
  now="now $(wc -c <"$1" 2>/dev/null || echo '?') bytes"
}
# The file at $1 as the read sees it, as $is: the sha256 of its bytes (through a link, as sha256sum reads it), or none
# where no regular file is (absent, a dangling link, a fifo). Read on stdin: sha256sum escapes a name it prints.
found() {
  is=none
  [ -f "$1" ] || return 0
  is=$(sha256sum <"$1") || is='(unreadable)'
  is=\${is%% *}
}
unstage() {
  IFS=$NL
  # shellcheck disable=SC2086 # one directory a line, split on purpose (set -f: no globbing)
  set -- $tdirs
  [ $# -eq 0 ] || rm -rf -- "$@"
  # shellcheck disable=SC2086 # as above
  set -- $made
  [ $# -eq 0 ] || rmdir -- "$@" 2>/dev/null
  IFS=' '
}
# The file a write replaces ($1), kept whole at $2 under $KEPT (root's alone: it may hold a secret) until its
# object's intent is cleared. cp -a keeps its bytes, mode, owner and times, and a link as a link; a copy left
# by an earlier run goes first, so cp never writes through it. Anything but a file or a link the write refuses.
# A request writes many files: $KEPT is made root's once a request, a directory made only when missing.
kept_mode=''
keep() {
  [ -f "$1" ] || [ -L "$1" ] || return 0
  [ -d "\${2%/*}" ] || (umask 077 && mkdir -p -- "\${2%/*}") || return 1
  [ -n "$kept_mode" ] || { chmod 0700 -- "$KEPT" && kept_mode=1; } || return 1
  { gone "$2" || rm -f -- "$2"; } && cp -a -T -- "$1" "$2"
}
# A failed apply's undo of one write to $1, only while the file is still the one its apply wrote ($3: the sha256 of
# that content): the kept copy $2 put back over it whole (copied beside it, then renamed) and dropped ($4 kept), or the
# new file removed ($4 none; its drop-in directory too when left empty, $5 dir). Checked right before the rename or
# unlink: another file there (a hand's edit since the write, or its removal over a kept one) is left as it is, its
# copy kept, and named on stdout as "changed <path>".
restore() {
  if [ "$4" = kept ]; then
    if gone "$2"; then
      echo "$1 not restored: no copy of it was kept" >&2
      return 1
    fi
    tmp=$(mktemp -p "\${1%/*}" ".\${1##*/}.XXXXXX") && rm -f -- "$tmp" && cp -a -T -- "$2" "$tmp" || return 1
  fi
  found "$1"
  if [ "$is" != "$3" ] && { [ "$4" = kept ] || [ "$is" != none ]; }; then
    printf 'changed %s\\n' "$1"
    [ -z "$tmp" ] || rm -f -- "$tmp"
    tmp=
    return 0
  fi
  if [ "$4" = none ]; then
    rm -f -- "$1" || return 1
    [ -z "$5" ] || rmdir -- "\${1%/*}" 2>/dev/null || true
    return 0
  fi
  mv -f -T -- "$tmp" "$1" && tmp= && rm -f -- "$2"
}
# The file a write replaces, as its apply read it: its sha256, or none.
replaces() {
  [ "$1" = none ] && return 0
  case $1 in *[!0-9a-f]*) refuse 'the file it replaces must be none or its sha256, 64 lowercase hex digits' ;; esac
  [ \${#1} -eq 64 ] || refuse 'the file it replaces must be none or its sha256, 64 lowercase hex digits'
}
# The content an undo's apply wrote: its sha256.
written() {
  case $1 in *[!0-9a-f]*) refuse 'the content its apply wrote must be its sha256, 64 lowercase hex digits' ;; esac
  [ \${#1} -eq 64 ] || refuse 'the content its apply wrote must be its sha256, 64 lowercase hex digits'
}
digest() {
  case $1 in *[!0-9a-f]*) refuse 'the digest must be 64 lowercase hex digits' ;; esac
  [ \${#1} -eq 64 ] || refuse 'the digest must be 64 lowercase hex digits'
  case $2 in '' | *[!0-9]* | 0?* | ??????????*) refuse 'the size must be a number of bytes below 10^9' ;; esac
}

# Where a mask of the unit can be: its own directory, then the admin and runtime directories.
masks() {
  m="$1/$2"
  for f in "$ADMIN/$2" "/run/systemd/system/$2"; do
    case " $m " in *" $f "*) ;; *) m="$m $f" ;; esac
  done
}
gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
drop() {
  gone "$1" && return 0
  why=$(rm -f -- "$1" 2>&1)
  if gone "$1"; then echo "removed $1"; else echo "left $1: \${why:-it is still there}"; fi
}
# A name as a find pattern that matches it alone, in $lit: sed runs only for a name with a pattern character
# (systemd's escapes hold backslashes), since a removal's processes are most of its cost on a busy host.
literal() {
  case $1 in
  *[\\\\*?[]*) lit=$(printf '%s' "$1" | sed 's/[\\\\*?[]/\\\\&/g') ;;
  *) lit=$1 ;;
  esac
}
# Whether $1 is a mask, a link to /dev/null: readlink runs for a link alone.
masked() { [ -L "$1" ] && [ "$(readlink -- "$1" 2>/dev/null)" = /dev/null ]; }
# The file a unit is loaded from, as $to: its own (file), or an instance's template's (instance).
unit_file() {
  to=$1/$2
  [ "$3" = file ] || case $s in ?*@?*) to=$1/\${s%%@*}@.$t ;; esac
}
# A unit's file (unless a /dev/null mask), its record and intent (kept while its file is left), and every
# link enable made to its file (for an instance: its own links to its template's file), looked for one level
# below the admin and runtime directories (enable --runtime links there) and compared once resolved; a mask
# is reported and stays. Prints removed, kept and left lines.
removal() {
  unit_file "$@"
  file='' named=''
  if [ "$3" = file ]; then
    file=$1/$2
  else
    case $s in ?*@?*) named=$2 ;; esac
  fi
  left=''
  if [ -n "$file" ] && ! masked "$file"; then
    drop "$file"
    gone "$file" || left=1
  fi
  # Its marks go with its file only: a unit whose file is left stays this stack's for the next destroy.
  if [ -z "$left" ]; then
    drop "$RECORDS/$2"
    drop "$INTENTS/$2"
    drop "$KEPT/$2"
  fi
  masks "$1" "$2"
  for f in $m; do
    if masked "$f"; then echo "kept $f"; fi
  done
  literal "\${to##*/}"
  set -- \\( -lname "*/$lit" -o -lname "$lit" \\)
  if [ -n "$named" ]; then
    literal "$named"
    set -- -name "$lit" "$@"
  fi
  find "$ADMIN" /run/systemd/system -maxdepth 2 -type l "$@" 2>/dev/null |
    while IFS= read -r l; do
      r=$(readlink -- "$l")
      case $r in /*) ;; *) r=$(realpath -m -s -- "\${l%/*}/$r") ;; esac
      if [ "$r" = "$to" ]; then drop "$l"; fi
    done
}

`;
