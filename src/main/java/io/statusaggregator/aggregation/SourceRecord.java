package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A record of the object-state topic as the core takes it: where it was read, its key and value bytes, and what a
 * dead letter of it carries besides (its timestamp and headers). Pure: the shell makes it of the Kafka record
 * ({@link ObjectStateConsumer#source}), and a {@link Action.DeadLetter} hands it back.
 *
 * @param value its bytes, or null for a tombstone
 */
@Pure
record SourceRecord(String topic, int partition, long offset, long timestamp, byte[] key, ByteBuffer value,
        List<Header> headers) {

    /** A header of the record, copied. */
    record Header(String key, byte[] value) {
    }

    /** Where it was read, for logs: {@code topic-partition@offset}. */
    String where() {
        return topic + "-" + partition + "@" + offset;
    }
}
