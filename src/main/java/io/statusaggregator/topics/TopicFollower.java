package io.statusaggregator.topics;

import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * One topic read from its beginning and followed, on a daemon thread of its own, by a reader that wants all of it:
 * every partition assigned (no consumer group), the partitions listed again now and then to pick up new ones, each
 * batch handed over in the topic's order. The fleet page and the webhook's version history read the feeds so.
 * A record that does not deserialize is skipped with a line; the broker away is retried, keeping what was read.
 */
public final class TopicFollower<V> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(TopicFollower.class);
    private static final Duration POLL = Duration.ofMillis(500);
    /** How often the partitions are listed again: partitions are rarely added. */
    private static final Duration PARTITION_CHECK = Duration.ofSeconds(30);
    /** How often a topic that does not exist yet is looked for. */
    private static final Duration TOPIC_CHECK = Duration.ofSeconds(1);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final String reader;
    private final String topic;
    private final KafkaConsumer<String, V> consumer;
    private final Consumer<List<ConsumerRecord<String, V>>> batch;
    private final Thread thread;
    /** Each partition's end when it was assigned, until the reader has reached it. */
    private final Map<TopicPartition, Long> toReach = new HashMap<>();
    private volatile boolean caughtUp;
    private volatile boolean running = true;

    /**
     * @param reader who reads, in its log lines, its thread's name and its Kafka client id
     *     ({@code fleet-page-statuses})
     * @param batch told each batch of records, on the follower's thread
     */
    public TopicFollower(Map<String, Object> kafka, String reader, String topic, Deserializer<V> values,
            Consumer<List<ConsumerRecord<String, V>>> batch) {
        this.reader = reader;
        this.topic = topic;
        this.batch = batch;
        Map<String, Object> props = new HashMap<>(kafka);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Asking for a missing topic must not create it (uncompacted): the pipeline creates the topics.
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-" + reader + "-" + ProcessHandle.current().pid());
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), values);
        this.thread = DaemonThreads.named(reader).newThread(this::run);
    }

    public synchronized TopicFollower<V> start() {
        if (running) {
            thread.start();
        }
        return this;
    }

    /** Whether the follower has read every partition up to where it ended when the partition was found. */
    public boolean caughtUp() {
        return caughtUp;
    }

    private void run() {
        Set<TopicPartition> assigned = new HashSet<>();
        long nextCheck = System.nanoTime();
        try {
            while (running) {
                try {
                    if (System.nanoTime() - nextCheck >= 0) {
                        assignNew(assigned);
                        nextCheck = System.nanoTime() + (assigned.isEmpty() ? TOPIC_CHECK : PARTITION_CHECK).toNanos();
                    }
                    if (assigned.isEmpty()) {
                        Thread.sleep(200);
                        continue;
                    }
                    ConsumerRecords<String, V> records = consumer.poll(POLL);
                    if (!records.isEmpty()) {
                        List<ConsumerRecord<String, V>> list = new ArrayList<>(records.count());
                        records.forEach(list::add);
                        batch.accept(list);
                    }
                    if (!caughtUp) {
                        toReach.entrySet().removeIf(end -> consumer.position(end.getKey()) >= end.getValue());
                        caughtUp = toReach.isEmpty();
                    }
                } catch (RecordDeserializationException e) {
                    LOG.warnf("%s: skipped a record of topic %s at %s offset %d: %s",
                            reader, topic, e.topicPartition(), e.offset(), e.getMessage());
                    consumer.seek(e.topicPartition(), e.offset() + 1);
                } catch (WakeupException e) {
                    return;
                } catch (RuntimeException e) {
                    if (!running) {
                        return;
                    }
                    // The broker away: the reader keeps what it has, and serves it meanwhile.
                    LOG.warnf("%s: reading topic %s failed, retrying: %s", reader, topic, e.toString());
                    Thread.sleep(RETRY.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    private void assignNew(Set<TopicPartition> assigned) {
        List<TopicPartition> added = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).filter(p -> !assigned.contains(p)).toList();
        if (added.isEmpty()) {
            return;
        }
        assigned.addAll(added);
        // assign() keeps the positions of partitions already assigned; only the new ones start from the beginning.
        consumer.assign(assigned);
        consumer.seekToBeginning(added);
        toReach.putAll(consumer.endOffsets(added, Duration.ofSeconds(10)));
    }

    @Override
    public void close() {
        synchronized (this) {
            running = false;
            if (!thread.isAlive()) {
                consumer.close(Duration.ZERO); // never started: its loop does not close it
                return;
            }
        }
        // Wakes the follower out of poll or partitionsFor; an interrupt would leave the consumer unable to close.
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(3).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
