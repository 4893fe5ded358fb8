#!/bin/sh
# A `kiln tune --runner` for a board reached over ssh:
#
#   kiln tune model.onnx --target aarch64 --db tune.sqlite \
#     --runner "autotune/runners/ssh_runner.sh user@board" \
#     --measure-tool build/aarch64/kiln_measure
#
# kiln runs `ssh_runner.sh HOST KILN_MEASURE ARGS...`. The measure tool and
# the libkiln_rt.so beside it are copied to a folder on the board once
# ($KILN_REMOTE_DIR, default /tmp/kiln-runner; the library is looked for
# beside the tool, then in ../lib as in a build tree); each library named in
# ARGS is copied there, the tool runs on the board, and its output (the
# device, the time, the output digest) comes back on stdout.
set -eu
host=$1
tool=$2
shift 2
remote=${KILN_REMOTE_DIR:-/tmp/kiln-runner}
ssh "$host" "mkdir -p '$remote'"
if ! ssh "$host" "test -x '$remote/kiln_measure'"; then
  scp -q "$tool" "$host:$remote/kiln_measure"
  runtime=$(dirname "$tool")/libkiln_rt.so
  [ -f "$runtime" ] || runtime=$(dirname "$tool")/../lib/libkiln_rt.so
  scp -q "$runtime" "$host:$remote/libkiln_rt.so"
fi
command="'$remote/kiln_measure'"
for arg in "$@"; do
  case "$arg" in
  *.so)
    scp -q "$arg" "$host:$remote/$(basename "$arg")"
    command="$command '$remote/$(basename "$arg")'"
    ;;
  *) command="$command '$arg'" ;;
  esac
done
exec ssh "$host" "LD_LIBRARY_PATH='$remote' $command"
