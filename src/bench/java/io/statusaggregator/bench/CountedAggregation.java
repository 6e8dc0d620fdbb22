package io.statusaggregator.bench;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.ObjectStateConsumer;
import io.statusaggregator.aggregation.CoalescingWindow;
import io.statusaggregator.aggregation.DeadLetters;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One aggregating instance as {@code Pipeline} builds it (consumer settings, coalescing window, the status and
 * transition feeds on the broker), but writing statuses to a {@link CountingDestination}: aggregation measured
 * without an API server. No echo of a write ever comes back, so the echo timeout is set beyond any run.
 */
final class CountedAggregation implements AutoCloseable {
    /** The coalescing window's longest: the application's default, unless {@code -Dbench.coalescing-longest-ms} says. */
    private static final Duration LONGEST_WINDOW = Duration.ofMillis(
            Long.getLong("bench.coalescing-longest-ms", CoalescingWindow.DEFAULT_LONGEST.toMillis()));
    /** The rebuild's rehearsal at most, as the application's default, when {@link #rehearsingFirst} asks for one. */
    private static final Duration REHEARSAL = Duration.ofSeconds(30);
    final CountingDestination sink = new CountingDestination();
    final Aggregator aggregator;
    /** Status changes the transitions feed has taken: the feeds still publish after the last computation. */
    private final java.util.concurrent.atomic.AtomicLong publishedChanges = new java.util.concurrent.atomic.AtomicLong();
    private final KafkaProducer<String, String> statuses;
    private final KafkaProducer<String, CloudEvent> transitions;
    private final DeadLetters deadLetters;

    /**
     * @param liveFromStart every record is computed as it comes, as if it arrived after the instance had rebuilt:
     *                      the consumer reports the partitions' ends as their beginnings, so nothing is rebuilt
     * @param published     the status topic's last statuses, asked for at each assignment as the pipeline's are
     */
    CountedAggregation(Bench.Broker broker, String topic, String run, boolean liveFromStart, Compatibility compatibility,
            Duration coalescingWindow, java.util.function.Supplier<Map<String, ClusterStatus>> published) {
        Map<String, Object> consumer = ObjectStateConsumer.properties(broker.kafka(), "bench-" + run);
        Map<String, Object> producer = new HashMap<>(broker.kafka());
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        statuses = new KafkaProducer<>(producer);
        Map<String, Object> events = new HashMap<>(producer);
        events.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName());
        transitions = new KafkaProducer<>(events);
        Map<String, Object> dead = new HashMap<>(producer);
        dead.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        dead.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        deadLetters = new DeadLetters(new KafkaProducer<>(dead), "dead-letters-" + run);
        // One admin client, as the pipeline's start has (measured: no difference to figure 5's fresh JVM).
        broker.createTopics(Map.of("statuses-" + run, true, "transitions-" + run, false));
        aggregator = new Aggregator(consumer, properties -> liveFromStart ? new WithoutRebuild(properties) : new KafkaConsumer<>(properties),
                deadLetters, new Aggregator.Settings(topic, coalescingWindow, LONGEST_WINDOW, Duration.ofHours(1),
                        REHEARSAL, FleetWorkload.CAPI),
                () -> compatibility, () -> ManagementCluster.UNKNOWN,
                outcomes -> new StatusWriter(sink, new StatusWriter.Settings(4, Duration.ofMillis(200), Duration.ofSeconds(30)), outcomes),
                new StatusFeed(statuses, "statuses-" + run), new TransitionFeed(transitions, "transitions-" + run), published,
                Clock.fixed(TopicFigures.STATUS_TIME, java.time.ZoneOffset.UTC));
        aggregator.onPublished(change -> publishedChanges.incrementAndGet());
    }

    /** Status changes published so far (their events taken by the broker). */
    long published() {
        return publishedChanges.get();
    }

    /** Before {@link #start}: the rebuild rehearsed before joining, as a replica does when others serve the group. */
    void rehearsingFirst() {
        aggregator.rehearsingFirst(() -> true);
    }

    void start() {
        aggregator.start();
    }

    /** Waits (2 minutes at most) until the partitions are read to the end they had when assigned: the rebuild. */
    void awaitRebuilt() {
        if (!Bench.await(120_000, aggregator::live)) {
            throw new IllegalStateException("no rebuild within 120 s: " + aggregator.progress());
        }
    }

    /** Waits (2 minutes at most) until {@code clusters} computations were made: after a rebuild, each cluster once. */
    void awaitComputed(int clusters) {
        if (!Bench.await(120_000, () -> aggregator.computations() >= clusters)) {
            throw new IllegalStateException("clusters not computed within 120 s: " + aggregator.progress());
        }
    }

    @Override
    public void close() {
        aggregator.close();
        statuses.close();
        transitions.close();
        deadLetters.close();
    }

    /** A consumer whose partitions end where they begin: the aggregator rebuilds nothing and computes every record. */
    private static final class WithoutRebuild extends KafkaConsumer<byte[], java.nio.ByteBuffer> {
        WithoutRebuild(Map<String, Object> properties) {
            super(properties);
        }

        @Override
        public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
            return partitions.stream().collect(Collectors.toMap(p -> p, p -> 0L));
        }

        @Override
        public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
            return endOffsets(partitions);
        }
    }
}
