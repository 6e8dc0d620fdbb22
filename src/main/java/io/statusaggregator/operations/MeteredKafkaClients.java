package io.statusaggregator.operations;

import io.statusaggregator.Pipeline;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * The pipeline's Kafka clients announced to Quarkus' Micrometer extension, whose Kafka binder publishes their own
 * metrics ({@code kafka_consumer_*}, {@code kafka_producer_*}) on {@code /q/metrics}.
 */
@ApplicationScoped
public class MeteredKafkaClients implements Pipeline.KafkaClients {
    private final Event<Producer<?, ?>> producers;
    private final Event<Consumer<?, ?>> consumers;

    MeteredKafkaClients(Event<Producer<?, ?>> producers, Event<Consumer<?, ?>> consumers) {
        this.producers = producers;
        this.consumers = consumers;
    }

    @Override
    public void created(Producer<?, ?> producer) {
        producers.fire(producer);
    }

    @Override
    public void created(Consumer<?, ?> consumer) {
        consumers.fire(consumer);
    }
}
