package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** A record kept while its partition is rebuilt holds nothing of the response it was fetched in; a live one is not copied. */
class ObjectStateConsumerTest {
    private static final byte[] KEY = "alpha/Machine.cluster.x-k8s.io/default/m0".getBytes(StandardCharsets.UTF_8);

    @Test
    void aDetachedRecordOwnsItsValueAndKeepsEverythingElse() {
        byte[] response = "{\"earlier\":0}{\"kind\":\"Machine\"}{\"later\":1}".getBytes(StandardCharsets.UTF_8);
        ByteBuffer value = ByteBuffer.wrap(response, 13, 18).slice();
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", "t1".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<byte[], ByteBuffer> fetched = new ConsumerRecord<>("object-states", 3, 42L, 1_700_000_000_000L, TimestampType.CREATE_TIME,
                KEY.length, 18, KEY, value, headers, Optional.of(7));

        SourceRecord kept = ObjectStateConsumer.source(fetched, true);

        assertNotSame(response, kept.value().array(), "the value is copied out of the response");
        assertEquals(18, kept.value().array().length, "the copy is the value's bytes only");
        assertArrayEquals("{\"kind\":\"Machine\"}".getBytes(StandardCharsets.UTF_8), ObjectRecord.bytes(kept.value()));
        assertArrayEquals(KEY, kept.key());
        assertEquals("trace", kept.headers().get(0).key());
        assertEquals("t1", new String(kept.headers().get(0).value(), StandardCharsets.UTF_8));
        assertEquals(fetched.topic(), kept.topic());
        assertEquals(fetched.partition(), kept.partition());
        assertEquals(fetched.offset(), kept.offset());
        assertEquals(fetched.timestamp(), kept.timestamp());
    }

    @Test
    void aLiveRecordKeepsItsValueWhereItWasFetched() {
        byte[] response = "{\"earlier\":0}{\"kind\":\"Machine\"}".getBytes(StandardCharsets.UTF_8);
        ByteBuffer value = ByteBuffer.wrap(response, 13, 18).slice();
        ConsumerRecord<byte[], ByteBuffer> fetched = new ConsumerRecord<>("object-states", 3, 42L, KEY, value);

        SourceRecord read = ObjectStateConsumer.source(fetched, false);

        assertSame(value, read.value(), "not copied: read within a coalescing window");
        assertEquals(List.of(), read.headers());
    }

    @Test
    void aTombstoneStaysATombstone() {
        ConsumerRecord<byte[], ByteBuffer> tombstone = new ConsumerRecord<>("object-states", 0, 1L, KEY, null);
        assertNull(ObjectStateConsumer.source(tombstone, true).value());
    }
}
