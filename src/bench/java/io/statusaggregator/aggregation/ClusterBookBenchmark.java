package io.statusaggregator.aggregation;

import io.statusaggregator.bench.FleetRecords;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Figure 9: the aggregation thread's book-keeping per record, without a broker: the records of figure 1's fleet (its
 * initial objects, then rolling upgrades) applied to a {@link ClusterBook} live from the start, as figure 1's passes
 * are, in polls of the consumer's size, with the clusters due computed after each poll and every status written at
 * once. Its time is that of the aggregation thread's book-keeping: reading keys, keeping records unread, coalescing,
 * reading each cluster's latest records and computing its status. Figure 1's CPU per event adds Kafka's client, the
 * feeds and the collector, and varies by half between runs of the same code; passes here vary by about a sixth (the
 * thread is on a CPU the whole pass: its CPU time was its wall time), so a change to the book shows over a few runs.
 * In the package of the book it drives, which is not public; built with {@code -Pbench} only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClusterBookBenchmark {
    /** As figure 1's topic and consumer. */
    private static final int PARTITIONS = FleetRecords.PARTITIONS;
    /** The consumer's poll, as the aggregator sets it. */
    private static final int POLL_RECORDS = (Integer) ObjectStateConsumer.properties(Map.of(), "bench")
            .get(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    /** How fast the records are taken to come: about what figure 1's warm passes read, so that the window grows as there. */
    private static final long NANOS_PER_RECORD = 4_000;
    private static final Instant COMPUTED_AT = Instant.parse("2026-01-05T09:00:00Z");

    /** Records of a pass: figure 1's fleet and length unless the harness says otherwise. */
    @Param("1000000")
    public int records;

    @Param("10000")
    public int clusters;

    private List<FleetRecords.TopicRecord> topic;
    private final Compatibility compatibility = CompatibilityReader.builtIn();

    @Setup
    public void fleet() {
        topic = FleetRecords.of(1, clusters, records, PARTITIONS);
    }

    /** One pass over the topic, in a book of its own; the count of computations, so that nothing is optimised away. */
    @Benchmark
    public long pass() {
        CoalescingWindow window = new CoalescingWindow(Duration.ofMillis(100), CoalescingWindow.DEFAULT_LONGEST, POLL_RECORDS);
        ClusterBook book = new ClusterBook(window, Duration.ofHours(1), "eksa-system");
        List<Integer> numbers = IntStream.range(0, PARTITIONS).boxed().toList();
        for (Action asked : book.on(new BookEvent.Assigned(numbers, PARTITIONS))) {
            if (asked instanceof Action.ReadStatuses read) {
                book.on(new BookEvent.StatusesRead(read.assignment(), Map.of()));
            }
        }
        numbers.forEach(number -> book.on(new BookEvent.Rebuilt(number)));
        long now = 0;
        int size = topic.size();
        for (int from = 0; from < size; from += POLL_RECORDS) {
            int to = Math.min(size, from + POLL_RECORDS);
            for (int i = from; i < to; i++) {
                FleetRecords.TopicRecord record = topic.get(i);
                now += NANOS_PER_RECORD;
                SourceRecord read = new SourceRecord("object-states", record.partition(), i, 0, record.key(),
                        record.value() == null ? null : ByteBuffer.wrap(record.value()), List.of());
                carryOut(book, book.on(new BookEvent.RecordRead(read, now)), now);
            }
            carryOut(book, book.on(new BookEvent.TimePassed(
                    now, size - to, compatibility, ManagementCluster.UNKNOWN, COMPUTED_AT)), now);
        }
        return book.computations();
    }

    /** Every status written at once, as if the API server took it: its change published and its echo awaited. */
    private static void carryOut(ClusterBook book, List<Action> actions, long now) {
        for (Action action : actions) {
            if (action instanceof Action.WriteStatus write) {
                book.on(new BookEvent.Written(write.cluster(), write.status(), write.status(), now));
            } else if (action instanceof Action.DeadLetter dead) {
                throw new IllegalStateException("a record of the benchmark's fleet dead-lettered: " + dead);
            }
        }
    }
}
