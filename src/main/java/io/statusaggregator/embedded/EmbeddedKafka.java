package io.statusaggregator.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker in this process: KRaft, one node that is broker and controller, both listening on loopback only
 * (plaintext, no authentication: nobody else on the machine may reach it), its logs in a temporary directory removed
 * on close. The embedded default and the tests run on it.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(60);
    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();

    private final Path directory;
    private final Map<String, Object> config;
    private final int brokerPort;
    private KafkaRaftServer server;

    private EmbeddedKafka(Path directory, int brokerPort, int controllerPort, Map<String, String> settings) {
        this.directory = directory;
        this.brokerPort = brokerPort;
        Map<String, Object> config = new HashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@" + LOOPBACK + ":" + controllerPort);
        config.put(
                "listeners",
                "PLAINTEXT://" + LOOPBACK + ":" + brokerPort + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("log.dirs", directory.resolve("data").toString());
        config.put("offsets.topic.replication.factor", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        // Aggregation's 3 s group session (aggregation.GroupSession), under Kafka's default minimum of 6 s.
        config.put("group.min.session.timeout.ms", "3000");
        // Compaction is what a rebuild relies on; run the cleaner often enough to be seen working.
        config.put("log.cleaner.backoff.ms", "1000");
        config.putAll(settings);
        this.config = Map.copyOf(config);
    }

    public static EmbeddedKafka start() throws Exception {
        return start(Map.of());
    }

    /** A broker with {@code settings} over this class's (tests: a broker as Kafka's defaults make it). */
    public static EmbeddedKafka start(Map<String, String> settings) throws Exception {
        Path directory = Files.createTempDirectory("status-aggregator-kafka");
        int[] ports = freePorts();
        EmbeddedKafka kafka = new EmbeddedKafka(directory, ports[0], ports[1], settings);
        try {
            kafka.format();
            kafka.startBroker();
            return kafka;
        } catch (Exception | Error e) {
            kafka.close(); // its directory too, whatever stopped the start
            throw e;
        }
    }

    /**
     * Two free ports, for the broker and the controller: both held open while the second is chosen, since a port
     * just closed may be handed out again at once (the broker then refuses two listeners on one port).
     */
    private static int[] freePorts() throws IOException {
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket controller = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new int[] {broker.getLocalPort(), controller.getLocalPort()};
        }
    }

    private void format() throws Exception {
        KafkaConfig kafkaConfig = new KafkaConfig(config, false);
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(kafkaConfig.nodeId())
                .setClusterId(Uuid.randomUuid().toString())
                .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(kafkaConfig.metadataLogDir());
        kafkaConfig.logDirs().forEach(formatter::addDirectory);
        formatter.run();
    }

    public String bootstrapServers() {
        return "localhost:" + brokerPort;
    }

    /** Stops the node, keeping its data: an outage as clients see one (fault tests). */
    public synchronized void stopBroker() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    /** Starts the node (again), on the same ports with the same data; returns once the broker answers. */
    public synchronized void startBroker() throws Exception {
        server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
        server.startup();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.describeCluster().nodes().get(READY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() throws Exception {
        // As it stops for good, the broker's own channel to its controller closes its NetworkClient twice and says so
        // at WARN (Kafka 4.1), at every stop of the embedded default: nothing a user can act on. The application's
        // clients are closed before the broker, and the level is put back after it.
        Logger networkClient = Logger.getLogger(NetworkClient.class.getName());
        Level level = networkClient.getLevel();
        networkClient.setLevel(Level.SEVERE);
        try {
            stopBroker();
        } finally {
            networkClient.setLevel(level);
            if (Files.exists(directory)) {
                try (Stream<Path> files = Files.walk(directory)) {
                    files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                }
            }
        }
    }
}
