/**
 * cdktf-homelab-root's verbs (root-helper-script.ts composes the program): each checks its arguments first and acts
 * only when the whole request passed (root-helper-request.ts runs each step twice: check, then run), so a step that
 * breaks a rule is refused before anything is done. The text is sh, edited as in root-helper-script.ts (\\ for a
 * backslash, \${ for an expansion).
 */

/** The verbs, one function a step. */
export const ROOT_HELPER_STEPS = `\
# The steps: each checks its arguments, then, when the whole request passed, acts.
v_systemctl() {
  [ $# -ge 2 ] || refuse 'systemctl takes a verb, a flag or none, and unit names'
  a=$1 f=
  shift
  case $a in
  start | stop | restart) f=--no-block ;;
  enable | disable | reenable) f=--no-reload ;;
  reset-failed) ;;
  *) refuse "systemctl's verb must be one of start, stop, restart, enable, disable, reenable, reset-failed" ;;
  esac
  case $1 in
  --*) [ "$1" = "$f" ] || refuse "systemctl $a takes no flag but \${f:-none}" ;;
  *) f= ;;
  esac
  [ -z "$f" ] || shift
  # enable and disable may act on the links under /run alone (--runtime, after --no-reload).
  r=
  if [ "$f" = --no-reload ] && [ "$1" = --runtime ]; then r=$1; shift; fi
  [ $# -ge 1 ] || refuse 'systemctl takes one or more unit names'
  for e in "$@"; do unit "$e" 'each unit'; done
  [ "$mode" = run ] || return 0
  systemctl "$a" $f $r -- "$@"
}
v_reload() {
  takes $# 0 'no arguments'
  [ "$mode" = run ] || return 0
  systemctl daemon-reload
}
v_unmask() {
  takes $# 2 'a directory and a unit name'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  [ "$mode" = run ] || return 0
  masks "$d" "$u"
  for f in $m; do
    if [ -L "$f" ] && [ "$(readlink -- "$f")" = /dev/null ]; then
      rm -f -- "$f" || return 1
    elif [ -f "$f" ] && [ ! -s "$f" ] && [ ! -L "$f" ]; then
      echo "$f is an empty file, not a /dev/null link" >&2
      return 3
    fi
  done
}
# A write names the file it replaces as its apply read it (its sha256, or none), then its own content's.
v_write_unit() {
  takes $# 5 'a directory, a unit name, the sha256 of the file it replaces or none, of its content, and its size'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  replaces "$3"
  digest "$4" "$5"
  [ "$mode" = run ] || {
    plan_write "$d" "$u" "$5"
    return 0
  }
  put "$d/$u" "$4" "$5" "$KEPT/$u" "$3"
}
v_write_drop_in() {
  takes $# 6 'a directory, a unit and a drop-in name, the sha256 of the file it replaces or none, of its content, size'
  dropin "$1" "$2" "$3"
  replaces "$4"
  digest "$5" "$6"
  [ "$mode" = run ] || {
    plan_write "\${p%/*}" "\${p##*/}" "$6"
    return 0
  }
  put "$p" "$5" "$6" "$KEPT/drop-ins$p" "$4"
}
# An undo names the content its apply wrote (its sha256): a file that is another since is left, named "changed".
v_restore_unit() {
  takes $# 3 'a directory, a unit name and the sha256 of the content its apply wrote'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  written "$3"
  [ "$mode" = run ] || return 0
  restore "$d/$u" "$KEPT/$u" "$3" kept
}
# One link under the admin directory to the unit's file, <unit> or <unit>.wants/<unit> (.requires, .upholds), as
# enable makes it: removed where it is that link, left otherwise. A failed apply's undo takes so a link its relink
# made where no systemctl verb removes it alone (a template alias: measured, systemd 252).
v_unlink() {
  takes $# 3 'a directory, a unit name and a link to its file under the admin directory'
  dir "$1" 'the directory'
  case $3 in
  */*/*) refuse 'the link must be <unit> or <unit>.wants/<unit> (.requires, .upholds)' ;;
  *.wants/* | *.requires/* | *.upholds/*) w=\${3%/*} && unit "\${w%.*}" 'the link directory' ;;
  */*) refuse 'the link must be <unit> or <unit>.wants/<unit> (.requires, .upholds)' ;;
  esac
  unit "\${3##*/}" 'the link'
  unit "$2" 'the unit'
  [ "$mode" = run ] || return 0
  l=$ADMIN/$3
  if [ -L "$l" ] && [ "$(readlink -- "$l")" = "$d/$u" ]; then rm -f -- "$l" || return 1; fi
}
# kept: the file the write replaced put back; none: the new drop-in removed (remove-drop-in is a destroy's, unchecked).
v_restore_drop_in() {
  takes $# 5 'a directory, a unit and a drop-in name, the sha256 of the content its apply wrote, and kept or none'
  dropin "$1" "$2" "$3"
  written "$4"
  case $5 in kept | none) ;; *) refuse 'the fifth word must be kept or none' ;; esac
  [ "$mode" = run ] || return 0
  restore "$p" "$KEPT/drop-ins$p" "$4" "$5" dir
}
# A new unit's undo: removed with its links and marks while its file is the content its apply wrote, or gone.
v_remove_unit() {
  takes $# 3 'a directory, a unit name and the sha256 of the content its apply wrote'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  written "$3"
  [ "$mode" = run ] || return 0
  found "$d/$u"
  [ "$is" = "$3" ] || [ "$is" = none ] || { printf 'changed %s\\n' "$d/$u"; return 0; }
  removal "$d" "$u" file
}
# A unit's destroy after its stop, one of a request's many: a "unit <name>" line, then what it did. Disabled
# under /etc and /run (an enable --runtime's links stayed until reboot) while its file (an instance's: its
# template's) is there, when asked: systemd 252 refuses to disable a loaded
# unit whose file is gone (measured), and removal's search takes the links such a unit left. Removed, its
# failed record cleared when the caller saw it failed after its stop (one systemctl show for the request's
# units, where a show each here took 8-10 ms a unit); then whether systemd must reload to let go of it (the
# caller's shared reload, which reads the load states after), and an end line. A systemctl that fails ends
# this unit's part with its output as "failed" lines and the request goes on: one unit's failure fails that
# unit alone. An instance asks a reload only when it was disabled (here, or before by the caller: disabled).
v_destroy_unit() {
  takes $# 5 'a directory, a unit name, file or instance, disable, disabled (before) or keep, and failed or settled'
  dir "$1" 'the directory'
  unit "$2" 'the unit'
  case $3 in file | instance) ;; *) refuse 'the third word must be file or instance' ;; esac
  case $4 in disable | disabled | keep) ;; *) refuse 'the fourth word must be disable, disabled or keep' ;; esac
  case $5 in failed | settled) ;; *) refuse 'the fifth word must be failed or settled' ;; esac
  [ "$mode" = run ] || return 0
  printf 'unit %s\\n' "$u"
  unit_file "$d" "$u" "$3"
  if [ "$4" = disable ] && [ -e "$to" ]; then
    ran systemctl disable --no-reload -- "$u" || return 0
    ran systemctl disable --no-reload --runtime -- "$u" || return 0
  fi
  removal "$d" "$u" "$3"
  [ -n "$left" ] || untrace "$u"
  if [ "$5" = failed ]; then ran systemctl reset-failed -- "$u" || return 0; fi
  if [ "$3" = file ] || [ "$4" != keep ]; then echo reload; fi
  echo end
}
# A command of a unit's destroy: silent when it succeeds, its output as "failed" lines when not.
ran() {
  out=$("$@" 2>&1) && return 0
  printf '%s\\n' "$out" | sed 's/^/failed /'
  return 1
}
v_remove_drop_in() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  rm -f -- "$p" && { rmdir -- "\${p%/*}" 2>/dev/null || true; }
}
v_forget_drop_in() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  for f in "$MARKS$p" "$INTENTS/drop-ins$p" "$KEPT/drop-ins$p"; do
    rm -f -- "$f" || return 1
    rmdir -- "\${f%/*}" 2>/dev/null || true
  done
}
# An intent (i) or a record (r) of a unit or a drop-in: its path made from the checked object, then its words.
v_text() {
  k=$1 of=$2
  shift 2
  if [ "$of" = unit ]; then
    [ $# -ge 2 ] || refuse "$verb takes a unit name and the words of its text"
    unit "$1" 'the unit'
    shift
    f=$u
  else
    [ $# -ge 4 ] || refuse "$verb takes a directory, a unit name, a drop-in name and the words of its text"
    dropin "$1" "$2" "$3"
    shift 3
    f=$p
  fi
  words "$@"
  [ "$mode" = run ] || return 0
  case $k$of in
  iunit) f=$INTENTS/$f ;;
  idrop-in) f=$INTENTS/drop-ins$f ;;
  runit) f=$RECORDS/$f ;;
  *) f=$MARKS$f ;;
  esac
  stage "$k" "$f" "$@"
}
# An intent cleared: its apply is done with the object, so the copy its write kept goes too.
v_clear_unit_intent() {
  takes $# 1 'a unit name'
  unit "$1" 'the unit'
  [ "$mode" = run ] || return 0
  removed=$removed$INTENTS/$u$NL$KEPT/$u$NL
}
v_clear_drop_in_intent() {
  takes $# 3 'a directory, a unit name and a drop-in name'
  dropin "$@"
  [ "$mode" = run ] || return 0
  removed=$removed$INTENTS/drop-ins$p$NL$KEPT/drop-ins$p$NL
}
v_journal() {
  takes $# 2 'a unit name and a number of lines'
  unit "$1" 'the unit'
  case $2 in [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *) refuse 'the number of lines must be 1 to 999' ;; esac
  [ "$mode" = run ] || return 0
  journalctl -u "$u" -n "$2" --no-pager -o short-iso 2>&1 | tail -n "$2"
}
# Both --after and --before: systemd 252 prints the jobs a job waits for under --before, later versions
# under --after.
v_list_jobs() {
  [ $# -le 1 ] || refuse 'list-jobs takes a unit name or nothing'
  [ $# -eq 0 ] || unit "$1" 'the unit'
  [ "$mode" = run ] || return 0
  if [ $# -eq 0 ]; then
    systemctl list-jobs --no-pager --no-legend
  else
    systemctl list-jobs --no-pager --no-legend --after --before -- "$u"
  fi
}
`;
