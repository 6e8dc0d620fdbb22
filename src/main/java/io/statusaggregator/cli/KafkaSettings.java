package io.statusaggregator.cli;

import io.statusaggregator.embedded.StateDirectory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
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
                config.getOptionalValue(name, String.class)
                        .ifPresent(value -> kafka.put(name.substring("kafka.".length()), value));
            }
        }
        return kafka;
    }

    /**
     * What is wrong with {@code kafka}, in one line, if anything: each setting's value as the Kafka clients check it
     * (a number, a known protocol, a class that loads), and {@code bootstrap.servers} as a list of host:port. Checked
     * before any client is made: a client made with a bad setting fails only once a command is under way, and a
     * malformed address is otherwise retried as if the broker were down. Kafka's messages name the setting and its
     * value, except a password's.
     */
    static Optional<String> problem(Map<String, Object> kafka) {
        Map<String, Object> clients = new HashMap<>(kafka);
        // Set by each command itself: present here only so that the clients' definitions do not miss them.
        clients.putIfAbsent(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        clients.putIfAbsent(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        clients.putIfAbsent(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        clients.putIfAbsent(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        clients.putIfAbsent(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "");
        try {
            for (ConfigDef definition : DEFINITIONS) {
                definition.parse(clients);
            }
        } catch (ConfigException e) {
            return Optional.of(e.getMessage());
        }
        Object servers = kafka.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        if (servers != null) {
            for (String server : String.valueOf(servers).split(",")) {
                String address = server.strip();
                if (Utils.getHost(address) == null || Utils.getPort(address) == null) {
                    return Optional.of("bootstrap.servers is a comma-separated list of host:port, and \"" + address
                            + "\" is not one");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The one line that says Kafka at {@code kafka}'s bootstrap servers refused {@code whose} credentials: Kafka's own
     * message names the mechanism, never a password.
     */
    static String refusedCredentials(Map<String, Object> kafka, String whose, AuthenticationException refused) {
        return "Kafka at " + kafka.get("bootstrap.servers") + " refused " + whose + " credentials: "
                + refused.getMessage()
                + ". Check kafka.security.protocol, kafka.sasl.mechanism, kafka.sasl.jaas.config (the user and"
                + " password) and kafka.ssl.truststore.location.";
    }

    /** The settings none of the Kafka clients knows: a misspelt name is otherwise ignored without a word. */
    static Set<String> unknown(Map<String, Object> kafka) {
        Set<String> unknown = new TreeSet<>(kafka.keySet());
        for (ConfigDef definition : DEFINITIONS) {
            unknown.removeAll(definition.names());
        }
        return unknown;
    }

    private static final List<ConfigDef> DEFINITIONS = List.of(ConsumerConfig.configDef(), ProducerConfig.configDef(),
            AdminClientConfig.configDef());

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
            if (StateDirectory.refusal(embeddedDirectory).isPresent()) {
                return kafka; // a broker address someone else could have left there is not trusted
            }
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

    /**
     * What stops a command that reads the feeds of a running aggregator ({@code watch}, {@code alerts}) before it
     * starts, in one line: a setting the clients refuse, or no broker configured nor embedded here.
     */
    static Optional<String> feedReaderProblem(Map<String, Object> kafka) {
        Optional<String> badSetting = problem(kafka);
        if (badSetting.isPresent()) {
            return Optional.of("a Kafka setting (kafka.*) is invalid: " + badSetting.get());
        }
        if (!kafka.containsKey(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
            return Optional.of(
                    "no Kafka broker: set kafka.bootstrap.servers (KAFKA_BOOTSTRAP_SERVERS), or run the embedded"
                            + " default on this machine");
        }
        return Optional.empty();
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
            socket.connect(
                    new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))),
                    (int) EMBEDDED_ANSWER.toMillis());
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }
}
