package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The write-amplification baseline: a controller that, on every event of a cluster's objects, computes the status
 * and writes it, changed or not. It reads the same object-state topic as the aggregator; events from before it
 * started only build its state. An EKS-A Cluster event without a new generation is a status write coming back (the
 * aggregator's), not an input: it is neither counted nor answered. Writes are counted, not sent.
 */
final class EveryEventWriter implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final KafkaConsumer<String, String> consumer;
    private final StatusCheck check;
    private final String topic;
    private final Map<String, ClusterState> clusters = new HashMap<>();
    private final Map<String, ClusterStatus> written = new HashMap<>();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final Thread thread = new Thread(this::run, "every-event-writer");
    private volatile boolean closed;
    private volatile long behind = Long.MAX_VALUE;
    private Map<TopicPartition, Long> countFrom;

    EveryEventWriter(Bench.Broker broker, String topic, StatusCheck check) {
        Map<String, Object> props = new HashMap<>(broker.kafka());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props);
        this.topic = topic;
        this.check = check;
    }

    /** Starts counting at the topic's end now. */
    void start() {
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        countFrom = consumer.endOffsets(partitions);
        thread.start();
    }

    long events() {
        return events.get();
    }

    long writes() {
        return writes.get();
    }

    void awaitCaughtUp(long millis) {
        if (!Bench.await(millis, () -> behind == 0)) {
            throw new IllegalStateException("the every-event writer did not catch up with the topic");
        }
    }

    private void run() {
        while (!closed) {
            var records = consumer.poll(Duration.ofMillis(100));
            for (var record : records) {
                ObjectStateKey key = ObjectStateKey.parse(record.key()).orElseThrow();
                ClusterState state = clusters.computeIfAbsent(key.clusterName(), ClusterState::new);
                boolean counted = record.offset() >= countFrom.get(new TopicPartition(topic, record.partition()));
                if (record.value() == null) {
                    state.remove(key.kind(), key.key());
                } else {
                    try {
                        KubernetesObject object = ObjectDecoder.decode(JSON.readTree(record.value())).orElseThrow();
                        if (object instanceof EksaCluster eksa && state.cluster().map(c -> c.generation() == eksa.generation()).orElse(false)) {
                            counted = false;
                        }
                        state.put(object);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                if (counted) {
                    events.incrementAndGet();
                    Optional<EksaCluster> eksa = state.cluster();
                    if (eksa.isPresent()) {
                        ClusterStatus status = check.compute(state, written.getOrDefault(key.clusterName(), eksa.get().status()));
                        written.put(key.clusterName(), status);
                        writes.incrementAndGet();
                    }
                }
            }
            long lag = 0;
            for (TopicPartition p : consumer.assignment()) {
                lag += consumer.currentLag(p).orElse(1);
            }
            behind = lag;
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(10_000);
        consumer.close();
    }
}
