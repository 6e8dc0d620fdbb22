package io.statusaggregator.aggregation;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The consumer group session aggregation joins with. A replica killed without leaving the group keeps its partitions
 * until its session times out, so the session is what a crash costs: 3 s here, against
 * Kafka's 45 s. A broker only takes sessions from its {@code group.min.session.timeout.ms} (Kafka's default 6 s; the
 * brokers this project ships allow 3 s); when it refuses one, aggregation joins with the next longer of
 * {@link #FALLBACKS} rather than stop.
 */
public record GroupSession(Duration timeout, Duration heartbeat) {
    /** Aggregation's own: three heartbeats to a session, sent from the client's own thread, not the poll loop. */
    public static final GroupSession DEFAULT = new GroupSession(Duration.ofSeconds(3), Duration.ofSeconds(1));
    /** Kafka's default broker minimum, then Kafka's default session: every broker with its defaults takes one. */
    static final List<GroupSession> FALLBACKS = List.of(
            new GroupSession(Duration.ofSeconds(6), Duration.ofMillis(1_500)),
            new GroupSession(Duration.ofSeconds(45), Duration.ofSeconds(3)));

    /** The session the consumer's settings ask for: theirs where set, {@link #DEFAULT} otherwise. */
    public static GroupSession of(Map<String, Object> consumer) {
        return new GroupSession(millis(consumer.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), DEFAULT.timeout),
                millis(consumer.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), DEFAULT.heartbeat));
    }

    /** The next session to try once a broker refused this one; empty when none is longer. */
    public Optional<GroupSession> longer() {
        return FALLBACKS.stream().filter(s -> s.timeout.compareTo(timeout) > 0).findFirst();
    }

    /** The consumer's settings with this session in them. */
    public Map<String, Object> applyTo(Map<String, Object> consumer) {
        Map<String, Object> with = new HashMap<>(consumer);
        with.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        with.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) heartbeat.toMillis());
        return with;
    }

    private static Duration millis(Object setting, Duration otherwise) {
        if (setting == null) {
            return otherwise;
        }
        try {
            return Duration.ofMillis(Long.parseLong(setting.toString().trim()));
        } catch (NumberFormatException e) {
            return otherwise; // the Kafka client refuses it with its own message when the consumer is made
        }
    }
}
