package io.statusaggregator;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.topics.ClusterPartitioner;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The pipeline's Kafka producers, one per topic it writes: idempotent, acknowledged by every in-sync replica, each
 * with a client id of its own (its topic's and this process's) and told to the {@link Pipeline.KafkaClients} for its
 * metrics.
 */
final class PipelineProducers {
    private final Map<String, Object> kafka;
    private final Pipeline.KafkaClients clients;

    PipelineProducers(Map<String, Object> kafka, Pipeline.KafkaClients clients) {
        this.kafka = kafka;
        this.clients = clients;
    }

    /** For the status topic. */
    KafkaProducer<String, String> statuses() {
        return told(new KafkaProducer<>(properties("statuses", Optional.empty())));
    }

    /** For the transitions topic: CloudEvents. */
    KafkaProducer<String, CloudEvent> transitions() {
        Map<String, Object> properties = properties("transitions", Optional.empty());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName());
        return told(new KafkaProducer<>(properties));
    }

    /** For the dead-letter topic: a record's bytes as they were read, up to {@link DeadLetters#MAX_LETTER_BYTES}. */
    KafkaProducer<byte[], byte[]> deadLetters() {
        Map<String, Object> properties = properties("dead-letters", Optional.empty());
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, DeadLetters.MAX_LETTER_BYTES);
        return told(new KafkaProducer<>(properties));
    }

    /** For the object-state topic: partitioned by cluster. */
    KafkaProducer<String, String> objectStates() {
        return told(new KafkaProducer<>(properties("object-states", Optional.of(ClusterPartitioner.class))));
    }

    private <K, V> KafkaProducer<K, V> told(KafkaProducer<K, V> producer) {
        clients.created(producer);
        return producer;
    }

    private Map<String, Object> properties(String name, Optional<Class<?>> partitioner) {
        Map<String, Object> producer = new HashMap<>(kafka);
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0); // a lone change would wait the whole delay
        producer.put(
                ProducerConfig.CLIENT_ID_CONFIG,
                "status-aggregator-" + name + "-" + ProcessHandle.current().pid());
        partitioner.ifPresent(p -> producer.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, p.getName()));
        return producer;
    }
}
