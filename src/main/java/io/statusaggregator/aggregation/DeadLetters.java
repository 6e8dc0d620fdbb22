package io.statusaggregator.aggregation;

import io.statusaggregator.model.json.OversizedObject;
import io.statusaggregator.threads.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jboss.logging.Logger;

/**
 * The dead-letter topic: every record of the object-state topic that aggregation cannot use goes there unchanged
 * (key, value and headers as they were), with headers saying why and where it came from, so that nothing is lost
 * and the partition keeps flowing.
 *
 * <p>Sending never holds up the poll loop: records are handed to a thread of their own (the producer may block
 * on metadata or a full buffer there, not here), behind a bounded queue. A send that fails, or finds the queue full,
 * is logged with the record's partition and offset and counted ({@link #failed()}); aggregation goes on.
 */
public final class DeadLetters implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DeadLetters.class);

    /** Header: why, one of the {@link DeadLetterReason} codes. */
    public static final String REASON = "dead-letter.reason";
    /** Header: the problem in words (the decoder's, naming the field; the JSON parser's; the key or kind found). */
    public static final String ERROR = "dead-letter.error";
    /** Headers: where the record was read: topic, partition, offset, and its timestamp (epoch milliseconds). */
    public static final String TOPIC = "dead-letter.topic";
    public static final String PARTITION = "dead-letter.partition";
    public static final String OFFSET = "dead-letter.offset";
    public static final String TIMESTAMP = "dead-letter.timestamp";
    /**
     * Headers of a {@link DeadLetterReason#TOO_LARGE} letter: the size in bytes of the record ingest would have sent,
     * and the largest it sends; the letter's value is the head of that record's value.
     */
    public static final String SIZE = "dead-letter.size";
    public static final String LIMIT = "dead-letter.limit";

    /** Records waiting for the sending thread at most; beyond, a dead letter is counted as failed, not waited for. */
    static final int QUEUE = 10_000;


    /**
     * The largest dead letter, for the producer ({@code max.request.size}) and the topic where this application creates
     * it ({@code max.message.bytes}): a source record as large as its topic accepts (Kafka's default, 1 MiB) with the
     * dead-letter headers added.
     */
    public static final int MAX_LETTER_BYTES = 2 << 20;
    /** The error header is cut to this many characters, so that it never makes a letter too large to send. */
    static final int MAX_ERROR = 4096;

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final ThreadPoolExecutor sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(QUEUE), DaemonThreads.named("dead-letters"));
    private final Map<DeadLetterReason, AtomicLong> sent = new EnumMap<>(DeadLetterReason.class);
    private final AtomicLong failed = new AtomicLong();
    /** Offsets of the source records whose dead letter the broker has not acknowledged (nor refused) yet. */
    private final Map<TopicPartition, ConcurrentSkipListSet<Long>> inFlight = new ConcurrentHashMap<>();

    public DeadLetters(Producer<byte[], byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            sent.put(reason, new AtomicLong());
        }
    }

    public String topic() {
        return topic;
    }

    /**
     * Sends {@code record} to the dead-letter topic, without waiting; when it is ingest's stand-in for an object too
     * large to send ({@code oversized}), the letter's value is the head of that object, with its size and the limit.
     */
    void send(SourceRecord record, DeadLetterReason reason, String error, Optional<OversizedObject> oversized) {
        TopicPartition source = new TopicPartition(record.topic(), record.partition());
        ConcurrentSkipListSet<Long> pending = inFlight.computeIfAbsent(source, tp -> new ConcurrentSkipListSet<>());
        pending.add(record.offset());
        RecordHeaders headers = new RecordHeaders();
        for (SourceRecord.Header header : record.headers()) {
            headers.add(header.key(), header.value());
        }
        headers.add(REASON, utf8(reason.code()));
        headers.add(ERROR, utf8(error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR) + "..." : error));
        headers.add(TOPIC, utf8(record.topic()));
        headers.add(PARTITION, utf8(Integer.toString(record.partition())));
        headers.add(OFFSET, utf8(Long.toString(record.offset())));
        headers.add(TIMESTAMP, utf8(Long.toString(record.timestamp())));
        oversized.ifPresent(object -> {
            headers.add(SIZE, utf8(Long.toString(object.bytes())));
            headers.add(LIMIT, utf8(Long.toString(object.limit())));
        });
        byte[] value = oversized.map(object -> utf8(object.head()))
                .orElseGet(() -> record.value() == null ? null : ObjectRecord.bytes(record.value()));
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(topic, null, record.key(), value, headers);
        String where = record.where();
        try {
            sender.execute(() -> {
                try {
                    producer.send(letter, (metadata, failure) -> {
                        if (failure == null) {
                            sent.get(reason).incrementAndGet();
                            // Said once the broker has it, not before: a letter it refuses is logged as not sent.
                            LOG.warnf("dead-lettered %s to %s (%s): %s", where, topic, reason.code(), error);
                        } else {
                            failedToSend(where, failure);
                        }
                        pending.remove(record.offset());
                    });
                } catch (RuntimeException e) {
                    failedToSend(where, e);
                    pending.remove(record.offset());
                }
            });
        } catch (RejectedExecutionException e) {
            failedToSend(
                    where, new IllegalStateException(closed ? "stopping" : QUEUE + " dead letters already waiting"));
            pending.remove(record.offset());
        }
    }

    private void failedToSend(String where, Throwable failure) {
        failed.incrementAndGet();
        LOG.errorf(
                "could not send %s to the dead-letter topic %s: %s; it stays on its own topic until compacted",
                where, topic, failure.toString());
    }

    /** Records the broker acknowledged on the dead-letter topic, for this reason. */
    public long sent(DeadLetterReason reason) {
        return sent.get(reason).get();
    }

    /** Dead letters that could not be sent (refused, timed out, queue full). */
    public long failed() {
        return failed.get();
    }

    /** Dead letters handed over whose sending has not ended yet (acknowledged or failed). */
    public int inFlight() {
        return inFlight.values().stream().mapToInt(Set::size).sum();
    }

    /** The offset of the oldest record of {@code partition} whose dead letter is still on its way. */
    OptionalLong oldestInFlight(TopicPartition partition) {
        ConcurrentSkipListSet<Long> pending = inFlight.get(partition);
        if (pending == null) {
            return OptionalLong.empty();
        }
        Long oldest = pending.isEmpty() ? null : pending.first();
        return oldest == null ? OptionalLong.empty() : OptionalLong.of(oldest);
    }

    /** Waits, at most {@code timeout}, until every dead letter handed over has been acknowledged or has failed. */
    void awaitSent(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight.values().stream().anyMatch(s -> !s.isEmpty()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private volatile boolean closed;

    @Override
    public void close() {
        closed = true;
        sender.shutdown();
        try {
            sender.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
