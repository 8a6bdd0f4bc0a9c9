# The failures in jest logs, printed last by .ci/run: what a reader of CI sees is its output's tail, and a failed
# test's words sat hundreds of lines above it, among the passes' console logs (stop 34: CI failed after 528 s, and
# the tail showed the third pass's 31 passed tests only). Each FAIL line, then each failed test's header and the
# first lines of its message; at most MAX lines in all. Usage: bash scripts/ci-failures.sh <label>=<log> ...
set -u
MAX=${CI_FAILURES_MAX_LINES:-160}
for pair in "$@"; do
  label=${pair%%=*}
  log=${pair#*=}
  [ -f "$log" ] || continue
  # jest's failure blocks: "  ● <suite> › <test>" then the message, up to the next "  ●"; "● Console" is output.
  awk -v label="$label" '
    /^Summary of all failing tests/ { exit }
    /^FAIL / { print "[ci] " label ": " $0; next }
    /^  ● / { inside = ($0 !~ /^  ● Console$/); taken = 0; if (inside) print "[ci] " label ": " $0; next }
    /^[^ ]/ { inside = 0 }
    inside && taken < 30 && NF > 0 { print "[ci]   " $0; taken++ }
  ' "$log"
done | head -n "$MAX"
