package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How {@code watch} and {@code alerts} find the embedded default's broker, and find that none runs; how every command
 * checks the {@code kafka.*} settings before it makes a client.
 */
class KafkaSettingsTest {
    @Test
    void aSettingTheClientsWouldRefuseIsNamedBeforeAnyClientIsMade() {
        assertEquals(Optional.empty(), KafkaSettings.problem(Map.of()), "nothing set: the commands' defaults apply");
        assertEquals(Optional.empty(), KafkaSettings.problem(Map.of("bootstrap.servers", "kafka-0.kafka:9092, 10.0.0.7:9093",
                "security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "max.poll.records", "500",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"s3cret\";")));
        assertEquals(Optional.empty(), KafkaSettings.problem(Map.of("bootstrap.servers", "[::1]:9092")), "an IPv6 address");

        String notANumber = KafkaSettings.problem(Map.of("bootstrap.servers", "localhost:9092", "max.poll.records", "abc")).orElseThrow();
        assertTrue(notANumber.contains("max.poll.records") && notANumber.contains("abc"), notANumber);
        String protocol = KafkaSettings.problem(Map.of("security.protocol", "SASL_PLAIN")).orElseThrow();
        assertTrue(protocol.contains("security.protocol") && protocol.contains("SASL_PLAIN"), protocol);
        for (String servers : new String[] {"not-a-host:bad", "kafka", "kafka:", "http://kafka:9092/"}) {
            String address = KafkaSettings.problem(Map.of("bootstrap.servers", servers)).orElseThrow(() -> new AssertionError(servers));
            assertTrue(address.startsWith("bootstrap.servers is a comma-separated list of host:port"), address);
        }
        // A password is never part of the message, even next to a bad setting.
        String beside = KafkaSettings.problem(Map.of("sasl.jaas.config", "x password=\"s3cret\";", "request.timeout.ms", "soon"))
                .orElseThrow();
        assertTrue(beside.contains("request.timeout.ms"), beside);
        assertFalse(beside.contains("s3cret"), beside);
    }

    /** {@code watch} and {@code alerts} stop before they start, in one line, without a broker to read from. */
    @Test
    void aFeedReaderWithoutABrokerOrWithABadSettingIsToldWhy() {
        assertEquals(Optional.of("no Kafka broker: set kafka.bootstrap.servers (KAFKA_BOOTSTRAP_SERVERS), or run the embedded default "
                + "on this machine"), KafkaSettings.feedReaderProblem(Map.of("max.poll.records", "10")));
        String bad = KafkaSettings.feedReaderProblem(Map.of("bootstrap.servers", "kafka:9092", "max.poll.records", "abc")).orElseThrow();
        assertTrue(bad.startsWith("a Kafka setting (kafka.*) is invalid: ") && bad.contains("max.poll.records"), bad);
        assertEquals(Optional.empty(), KafkaSettings.feedReaderProblem(Map.of("bootstrap.servers", "kafka:9092")));
    }

    @Test
    void aSettingNoKafkaClientKnowsIsTold() {
        assertEquals(Set.of("bootstrap.server", "max.poll.record"), KafkaSettings.unknown(Map.of("bootstrap.server", "kafka:9092",
                "max.poll.record", "10", "security.protocol", "SSL", "fetch.max.bytes", "1", "linger.ms", "5", "retries", "3")));
    }

    @Test
    void aRunningEmbeddedDefaultsBrokerIsFoundAndALeftoverFileOfADeadOneIsNot() throws Exception {
        Path directory = Files.createTempDirectory("embedded");
        Path file = directory.resolve(KafkaSettings.EMBEDDED_BOOTSTRAP_FILE);
        int port;
        try (ServerSocket broker = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = broker.getLocalPort();
            Files.writeString(file, "localhost:" + port + "\n");
            assertEquals(Map.of("bootstrap.servers", "localhost:" + port), KafkaSettings.orEmbedded(Map.of(), directory));
            assertEquals(Map.of("bootstrap.servers", "elsewhere:9092"),
                    KafkaSettings.orEmbedded(Map.of("bootstrap.servers", "elsewhere:9092"), directory), "a configured broker wins");
        }
        // The process that wrote the file was killed: its port takes no connection any more.
        long start = System.nanoTime();
        assertEquals(Map.of(), KafkaSettings.orEmbedded(Map.of(), directory), "no broker, so the command says so at once");
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "within seconds");
        Files.delete(file);
        assertEquals(Map.of(), KafkaSettings.orEmbedded(Map.of(), directory));
    }
}
