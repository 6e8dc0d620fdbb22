package io.statusaggregator.aggregation;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * What the aggregation's consumer shows after each poll, measured on the aggregation thread and read on any: the
 * records not read yet, of every assigned partition and of the live ones (which make the coalescing window), and
 * whether it has a connection to the brokers.
 */
final class ConsumerFigures {
    private volatile long lag;
    private volatile long liveLag;
    private volatile boolean connected;

    void measure(Consumer<?, ?> consumer, ClusterBook book) {
        long behind = 0;
        Map<Integer, Long> waiting = new HashMap<>();
        for (TopicPartition partition : consumer.assignment()) {
            long partitionLag = consumer.currentLag(partition).orElse(0);
            behind += partitionLag;
            waiting.put(partition.partition(), partitionLag);
        }
        lag = behind;
        liveLag = book.backlog(waiting);
        connected = consumer.metrics().entrySet().stream()
                .filter(m -> m.getKey().name().equals("connection-count")
                        && m.getKey().group().equals("consumer-metrics"))
                .anyMatch(m -> m.getValue().metricValue() instanceof Double count && count > 0);
    }

    long lag() {
        return lag;
    }

    long liveLag() {
        return liveLag;
    }

    boolean connected() {
        return connected;
    }
}
