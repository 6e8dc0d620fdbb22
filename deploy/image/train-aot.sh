#!/usr/bin/env bash
# Writes an ahead-of-time cache (JDK 25's -XX:AOTCacheOutput) for the packaged application by one representative run
# of it: the embedded default (`run` with its in-process broker, API server and demo fleet) from its start to every
# cluster of the demo fleet Ready, through a rebuild, the rules, the write-back and the feeds; then SIGTERM, and the
# cache is written as the JVM exits. See docs/image.md.
#
#   bash deploy/image/train-aot.sh JAVA APP_DIR CACHE [JVM_OPTION ...]
#
# JAVA: the java the cache is for (the image's); APP_DIR: the directory with quarkus-run.jar, as the image has it
# (the cache holds the class path, each jar's size and time); CACHE: the file to write; JVM_OPTION: the options the
# image starts the JVM with. Exits 0 with CACHE written, else 1 with the run's last lines.
#
# The cache's classes are not linked ahead of time (-XX:-AOTClassLinking): linked, the JVM loads every class of the
# cache at its start, 16,900 of them, which makes `compute` slower than without the cache; and on 25.0.3 a linked
# cache's code adapters fail to match and the JVM prints warnings on standard output, into what a command prints.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '7,11p' "$0" >&2; exit 2; }
JAVA=$1 APP_DIR=$2 CACHE=$3; shift 3
fail() { echo "train-aot.sh: FAILED: $*" >&2; exit 1; }
[ -x "$JAVA" ] || fail "$JAVA is not an executable java"
[ -f "$APP_DIR/quarkus-run.jar" ] || fail "no quarkus-run.jar in $APP_DIR"

state=$(mktemp -d); chmod 700 "$state"
log=$state/run.log
rm -f "$CACHE"
# Ports 0: the run takes whatever is free; the embedded default's kubeconfig in a directory of its own.
( cd "$APP_DIR" && exec env QUARKUS_HTTP_PORT=0 QUARKUS_HTTP_SSL_PORT=0 QUARKUS_MANAGEMENT_PORT=0 \
    AGGREGATOR_EMBEDDED_KUBECONFIG="$state/kubeconfig" \
    "$JAVA" "$@" -XX:-AOTClassLinking "-XX:AOTCacheOutput=$CACHE" -jar quarkus-run.jar run ) >"$log" 2>&1 &
pid=$!
# Every demo cluster Ready: the live table shows four rows whose READY column is True.
deadline=$((SECONDS + 150)); ready=false
while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
  if [ "$(tail -n 8 "$log" | grep -cE '^default/[a-z]+ +[0-9]+/[0-9]+ +[0-9]+/[0-9]+ +True ')" -ge 4 ]; then ready=true; break; fi
  sleep 1
done
kill -TERM "$pid" 2>/dev/null || true
rc=0; wait "$pid" || rc=$?
if ! $ready || [ ! -s "$CACHE" ]; then
  tail -n 20 "$log" >&2
  rm -rf "$state"
  fail "the training run $($ready && echo "wrote no cache (exit $rc)" || echo "did not see every demo cluster Ready")"
fi
rm -rf "$state"
echo "    training run: every demo cluster Ready, exit $rc; $CACHE $(du -h "$CACHE" | cut -f1)"
