# Sourced by the probes' scripts after they read their arguments: $here, this folder;
# $work, a temporary folder removed on exit; and run_pinned CPU PROGRAM [ARG...].
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_pinned() {
    cpu=$1
    shift
    taskset -c "$cpu" "$@"
}
