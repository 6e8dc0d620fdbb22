#!/usr/bin/env bash
# A real Kafka broker on this machine, for development: Apache Kafka 4.1.1 (the 4.1 line of the application's clients, 4.1.2),
# one KRaft node that is broker and controller, listening on localhost. Everything comes from Maven Central through
# Maven (org.apache.kafka:kafka_2.13 and a log4j binding, copied once into a cache directory); no download script,
# no container.
#
#   deploy/kafka/run-broker.sh                 # localhost:9092, data in a temporary directory removed at exit
#   deploy/kafka/run-broker.sh --port 19092    # another port (the controller takes the next one)
#   deploy/kafka/run-broker.sh --data DIR      # keep the data in DIR across runs
#
# Then, in another terminal:  KAFKA_BOOTSTRAP_SERVERS=localhost:9092 java -jar target/quarkus-app/quarkus-run.jar
# (the application creates its topics there: aggregator.topics.create defaults to true). Ctrl-C stops the broker.
#
# Plain text, no authentication: the TLS, SCRAM and ACL setup of a real cluster is kafka.yaml and users.yaml.
#
# Environment: KAFKA_DEV_CACHE (default ~/.cache/status-aggregator/kafka-4.1.1) holds the jars; JAVA (default: java
# on PATH, 17 or newer); KAFKA_HEAP_OPTS (default -Xmx512m).
set -euo pipefail

readonly KAFKA_VERSION=4.1.1
# The log4j 2 version Kafka 4.1.1 ships with; Kafka logs through SLF4J 1.7, hence log4j-slf4j-impl.
readonly LOG4J_VERSION=2.24.3

port=9092
data=""
usage() {
    sed -n '2,/^set /{/^set /!p}' "$0" | sed 's/^# \{0,1\}//'
}
while [[ $# -gt 0 ]]; do
    case "$1" in
        --port) [[ $# -ge 2 ]] || { echo "error: --port needs a value" >&2; exit 2; }; port="$2"; shift 2 ;;
        --data) [[ $# -ge 2 ]] || { echo "error: --data needs a directory" >&2; exit 2; }; data="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if ! [[ "$port" =~ ^[0-9]+$ ]] || (( port < 1024 || port > 65534 )); then
    echo "error: --port takes a number from 1024 to 65534, got '$port'" >&2
    exit 2
fi
controller_port=$((port + 1))

java_cmd="${JAVA:-java}"
if ! command -v "$java_cmd" >/dev/null 2>&1; then
    echo "error: no '$java_cmd' on PATH: Kafka $KAFKA_VERSION needs Java 17 or newer (set JAVA=/path/to/java)" >&2
    exit 1
fi
java_major=$("$java_cmd" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
if [[ -z "$java_major" || "$java_major" -lt 17 ]]; then
    echo "error: Kafka $KAFKA_VERSION needs Java 17 or newer; '$java_cmd' is ${java_major:-of unknown version}" >&2
    exit 1
fi

port_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
for p in "$port" "$controller_port"; do
    if port_open "$p"; then
        echo "error: port $p is taken on this machine (another broker?); choose another with --port" >&2
        exit 1
    fi
done

# The jars, once: a throwaway POM naming the broker and the logging binding, and Maven's copy-dependencies.
cache="${KAFKA_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/status-aggregator/kafka-$KAFKA_VERSION}"
lib="$cache/lib"
if [[ ! -f "$lib/.complete" ]]; then
    if ! command -v mvn >/dev/null 2>&1; then
        echo "error: the Kafka jars are not in $lib yet and there is no 'mvn' on PATH to fetch them" >&2
        exit 1
    fi
    echo "Fetching Kafka $KAFKA_VERSION from Maven Central into $lib ..." >&2
    mkdir -p "$cache"
    rm -rf "$lib"
    cat > "$cache/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.status-aggregator</groupId>
  <artifactId>dev-kafka-broker</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
    if ! mvn -B -f "$cache/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
            -DincludeScope=runtime -DoutputDirectory="$lib" > "$cache/fetch.log" 2>&1; then
        grep -E '^\[ERROR\]' "$cache/fetch.log" | head -20 >&2 || true
        echo "error: Maven could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION (is Maven Central reachable?); see $cache/fetch.log" >&2
        exit 1
    fi
    if ! ls "$lib"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null 2>&1; then
        echo "error: $lib has no kafka_2.13-$KAFKA_VERSION.jar after the fetch" >&2
        exit 1
    fi
    touch "$lib/.complete"
fi
classpath="$lib/*"

# Logs: warnings and errors, plus the line that says the broker started.
log4j="$cache/log4j2.properties"
cat > "$log4j" <<'EOF'
status = warn
shutdownHook = disable
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p [%c{1}] %m%n
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = info
# A fresh node says that its metadata log is empty: expected here.
logger.quorum.name = org.apache.kafka.controller.QuorumController
logger.quorum.level = error
# At Ctrl-C the broker closes a client twice and says so: not for the user.
logger.network.name = org.apache.kafka.clients.NetworkClient
logger.network.level = error
EOF

keep_data=true
if [[ -z "$data" ]]; then
    data=$(mktemp -d "${TMPDIR:-/tmp}/status-aggregator-kafka.XXXXXX")
    keep_data=false
fi
mkdir -p "$data/logs"

broker=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    if [[ -n "$broker" ]] && kill -0 "$broker" 2>/dev/null; then
        kill -TERM "$broker" 2>/dev/null || true
        # Kafka shuts down in a few seconds; one that hangs is killed after 30.
        local waited=0
        while kill -0 "$broker" 2>/dev/null && (( waited < 300 )); do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -KILL "$broker" 2>/dev/null || true
        wait "$broker" 2>/dev/null || true
    fi
    if [[ "$keep_data" == false ]]; then
        rm -rf "$data"
    fi
}
trap cleanup EXIT
trap 'echo "Stopping the broker ..." >&2; exit 0' INT TERM

config="$data/server.properties"
cat > "$config" <<EOF
# Written by deploy/kafka/run-broker.sh: one KRaft node, broker and controller, on localhost.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:$controller_port
listeners=PLAINTEXT://localhost:$port,CONTROLLER://localhost:$controller_port
advertised.listeners=PLAINTEXT://localhost:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data/logs
# One broker: one copy of everything.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# As in kafka.yaml: the aggregator's 3 s consumer group session (Kafka's default minimum is 6 s).
group.min.session.timeout.ms=3000
# As in kafka.yaml: topics are created on purpose (the application creates its own, compacted where it must be),
# never by a client asking for one that does not exist.
auto.create.topics.enable=false
EOF

export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx512m}"
run_java() {
    # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS holds several options
    "$java_cmd" $KAFKA_HEAP_OPTS -Dlog4j2.configurationFile="$log4j" -cp "$classpath" "$@"
}

if [[ ! -f "$data/logs/meta.properties" ]]; then
    cluster_id=$(run_java kafka.tools.StorageTool random-uuid)
    if ! run_java kafka.tools.StorageTool format --standalone --cluster-id "$cluster_id" --config "$config" >/dev/null; then
        echo "error: formatting the storage in $data/logs failed" >&2
        exit 1
    fi
fi


# Started here rather than through run_java, so that $! is the JVM itself (a function in the background would be a
# subshell, and stopping it would leave the JVM running).
# shellcheck disable=SC2086 # KAFKA_HEAP_OPTS holds several options
"$java_cmd" $KAFKA_HEAP_OPTS -Dlog4j2.configurationFile="$log4j" -cp "$classpath" kafka.Kafka "$config" &
broker=$!

deadline=$((SECONDS + 60))
until port_open "$port"; do
    if ! kill -0 "$broker" 2>/dev/null; then
        wait "$broker" || true
        broker=""
        echo "error: the broker stopped before it listened on port $port (its log is above)" >&2
        exit 1
    fi
    if (( SECONDS >= deadline )); then
        echo "error: the broker did not listen on port $port within 60 s" >&2
        exit 1
    fi
    sleep 0.2
done
where="data in $data"
[[ "$keep_data" == true ]] || where="$where, removed at exit"
echo "Kafka $KAFKA_VERSION is up at localhost:$port ($where)." >&2
echo "  KAFKA_BOOTSTRAP_SERVERS=localhost:$port java -jar target/quarkus-app/quarkus-run.jar" >&2
echo "Ctrl-C stops it." >&2

set +e
wait "$broker"
status=$?
set -e
broker=""
echo "error: the broker exited (status $status)" >&2
exit 1
