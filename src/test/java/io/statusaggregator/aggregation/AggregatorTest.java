package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.pipeline.FaultyClock;
import io.statusaggregator.versions.json.CompatibilityReader;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.junit.jupiter.api.Test;

/**
 * The aggregation loop on a consumer that fails under it: it stops, and says so once, so that the process can exit and
 * be restarted rather than live on aggregating nothing. What it aggregates is tested on a real broker (PipelineTest).
 */
class AggregatorTest {
    private static final Aggregator.Settings SETTINGS = new Aggregator.Settings("capi-object-states", Duration.ofMillis(100),
            Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ZERO, "eksa-system");

    @Test
    void aConsumerTheBrokerFencesStopsAggregationAndSaysSo() throws Exception {
        MockConsumer<byte[], ByteBuffer> consumer = new MockConsumer<>("earliest");
        consumer.setPollException(new FencedInstanceIdException("another consumer joined with group.instance.id pod-0"));
        BlockingQueue<Throwable> stopped = new LinkedBlockingQueue<>();

        try (Aggregator aggregator = aggregator(consumer, Clock.systemUTC()).onStopped(stopped::add)) {
            aggregator.start();

            Throwable failure = stopped.poll(10, TimeUnit.SECONDS);
            assertInstanceOf(FencedInstanceIdException.class, failure, "the poll's failure is what stopped it");
        }
        assertTrue(stopped.isEmpty(), "told once: " + stopped);
    }

    @Test
    void aFaultInTheLoopItselfStopsAggregationAndSaysSo() throws Exception {
        Clock broken = new FaultyClock().breakWith(() -> new IllegalStateException("the clock broke"));
        BlockingQueue<Throwable> stopped = new LinkedBlockingQueue<>();

        try (Aggregator aggregator = aggregator(new MockConsumer<>("earliest"), broken).onStopped(stopped::add)) {
            aggregator.start();

            Throwable failure = stopped.poll(10, TimeUnit.SECONDS);
            assertNotNull(failure, "a fault in what the loop does stops it too");
            assertEquals("the clock broke", failure.getMessage());
        }
    }

    @Test
    void aCloseIsNoFault() throws Exception {
        MockConsumer<byte[], ByteBuffer> consumer = new MockConsumer<>("earliest");
        BlockingQueue<Throwable> stopped = new LinkedBlockingQueue<>();
        Aggregator aggregator = aggregator(consumer, Clock.systemUTC()).onStopped(stopped::add);
        aggregator.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (consumer.subscription().isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, consumer.subscription().size(), "polling");

        aggregator.close(); // returns once the aggregation thread has ended

        assertTrue(consumer.closed(), "the consumer is closed");
        assertTrue(stopped.isEmpty(), "a close is not reported as a fault: " + stopped);
    }

    private static Aggregator aggregator(MockConsumer<byte[], ByteBuffer> consumer, Clock clock) {
        return new Aggregator(Map.of(), settings -> consumer, new DeadLetters(new MockProducer<>(), "dead-letters"), SETTINGS,
                CompatibilityReader::builtIn, () -> ManagementCluster.UNKNOWN,
                outcomes -> new StatusWriter((cluster, status, version) -> new StatusWriter.Stored(status, version),
                        new StatusWriter.Settings(1, Duration.ofMillis(10), Duration.ofMillis(100)), outcomes),
                new StatusFeed(new MockProducer<>(), "statuses"), new TransitionFeed(new MockProducer<>(), "transitions"),
                Map::of, clock);
    }
}
