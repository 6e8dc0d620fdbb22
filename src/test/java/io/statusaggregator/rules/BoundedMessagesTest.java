package io.statusaggregator.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.Severity;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A condition's message copied from another object (a KubeadmControlPlane's condition) has no limit of its own: the
 * status carries at most {@link StatusRules#LONGEST_MESSAGE} characters of it, so that one object cannot make the
 * status larger than the API server and Kafka take.
 */
class BoundedMessagesTest {
    @Test
    void aLongMessageIsCutToTheLongestAStatusCarries() {
        String copied = "etcd member unhealthy: " + "x".repeat(600_000);
        Condition condition = StatusRules.stamped(ConditionType.CONTROL_PLANE_READY,
                Verdict.notMet(ControlPlaneReady.CONTROL_PLANE_COMPONENTS_UNHEALTHY, copied, Severity.ERROR), ClusterStatus.NONE,
                Instant.parse("2026-11-28T00:00:00Z"));
        assertEquals(StatusRules.LONGEST_MESSAGE, condition.message().length());
        assertTrue(condition.message().startsWith("etcd member unhealthy: xxx") && condition.message().endsWith("x..."), condition.message());

        String usual = "1 of 3 control plane Machines are not ready";
        assertSame(usual, StatusRules.bounded(usual));
        String exact = "y".repeat(StatusRules.LONGEST_MESSAGE);
        assertSame(exact, StatusRules.bounded(exact), "at the limit: whole");
        // A character outside the BMP is not cut in half where the cut falls.
        String emoji = "z".repeat(StatusRules.LONGEST_MESSAGE - 4) + "\uD83D\uDE00" + "z".repeat(10);
        String cut = StatusRules.bounded(emoji);
        assertTrue(cut.endsWith("z...") && !Character.isHighSurrogate(cut.charAt(cut.length() - 4)), cut.substring(cut.length() - 8));
    }
}
