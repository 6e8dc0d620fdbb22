package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The words a cluster shows for an object too large for Kafka: sizes a person reads, which stay the same while the
 * object changes by a few bytes (an EKS-A Cluster's next state holds the status that says them: exact bytes there
 * would change the status at every write, and each write would make a new state).
 */
class OversizedObjectTest {
    @Test
    void sizesAreInMibOrKibTheObjectsRoundedUpTheLimitsDown() {
        assertEquals("1.5 MiB", OversizedObject.size(1_572_864, true));
        assertEquals("1.5 MiB", OversizedObject.size(1_500_000, true));
        assertEquals("1.4 MiB", OversizedObject.size(1_500_000, false));
        assertEquals("1 MiB", OversizedObject.size(1 << 20, false));
        assertEquals("1.1 MiB", OversizedObject.size((1 << 20) + 1, true), "over the limit never reads as the limit");
        assertEquals("64 KiB", OversizedObject.size(65_536, false));
        assertEquals("65 KiB", OversizedObject.size(65_537, true));
        assertEquals("900 bytes", OversizedObject.size(900, true));
    }

    @Test
    void theProblemStaysTheSameWhileTheObjectChangesByAFewBytes() {
        OversizedObject before = new OversizedObject(1_500_000, 1 << 20, "kafka.max.request.size", "{");
        OversizedObject after = new OversizedObject(1_500_312, 1 << 20, "kafka.max.request.size", "{");
        assertEquals("too large for Kafka: 1.5 MiB with only the fields the rules read, over the 1 MiB a record may "
                + "hold "
                + "(kafka.max.request.size)", before.problem());
        assertEquals(before.problem(), after.problem());
    }
}
