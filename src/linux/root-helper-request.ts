/**
 * cdktf-homelab-root's request loop (root-helper-script.ts composes the program): it reads the request, checks every
 * step, stages the writes' bytes, then runs the steps, so a request cut short or holding one step outside the rules
 * does nothing. Split from the verbs (root-helper-steps.ts) so a new verb is added to both without either passing the
 * line cap; the text is sh, edited as in root-helper-script.ts (\\ for a backslash, \${ for an expansion).
 */

/** The loop that runs a request's steps (check, then run) and reads the request. */
export const ROOT_HELPER_REQUEST = `
steps() {
  step=0
  IFS=$NL
  for line in $ops; do
    IFS=' '
    step=$((step + 1))
    case $line in *'  '* | ' '* | *' ') refuse 'its words must be separated by single spaces' ;; esac
    # shellcheck disable=SC2086 # its words, split on purpose (set -f: no globbing)
    set -- $line
    verb=$1
    shift
    case $verb in
    intent-* | record-* | clear-*) ;;
    *) [ "$mode" = check ] || flush ;;
    esac
    case $verb in
    systemctl) v_systemctl "$@" ;;
    reload) v_reload "$@" ;;
    unmask) v_unmask "$@" ;;
    write-unit) v_write_unit "$@" ;;
    write-drop-in) v_write_drop_in "$@" ;;
    remove-unit) v_remove_unit "$@" ;;
    destroy-unit) v_destroy_unit "$@" ;;
    remove-drop-in) v_remove_drop_in "$@" ;;
    forget-drop-in) v_forget_drop_in "$@" ;;
    trace-drop-in) v_trace_drop_in "$@" ;;
    clear-drop-in-trace) v_clear_drop_in_trace "$@" ;;
    intent-unit) v_text i unit "$@" ;;
    intent-drop-in) v_text i drop-in "$@" ;;
    record-unit) v_text r unit "$@" ;;
    record-drop-in) v_text r drop-in "$@" ;;
    clear-unit-intent) v_clear_unit_intent "$@" ;;
    clear-drop-in-intent) v_clear_drop_in_intent "$@" ;;
    restore-unit) v_restore_unit "$@" ;;
    unlink) v_unlink "$@" ;;
    restore-drop-in) v_restore_drop_in "$@" ;;
    journal) v_journal "$@" ;;
    list-jobs) v_list_jobs "$@" ;;
    *) refuse "the steps are: $STEPS" ;;
    esac || exit $?
  done
  IFS=' '
}

# The request: its version line, its steps, an end line, then the bytes of its write steps' files in their order.
[ $# -eq 0 ] || fail 'takes no arguments: it reads its request on stdin' 64
IFS= read -r line || fail 'no request on stdin' 64
case $line in
"$ME $VERSION") ;;
"$ME "*)
  fail "this is version $VERSION and the request is for version $(shown "\${line#"$ME "}"): install the one of the \\
cdktf-homelab that sent it (npx cdktf-homelab root-helper prints it)" 65
  ;;
*) fail "a request starts with the line: $ME <version>" 64 ;;
esac
ops=
while :; do
  IFS= read -r line || fail 'the request ended before its end line (cut short): nothing was done' 64
  [ "$line" != end ] || break
  ops=$ops$line$NL
done
IFS=' '
mode=check
steps
# The files' bytes on fd 3 for the writes alone: no other command can take them from stdin.
exec 3<&0 </dev/null
stage_writes
mode=run
steps
flush
`;
