package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged application against a broker secured as deploy/kafka's Strimzi cluster is: TLS with a cluster CA, SASL
 * SCRAM-SHA-512. Its settings come from environment variables as the Deployment sets them (the JAAS line as the
 * KafkaUser's Secret holds it, the CA as a PEM file), its logs are JSON lines, and the password appears in none of them,
 * even with the Kafka clients logging their configuration.
 */
class SecureKafkaJarIT {
    private static final String USER = "status-aggregator";
    /** The broker's own account (inter-broker PLAIN, and the admin that creates the SCRAM user): not the application's. */
    private static final String BROKER_ADMIN = "broker-admin";
    private static final String BROKER_ADMIN_PASSWORD = "broker-admin-" + UUID.randomUUID();
    private static final String PASSWORD = "scram-" + UUID.randomUUID();

    private static Path directory;
    private static Path caCertificate;
    private static KafkaClusterTestKit broker;
    private static EmbeddedKubernetes api;
    private static Path kubeconfig;

    @BeforeAll
    static void secureBrokerAndApiServer() throws Exception {
        directory = Files.createTempDirectory("secure-kafka");
        Path keystore = directory.resolve("broker.p12");
        caCertificate = directory.resolve("ca.crt");
        // A self-signed certificate for localhost stands for Strimzi's cluster CA: the client trusts it as a PEM file.
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", BROKER_ADMIN_PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(),
                "-storepass", BROKER_ADMIN_PASSWORD, "-file", caCertificate.toString());

        broker = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBrokerListenerName(ListenerName.normalised("EXTERNAL"))
                // The test kit accepts SASL_PLAINTEXT at most; the protocol map below makes the listener SASL_SSL.
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setControllerSecurityProtocol(SecurityProtocol.PLAINTEXT)
                .build())
                .setConfigProp("listener.security.protocol.map", "EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT")
                // Authentication only: authorization (the ACLs of deploy/kafka) is StrimziResourcesTest's and StrimziAclsOnBrokerTest's.
                .setConfigProp("authorizer.class.name", "")
                .setConfigProp("ssl.keystore.type", "PKCS12")
                .setConfigProp("ssl.keystore.location", keystore.toString())
                .setConfigProp("ssl.keystore.password", BROKER_ADMIN_PASSWORD)
                .setConfigProp("ssl.key.password", BROKER_ADMIN_PASSWORD)
                .setConfigProp("ssl.truststore.type", "PEM")
                .setConfigProp("ssl.truststore.location", caCertificate.toString())
                .setConfigProp("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN")
                .setConfigProp("sasl.mechanism.inter.broker.protocol", "PLAIN")
                .setConfigProp("listener.name.external.plain.sasl.jaas.config", plainLogin(BROKER_ADMIN, BROKER_ADMIN_PASSWORD)
                        .replace(";", " user_" + BROKER_ADMIN + "=\"" + BROKER_ADMIN_PASSWORD + "\";"))
                .setConfigProp("listener.name.external.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setDeleteOnClose(true)
                .build();
        broker.format();
        broker.startup();
        broker.waitForReadyBrokers();

        // What Strimzi's user operator does for a KafkaUser with SCRAM-SHA-512 authentication.
        Map<String, Object> admin = new HashMap<>(tls());
        admin.put("sasl.mechanism", "PLAIN");
        admin.put("sasl.jaas.config", plainLogin(BROKER_ADMIN, BROKER_ADMIN_PASSWORD));
        try (Admin client = Admin.create(admin)) {
            client.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), PASSWORD))).all().get(30, TimeUnit.SECONDS);
            await(DEADLINE, () -> {
                try {
                    return client.describeUserScramCredentials(List.of(USER)).all().get(10, TimeUnit.SECONDS).containsKey(USER);
                } catch (Exception e) {
                    return false;
                }
            }, () -> "the broker never knew the SCRAM user " + USER);
        }

        api = EmbeddedKubernetes.start(0);
        kubeconfig = api.writeKubeconfig(directory.resolve("kubeconfig"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (api != null) {
            api.close();
        }
        if (broker != null) {
            broker.close();
        }
        // The test kit points the JVM's JAAS configuration at a file of its own for SASL listeners.
        System.clearProperty("java.security.auth.login.config");
        javax.security.auth.login.Configuration.setConfiguration(null);
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, "keytool " + args[0] + ": " + output);
    }

    private static String plainLogin(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\"" + password + "\";";
    }

    /** The JAAS line exactly as the Secret of a Strimzi KafkaUser holds it under {@code sasl.jaas.config}. */
    private static String scramLogin(String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER + "\" password=\"" + password + "\";";
    }

    private static Map<String, Object> tls() {
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", broker.bootstrapServers());
        kafka.put("security.protocol", "SASL_SSL");
        kafka.put("ssl.truststore.type", "PEM");
        kafka.put("ssl.truststore.location", caCertificate.toString());
        return kafka;
    }

    /** The application, configured through the environment as deploy/kubernetes configures it. */
    private static Process run(String password, Path log) throws IOException {
        return start(password, log, "run");
    }

    /** The packaged application running {@code command}, configured as {@link #run} is. */
    private static Process start(String password, Path log, String... command) throws IOException {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", "target/quarkus-app/quarkus-run.jar"));
        line.addAll(List.of(command));
        ProcessBuilder builder = new ProcessBuilder(line)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("KUBECONFIG", kubeconfig.toString());
        env.put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
        env.put("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
        env.put("KAFKA_SASL_JAAS_CONFIG", scramLogin(password));
        env.put("KAFKA_SSL_TRUSTSTORE_TYPE", "PEM");
        env.put("KAFKA_SSL_TRUSTSTORE_LOCATION", caCertificate.toString());
        env.put("QUARKUS_HTTP_PORT", "0");
        env.put("QUARKUS_MANAGEMENT_PORT", "0");
        env.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true");
        // The Kafka clients print their whole configuration at INFO: the place a password would leak first.
        env.put("QUARKUS_LOG_CATEGORY__ORG_APACHE_KAFKA__LEVEL", "INFO");
        return builder.start();
    }

    /** Every line of the log, each a JSON object: a line that is not would be a log collector's parse error. */
    private static List<JsonNode> records(Path log) throws IOException {
        return records(Files.readString(log, StandardCharsets.UTF_8));
    }

    private static List<JsonNode> records(String text) {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> records = new ArrayList<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode record;
            try {
                record = json.readTree(line);
            } catch (IOException e) {
                throw new AssertionError("a log line that is not JSON: " + line, e);
            }
            assertTrue(record.isObject() && record.has("level") && record.has("loggerName") && record.has("message"), line);
            records.add(record);
        }
        return records;
    }

    /** While the application runs: its last line may be half written, so only the lines it ended are read. */
    private static Optional<String> message(Path log, Pattern pattern) {
        try {
            byte[] bytes = Files.readAllBytes(log);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] != '\n') {
                end--;
            }
            for (JsonNode record : records(new String(bytes, 0, end, StandardCharsets.UTF_8))) {
                Matcher matcher = pattern.matcher(record.path("message").asText());
                if (matcher.find()) {
                    return Optional.of(matcher.groupCount() > 0 ? matcher.group(1) : matcher.group());
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    @Test
    void overTlsWithScramTheStatusIsWrittenAndThePasswordIsNeverLogged() throws Exception {
        Path log = directory.resolve("run.log");
        Process process = run(PASSWORD, log);
        try (Fleet fleet = new Fleet(api.client())) {
            Duration start = Duration.ofSeconds(90);
            await(start, () -> message(log, Pattern.compile("health and metrics on the management interface, port (\\d+)")).isPresent() || !process.isAlive(),
                    () -> "no management port logged:\n" + read(log));
            int port = Integer.parseInt(message(log, Pattern.compile("health and metrics on the management interface, port (\\d+)")).orElseThrow(
                    () -> new AssertionError("the application stopped:\n" + read(log))));
            HttpClient http = HttpClient.newHttpClient();
            await(start, () -> {
                try {
                    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                            HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            }, () -> "never ready (Kafka connected, partitions rebuilt):\n" + read(log));
            // Against a cluster, requests are reviewed by default: the metrics ask for a bearer token.
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, metrics.statusCode(), "metrics without a token against a cluster");

            // Through the whole pipeline: informers, the secured topic, aggregation, the status on the Cluster.
            fleet.createCluster("alpha", 1, 1);
            fleet.awaitCondition("alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized",
                    "First control plane not ready yet");
            fleet.controlPlaneReady("alpha", 1);
            fleet.awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");
        } finally {
            stop(process);
        }
        String text = read(log);
        List<JsonNode> records = records(log);
        assertTrue(records.stream().anyMatch(r -> r.path("message").asText().contains("sasl.jaas.config = [hidden]")),
                "the Kafka clients logged their configuration, the secret masked:\n" + text);
        assertFalse(text.contains(PASSWORD), "the password is in the log");
        assertFalse(text.contains(BROKER_ADMIN_PASSWORD), "the broker's password is in the log");
    }

    @Test
    void aWrongPasswordIsOneClearErrorAndTheProcessExits() throws Exception {
        Path log = directory.resolve("refused.log");
        String wrong = "wrong-" + UUID.randomUUID();
        assertRefusedInOneLine(run(wrong, log), log, wrong, "this application's");
    }

    @Test
    void aWrongPasswordForTheAlertBridgeIsOneClearErrorToo() throws Exception {
        Path log = directory.resolve("alerts-refused.log");
        String wrong = "wrong-" + UUID.randomUUID();
        assertRefusedInOneLine(start(wrong, log, "alerts", "--alertmanager", "http://127.0.0.1:9"), log, wrong, "the alert bridge's");
    }

    /** {@code process}, given the password {@code wrong}, exits with status 1 after one error naming the mechanism. */
    private static void assertRefusedInOneLine(Process process, Path log, String wrong, String whose) throws Exception {
        try {
            assertTrue(process.waitFor(90, TimeUnit.SECONDS), "still running with refused credentials:\n" + read(log));
        } finally {
            stop(process);
        }
        assertEquals(1, process.exitValue(), read(log));
        List<JsonNode> errors = records(log).stream().filter(r -> r.path("level").asText().equals("ERROR")
                && r.path("loggerName").asText().startsWith("io.statusaggregator")).toList();
        assertEquals(1, errors.size(), "one error of the application's own:\n" + read(log));
        String message = errors.get(0).path("message").asText();
        assertTrue(message.startsWith("Kafka at " + broker.bootstrapServers() + " refused " + whose + " credentials: "), message);
        assertTrue(message.contains("SCRAM-SHA-512"), "names the mechanism: " + message);
        assertFalse(read(log).contains(wrong), "the password is in the log");
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
