package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What happened to each cluster during a churn, step by step, for the slow changes' log: when the harness drew a step,
 * when its lane ran it and each of its writes was answered, when ingest's record of each object reached the
 * object-state topic and the aggregator's status the status topic, and when the Cluster showed a status. It tells
 * where a change that took seconds spent them. With them, the harness's own JVM's collector pauses over 50 ms: that
 * JVM holds the API server (and, for the figures run in process, the pipeline), which they stop. Times are
 * {@code System.nanoTime()}; the topics' record timestamps and the pauses' starts (epoch milliseconds) are brought onto
 * that clock.
 */
final class ClusterTimeline implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The latest notes kept per cluster: a churn makes a few dozen per cluster a minute. */
    private static final int KEPT = 400;
    /** Where the notes that concern every cluster are kept. */
    private static final String EVERY_CLUSTER = "";
    private static final long PAUSES_NOTED_FROM_MILLIS = 50;

    private record Note(long nanos, String what) {
    }

    private final Map<String, ArrayDeque<Note>> notes = new ConcurrentHashMap<>();
    private final long epochMillisAtZeroNanos = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
    private final List<Thread> tails = new ArrayList<>();
    private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private final List<Runnable> unsubscribe = new ArrayList<>();

    ClusterTimeline() {
        long jvmStartedAt = ManagementFactory.getRuntimeMXBean().getStartTime();
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!(collector instanceof NotificationEmitter emitter)) {
                continue;
            }
            NotificationListener pauses = (notification, handback) -> {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                long millis = info.getGcInfo().getDuration();
                if (!info.getGcName().contains("Concurrent") && millis >= PAUSES_NOTED_FROM_MILLIS) { // G1's concurrent cycle stops nothing
                    note(EVERY_CLUSTER, (jvmStartedAt + info.getGcInfo().getStartTime() - epochMillisAtZeroNanos) * 1_000_000L,
                            "the harness's JVM paused %d ms (%s, %s)".formatted(millis, info.getGcName(), info.getGcCause()));
                }
            };
            emitter.addNotificationListener(pauses, null, null);
            unsubscribe.add(() -> {
                try {
                    emitter.removeNotificationListener(pauses);
                } catch (ListenerNotFoundException e) {
                    // gone already
                }
            });
        }
    }

    void note(String cluster, String what) {
        note(cluster, System.nanoTime(), what);
    }

    void note(String cluster, long nanos, String what) {
        ArrayDeque<Note> of = notes.computeIfAbsent(cluster, c -> new ArrayDeque<>());
        synchronized (of) {
            if (of.size() == KEPT) {
                of.removeFirst();
            }
            of.addLast(new Note(nanos, what));
        }
    }

    /** {@code cluster}'s notes from {@code fromNanos} to {@code toNanos}, in milliseconds from {@code fromNanos}. */
    String of(String cluster, long fromNanos, long toNanos) {
        List<Note> copy = new ArrayList<>();
        for (String key : List.of(cluster, EVERY_CLUSTER)) {
            ArrayDeque<Note> of = notes.getOrDefault(key, new ArrayDeque<>());
            synchronized (of) {
                copy.addAll(of);
            }
        }
        copy.sort(java.util.Comparator.comparingLong(Note::nanos));
        StringBuilder text = new StringBuilder();
        for (Note note : copy) {
            if (note.nanos() >= fromNanos && note.nanos() <= toNanos) {
                text.append(String.format("%n    %+8.1f ms  %s", (note.nanos() - fromNanos) / 1e6, note.what()));
            }
        }
        return text.toString();
    }

    /**
     * Where a change of {@code cluster} written at {@code writtenAt} and shown at {@code shownAt} spent its time, in
     * milliseconds: to ingest's record of it on the object-state topic (produced), from there to the status topic's
     * record of its status (produced after the write), from there to the Cluster showing it; null where the notes lack
     * one. The record taken is that of the change's last write (its resourceVersion; a deletion's tombstone).
     */
    double[] stages(String cluster, long writtenAt, long shownAt) {
        ArrayDeque<Note> of = notes.get(cluster);
        if (of == null) {
            return null;
        }
        List<Note> copy;
        synchronized (of) {
            copy = new ArrayList<>(of);
        }
        long status = Long.MAX_VALUE;
        for (Note note : copy) {
            if (note.what().startsWith("status topic: ") && note.what().endsWith("(produced)") && note.nanos() >= writtenAt
                    && note.nanos() < status) {
                status = note.nanos();
            }
        }
        // The change's last write, answered just before its clock started: its record is the one of its version.
        String version = null;
        for (Note note : copy) {
            int rv = note.what().lastIndexOf("(rv ");
            if (note.what().startsWith("written: ") && note.nanos() <= writtenAt && rv >= 0) {
                version = " rv " + note.what().substring(rv + 4, note.what().length() - 1) + " (produced)";
            }
        }
        long record = Long.MIN_VALUE;
        for (Note note : copy) {
            boolean ofTheChange = version != null ? note.what().endsWith(version)
                    : note.what().endsWith("deleted (produced)") && note.nanos() >= writtenAt - 50_000_000L;
            if (note.what().startsWith("topic: ") && ofTheChange && note.nanos() <= status) {
                record = note.nanos();
                break;
            }
        }
        if (status == Long.MAX_VALUE || record == Long.MIN_VALUE || status > shownAt + 1_000_000_000L) {
            return null;
        }
        return new double[] {(record - writtenAt) / 1e6, (status - record) / 1e6, (shownAt - status) / 1e6};
    }

    /**
     * Follows the object-state topic {@code objectStates} and the status topic {@code statuses} from their ends: each
     * record is noted on its cluster when it was produced (its timestamp) and when it was read here.
     */
    void follow(Map<String, Object> kafka, String objectStates, String statuses) {
        Properties properties = new Properties();
        properties.putAll(kafka);
        properties.put("key.deserializer", ByteArrayDeserializer.class.getName());
        properties.put("value.deserializer", ByteArrayDeserializer.class.getName());
        properties.put("enable.auto.commit", "false");
        properties.put("fetch.max.wait.ms", "10");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties);
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(objectStates, statuses)) {
            consumer.partitionsFor(topic, Duration.ofSeconds(10)).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        consumers.add(consumer);
        Thread tail = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        long read = System.nanoTime();
                        noteRecord(record, record.topic().equals(objectStates), read);
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close(Duration.ofSeconds(1));
            }
        }, "timeline-" + objectStates);
        tail.setDaemon(true);
        tail.start();
        tails.add(tail);
    }

    private void noteRecord(ConsumerRecord<byte[], byte[]> record, boolean objectState, long readNanos) {
        if (record.key() == null) {
            return;
        }
        String key = new String(record.key(), StandardCharsets.UTF_8);
        long producedNanos = (record.timestamp() - epochMillisAtZeroNanos) * 1_000_000L;
        String cluster;
        String what;
        if (objectState) {
            String[] parts = key.split("/");
            cluster = parts[0];
            what = "topic: " + parts[1].substring(0, parts[1].indexOf('.')) + " " + parts[parts.length - 1] + " "
                    + (record.value() == null ? "deleted" : "rv " + field(record.value(), "/metadata/resourceVersion"));
        } else {
            cluster = key.substring(key.indexOf('/') + 1);
            what = "status topic: " + (record.value() == null ? "deleted"
                    : io.statusaggregator.model.json.EksaClusterReader.statusOf(record.value()).map(StatusCheck::signature).orElse("(not read)"));
        }
        note(cluster, producedNanos, what + " (produced)");
        note(cluster, readNanos, what + " (read by the harness, " + (readNanos - producedNanos) / 1_000_000 + " ms later)");
    }

    private static String field(byte[] json, String pointer) {
        try {
            JsonNode node = JSON.readTree(json).at(pointer);
            return node.isMissingNode() ? "?" : node.asText();
        } catch (IOException e) {
            return "(not JSON)";
        }
    }

    @Override
    public void close() throws InterruptedException {
        unsubscribe.forEach(Runnable::run);
        consumers.forEach(KafkaConsumer::wakeup);
        for (Thread tail : tails) {
            tail.join(5_000);
        }
    }
}
