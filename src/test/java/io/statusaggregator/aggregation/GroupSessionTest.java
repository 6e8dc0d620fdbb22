package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class GroupSessionTest {
    private static GroupSession session(long timeoutMillis, long heartbeatMillis) {
        return new GroupSession(Duration.ofMillis(timeoutMillis), Duration.ofMillis(heartbeatMillis));
    }

    @Test
    void theConsumerSettingsAskForAThreeSecondSessionUnlessTheOperatorSetOne() {
        Map<String, Object> defaults = ObjectStateConsumer.properties(Map.of(), "group");
        assertEquals(3_000, defaults.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(1_000, defaults.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertEquals(session(3_000, 1_000), GroupSession.of(defaults));

        Map<String, Object> set = ObjectStateConsumer.properties(Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000",
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "2500"), "group");
        assertEquals(session(10_000, 2_500), GroupSession.of(set));
    }

    @Test
    void aRefusedSessionIsFollowedByKafkasDefaultMinimumThenKafkasDefaultThenNothing() {
        assertEquals(Optional.of(session(6_000, 1_500)), GroupSession.DEFAULT.longer());
        assertEquals(Optional.of(session(6_000, 1_500)), session(1_000, 300).longer());
        assertEquals(Optional.of(session(45_000, 3_000)), session(6_000, 1_500).longer());
        assertEquals(Optional.of(session(45_000, 3_000)), session(10_000, 2_500).longer());
        assertEquals(Optional.empty(), session(45_000, 3_000).longer());
        assertEquals(Optional.empty(), session(60_000, 3_000).longer());
    }

    @Test
    void theLongerSessionReplacesBothTimeoutsAndKeepsEveryOtherSetting() {
        Map<String, Object> settings = ObjectStateConsumer.properties(Map.of("bootstrap.servers", "kafka:9093"), "group");
        Map<String, Object> longer = session(6_000, 1_500).applyTo(settings);
        assertEquals(6_000, longer.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(1_500, longer.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertEquals("kafka:9093", longer.get("bootstrap.servers"));
        assertEquals(settings.size(), longer.size());
        assertEquals(3_000, settings.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "the settings given are not changed");
    }

    @Test
    void aSettingThatIsNotANumberLeavesTheDefaultForTheKafkaClientToRefuse() {
        assertEquals(GroupSession.DEFAULT, GroupSession.of(Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "soon")));
    }
}
