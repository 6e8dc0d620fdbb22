package io.statusaggregator;

import io.statusaggregator.aggregation.DeadLetters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jboss.logging.Logger;

/**
 * The pipeline's four topics, created where missing (where {@code aggregator.topics.create} is on). The object-state
 * and status topics compacted: each holds the latest state per key, which is what a rebuild reads. The transitions
 * topic keeps every event, for the time the broker's retention allows; the dead-letter topic every record sent there,
 * for {@link #DEAD_LETTER_RETENTION}.
 */
final class PipelineTopics {
    private static final Logger LOG = Logger.getLogger(PipelineTopics.class);

    /** How long the dead-letter topic keeps a record, where this application creates it: time to look at it. */
    static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(7);

    private PipelineTopics() {
    }

    /** Creates those of the settings' topics the broker does not have; one created meanwhile by another is fine. */
    static void createMissing(Pipeline.Settings settings, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(new HashMap<>(settings.kafka()))) {
            Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String topic : List.of(
                    settings.objectStatesTopic(),
                    settings.statusesTopic(),
                    settings.transitionsTopic(),
                    settings.deadLettersTopic())) {
                if (!existing.contains(topic)) {
                    missing.add(new NewTopic(topic, settings.partitions(), settings.replicationFactor())
                            .configs(configs(settings, topic)));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    LOG.infof("created topics %s", missing.stream().map(NewTopic::name).toList());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
                awaitLeaders(admin, missing.stream().map(NewTopic::name).toList(), timeout);
            }
        }
    }

    /**
     * Waits until every partition of {@code topics} has a leader. An idempotent producer that sends at once to a
     * partition its leader does not know yet can have a first request refused and a later one taken, and then retries
     * the first in vain until it expires, losing its records (KAFKA-15591, fixed in brokers after 4.1): more likely
     * with linger.ms 0, where each record is a request of its own.
     */
    private static void awaitLeaders(Admin admin, List<String> topics, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (described.values().stream().flatMap(topic -> topic.partitions().stream())
                        .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty())) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                // Created, and not known yet to the broker that answered: as good as no leader.
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new TimeoutException("the partitions of topics " + topics + " have no leader yet");
            }
            Thread.sleep(20);
        }
    }

    private static Map<String, String> configs(Pipeline.Settings settings, String topic) {
        if (topic.equals(settings.deadLettersTopic())) {
            return Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG,
                    TopicConfig.CLEANUP_POLICY_DELETE,
                    TopicConfig.RETENTION_MS_CONFIG,
                    Long.toString(DEAD_LETTER_RETENTION.toMillis()),
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                    Integer.toString(DeadLetters.MAX_LETTER_BYTES));
        }
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG,
                topic.equals(settings.transitionsTopic())
                        ? TopicConfig.CLEANUP_POLICY_DELETE
                        : TopicConfig.CLEANUP_POLICY_COMPACT);
    }
}
