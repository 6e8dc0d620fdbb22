#!/usr/bin/env bash
# Retakes docs/fleet-page.png: the embedded default's own fleet page (docs/running.md), in headless Chromium, while the
# demo fleet is being created, so that its clusters show varied states (alpha and bravo Ready, charlie's workers
# joining, delta just created).
#
#   mvn -B package -DskipTests   # once: the script runs the packaged application
#   bash docs/fleet-page.sh [OUTPUT.png]   # docs/fleet-page.png by default
#
# Needs Java 17 and Debian's chromium (apt-get install -y chromium). It runs an embedded default of its own on free
# ports, with its kubeconfig in a temporary directory, so a demo already running on this machine is left alone. The
# demo steps every 3 s here instead of every second (FLEET_PAGE_TICK), so that the moment is caught whatever the time
# Chromium takes to start; the fleet and its script are the demo's own.
set -euo pipefail
output=$(realpath -m "${1:-$(dirname "$0")/fleet-page.png}")
cd "$(dirname "$0")/.."

tick=${FLEET_PAGE_TICK:-3s}
jar=target/quarkus-app/quarkus-run.jar
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B package -DskipTests)" >&2; exit 2; }
[ -n "$chromium" ] || { echo "no chromium on the PATH: apt-get install -y chromium" >&2; exit 2; }

work=$(mktemp -d)
app=
stop() {
  if [ -n "$app" ] && kill -0 "$app" 2>/dev/null; then
    kill "$app" # SIGTERM: it stops gracefully and removes its kubeconfig
    wait "$app" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop EXIT

QUARKUS_HTTP_PORT=0 QUARKUS_MANAGEMENT_PORT=0 AGGREGATOR_EMBEDDED_KUBECONFIG="$work/embedded/kubeconfig" \
  AGGREGATOR_EMBEDDED_TICK="$tick" java -jar "$jar" >/dev/null 2>"$work/run.log" &
app=$!

# Waits (at most $1 seconds) until the shell condition $2 holds; fails with the log if the application stops or time runs out.
await() {
  local deadline=$((SECONDS + $1))
  until eval "$2"; do
    if ! kill -0 "$app" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      echo "gave up waiting for: $3; the application's log:" >&2
      cat "$work/run.log" >&2
      exit 1
    fi
    sleep 0.2
  done
}

await 180 'grep -q "HTTP endpoints on HTTP port" "$work/run.log"' "the HTTP port"
port=$(sed -n 's/.*HTTP endpoints on HTTP port \([0-9]*\).*/\1/p' "$work/run.log" | head -1)
# The fourth cluster is created at tick 10; once the page's feed has its status, the page shows all four.
await 180 'grep -q "tick 10: cluster delta created" "$work/run.log"' "the demo's tick 10"
await 30 'curl -sf "http://127.0.0.1:$port/fleet/clusters" | grep -q "default/delta"' "delta on the fleet page"

# --timeout lets the page take its snapshot from the server-sent events before the picture is taken: 3 s was too
# short on a busy 2-core machine (the picture showed the page still connecting).
rm -f "$output"
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/chromium" --window-size=1280,800 --timeout=8000 \
  --screenshot="$output" "http://localhost:$port/" >"$work/chromium.log" 2>&1 || true
[ -s "$output" ] || { echo "chromium took no picture:" >&2; cat "$work/chromium.log" >&2; exit 1; }
echo "written: $output"
