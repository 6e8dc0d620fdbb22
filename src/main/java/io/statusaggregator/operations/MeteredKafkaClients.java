package io.statusaggregator.operations;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.statusaggregator.Pipeline;
import io.statusaggregator.threads.DaemonThreads;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.jboss.logging.Logger;

/**
 * The pipeline's Kafka clients' own metrics ({@code kafka_consumer_*}, {@code kafka_producer_*}) on
 * {@code /q/metrics}, by Micrometer's Kafka binder as Quarkus' Micrometer extension binds it (no tags), but all on
 * one thread: each binder Quarkus makes starts a thread of its own, to look for the client's new metrics once a
 * minute, and ingest makes a producer anew each time this replica takes the lead.
 */
@ApplicationScoped
public class MeteredKafkaClients implements Pipeline.KafkaClients {
    private static final Logger LOG = Logger.getLogger(MeteredKafkaClients.class);
    private final MeterRegistry registry;
    private final ScheduledExecutorService thread =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kafka-client-metrics"));
    private final List<KafkaClientMetrics> binders = new ArrayList<>();

    MeteredKafkaClients(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void created(Producer<?, ?> producer) {
        bind(new KafkaClientMetrics(producer, Tags.empty(), thread), "producer", producer);
    }

    @Override
    public void created(Consumer<?, ?> consumer) {
        bind(new KafkaClientMetrics(consumer, Tags.empty(), thread), "consumer", consumer);
    }

    /** A binder that fails is dropped, not closed: closing one stops the thread every binder shares. */
    private synchronized void bind(KafkaClientMetrics binder, String kind, Object client) {
        try {
            binder.bindTo(registry);
            binders.add(binder);
        } catch (RuntimeException e) {
            LOG.warnf(e, "Unable to register metrics for Kafka %s %s", kind, client);
        }
    }

    /** As Quarkus' binding does, at the application's stop: each binder's meters removed, the thread stopped. */
    @PreDestroy
    synchronized void close() {
        binders.forEach(KafkaClientMetrics::close);
        binders.clear();
        thread.shutdownNow();
    }
}
