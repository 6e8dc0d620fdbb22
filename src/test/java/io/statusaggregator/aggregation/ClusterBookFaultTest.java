package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.statusaggregator.aggregation.Action.ComputationFailed;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.rules.StatusRules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A fault computing one cluster (a bug in the rules, say) stops neither the book nor the other clusters. */
class ClusterBookFaultTest extends BookTestBase {
    private static final ObjectKey SECOND = new ObjectKey("default", "second-cluster");
    /** While set, computing {@link #CLUSTER} fails. */
    private boolean faulty = true;

    @BeforeEach
    void rulesThatFailForOneCluster() {
        book = new ClusterBook(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO, "eksa-system", (snapshot, instant) -> {
            if (faulty && snapshot.cluster().key().equals(CLUSTER)) {
                throw new IllegalStateException("a bug in the rules");
            }
            return StatusRules.compute(snapshot, instant);
        });
    }

    @Test
    void aFaultComputingOneClusterIsReportedAndTheOthersAreComputedOn() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        objects.forEach(this::putSecond);
        rebuilt(0);

        List<Action> actions = due(0);

        assertEquals(2, actions.size(), actions.toString());
        ComputationFailed failed = actions.stream().filter(ComputationFailed.class::isInstance).map(ComputationFailed.class::cast)
                .findFirst().orElseThrow(() -> new AssertionError("no fault reported: " + actions));
        assertEquals("default/test-cluster", failed.cluster());
        assertEquals("a bug in the rules", failed.fault().getMessage());
        WriteStatus second = actions.stream().filter(WriteStatus.class::isInstance).map(WriteStatus.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError("the other cluster not computed: " + actions));
        assertEquals(SECOND, second.cluster());
        assertEquals(1, book.computationFailures(), "counted, for aggregator_computation_failures_total");

        faulty = false; // the bug fixed, or the input that met it gone: computed on its next record
        put(object("Machine"));
        List<Action> next = due(WINDOW.toMillis());

        assertEquals(CLUSTER, assertInstanceOf(WriteStatus.class, next.get(0), next.toString()).cluster());
    }

    /** {@code object} as the same object of a second cluster, second-cluster, in the same partition. */
    private void putSecond(com.fasterxml.jackson.databind.node.ObjectNode object) {
        String value = object.toString().replace("test-cluster", "second-cluster");
        ObjectStateKey first = ObjectStateKey.parse(keyOf(object)).orElseThrow();
        ObjectKey key = new ObjectKey(first.key().namespace(), first.key().name().replace("test-cluster", "second-cluster"));
        apply(new ObjectStateKey("second-cluster", first.kind(), key).encode(), value);
    }
}
