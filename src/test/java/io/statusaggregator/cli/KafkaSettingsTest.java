package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How {@code watch} and {@code alerts} find the embedded default's broker, and find that none runs. */
class KafkaSettingsTest {
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
