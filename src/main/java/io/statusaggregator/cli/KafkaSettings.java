package io.statusaggregator.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** The embedded default's broker, when one runs on this machine and no broker is configured. */
    static Map<String, Object> orEmbedded(Map<String, Object> kafka, Path embeddedDirectory) {
        Path file = embeddedDirectory.resolve(EMBEDDED_BOOTSTRAP_FILE);
        if (!kafka.containsKey("bootstrap.servers") && Files.isReadable(file)) {
            try {
                Map<String, Object> embedded = new HashMap<>(kafka);
                embedded.put("bootstrap.servers", Files.readString(file).trim());
                return embedded;
            } catch (IOException e) {
                return kafka;
            }
        }
        return kafka;
    }
}
