package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/**
 * What the rehearsal of a rebuild reads with, and when it happens; that it reads a topic and carries out nothing is
 * tested on a real broker (DeadLettersTest).
 */
class RebuildRehearsalTest {
    @Test
    void theRehearsalsConsumerStaysOutOfTheGroupUnderAClientIdOfItsOwnWithTheAggregatorsFetchSettings() {
        Map<String, Object> aggregation = ObjectStateConsumer.properties(Map.of("bootstrap.servers", "kafka:9093",
                "security.protocol", "SSL"), "status-aggregator");
        aggregation.put(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-7");
        aggregation.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "pod-0");

        Map<String, Object> rehearsal = RebuildRehearsal.outsideTheGroup(aggregation);

        for (String groupSetting : new String[] {ConsumerConfig.GROUP_ID_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG}) {
            assertFalse(rehearsal.containsKey(groupSetting), groupSetting + " is the group's: " + rehearsal);
        }
        assertEquals("status-aggregator-7-rehearsal", rehearsal.get(ConsumerConfig.CLIENT_ID_CONFIG));
        for (String kept : new String[] {"bootstrap.servers", "security.protocol", ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG}) {
            assertEquals(aggregation.get(kept), rehearsal.get(kept), kept);
        }
        assertEquals("status-aggregator", aggregation.get(ConsumerConfig.GROUP_ID_CONFIG), "the aggregator's own settings unchanged");
    }

    @Test
    void aBrokerThatCannotBeReachedMeansNoRehearsalWithinTheTimeout() throws Exception {
        boolean served = RebuildRehearsal.othersServe(Map.of("bootstrap.servers", "127.0.0.1:1"), "status-aggregator", Duration.ofSeconds(1))
                .get(10, TimeUnit.SECONDS);
        assertFalse(served, "a group nobody can describe is taken as empty: the instance joins at once");
    }
}
