package io.statusaggregator.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.Config;

/** The Kafka clients' settings every command shares: each {@code kafka.*} property, without the prefix. */
final class KafkaSettings {
    /** Where the embedded default writes its broker's address, so that other commands on the machine find it. */
    static final String EMBEDDED_BOOTSTRAP_FILE = "bootstrap-servers";

    private KafkaSettings() {
    }

    /** Every {@code kafka.*} property (security included), as the Kafka clients name them. */
    static Map<String, Object> from(Config config) {
        Map<String, Object> kafka = new HashMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith("kafka.")) {
                config.getOptionalValue(name, String.class).ifPresent(value -> kafka.put(name.substring("kafka.".length()), value));
            }
        }
        return kafka;
    }

    /**
     * The embedded default's broker, when one runs on this machine and no broker is configured. Its file outlives a
     * process that was killed: a broker that does not take a connection within {@link #EMBEDDED_ANSWER} is none, so
     * that the command says at once that no broker is there instead of retrying a dead address.
     */
    static Map<String, Object> orEmbedded(Map<String, Object> kafka, Path embeddedDirectory) {
        Path file = embeddedDirectory.resolve(EMBEDDED_BOOTSTRAP_FILE);
        if (kafka.containsKey("bootstrap.servers") || !Files.isReadable(file)) {
            return kafka;
        }
        try {
            String bootstrap = Files.readString(file).trim();
            if (!answers(bootstrap)) {
                return kafka;
            }
            Map<String, Object> embedded = new HashMap<>(kafka);
            embedded.put("bootstrap.servers", bootstrap);
            return embedded;
        } catch (IOException e) {
            return kafka;
        }
    }

    private static final Duration EMBEDDED_ANSWER = Duration.ofSeconds(2);

    /** Whether the first {@code host:port} of {@code bootstrap} takes a TCP connection. */
    private static boolean answers(String bootstrap) {
        String first = bootstrap.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        if (colon <= 0) {
            return false;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))),
                    (int) EMBEDDED_ANSWER.toMillis());
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }
}
