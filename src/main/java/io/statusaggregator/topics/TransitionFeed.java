package io.statusaggregator.topics;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The transitions topic: one CloudEvent per status change of a cluster (Kafka protocol binding, binary mode: the
 * attributes in {@code ce_} headers, the data as JSON in the value), keyed {@code namespace/name} so that a
 * cluster's events stay in order on one partition.
 */
public final class TransitionFeed {
    public static final URI SOURCE = URI.create("/status-aggregator");

    private final Producer<String, CloudEvent> producer;
    private final String topic;

    public TransitionFeed(Producer<String, CloudEvent> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    public static CloudEvent event(StatusChange change, Instant time) {
        return CloudEventBuilder.v1()
                .withId(change.id())
                .withSource(SOURCE)
                .withType(change.type())
                .withSubject(change.cluster().toString())
                .withTime(time.atOffset(ZoneOffset.UTC))
                .withDataContentType("application/json")
                .withData(change.data())
                .build();
    }

    /**
     * Sends the change; {@code done} runs on the producer's thread when the broker has it ({@code null}) or the send
     * failed for good (the failure).
     */
    public void send(StatusChange change, Instant time, Consumer<Exception> done) {
        try {
            producer.send(
                    new ProducerRecord<>(topic, change.cluster().toString(), event(change, time)),
                    (metadata, error) -> done.accept(error));
        } catch (RuntimeException e) {
            done.accept(e); // refused at once (no metadata in time, closed, interrupted): the same as failing later
        }
    }

    /** Waits until the broker has answered every record sent so far; their {@code done} callbacks have run. */
    public void flush() {
        producer.flush();
    }
}
