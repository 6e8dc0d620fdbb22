package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.json.OversizedObject;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.rules.MalformedInputs;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stand-in ingest sends for an EKS-A Cluster too large for Kafka (the shape docs/topics.md gives): its cluster
 * shows why, by name, size and limit; it is dead-lettered once, as what it is (the head of the object, with its size
 * and the limit); its next stand-ins with the same words are not; a later state that fits is computed as before.
 */
class OversizedStandInTest extends BookTestBase {
    private static final String PROBLEM = "EKS-A Cluster default/test-cluster cannot be read: too large for Kafka: "
            + "1.5 MiB with only the "
            + "fields the rules read, over the 1 MiB a record may hold (kafka.max.request.size)";

    private ObjectNode standIn(long generation, long bytes, ClusterStatus shown) {
        ObjectNode standIn = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        standIn.remove("spec");
        ((ObjectNode) standIn.get("metadata")).put("generation", generation);
        standIn.set("status", StatusEncoder.encode(shown));
        standIn.putObject(OversizedObject.FIELD).put("bytes", bytes).put("limit", 1 << 20)
                .put("limitName", "kafka.max.request.size")
                .put("head", "{\"apiVersion\":\"anywhere.eks.amazonaws.com/v1alpha1\"");
        return standIn;
    }

    @Test
    void aStandInShowsWhyOnItsClusterIsDeadLetteredOnceAndAStateThatFitsIsComputedAgain() {
        ClusterStatus ready = settledOnReady();

        List<Action> actions = put(standIn(4, 1_500_000, ready));
        DeadLetter letter = assertInstanceOf(DeadLetter.class, actions.get(0));
        assertEquals(DeadLetterReason.TOO_LARGE, letter.reason());
        assertEquals(PROBLEM, letter.error());
        assertEquals(1_500_000, letter.oversized().orElseThrow().bytes(), "its size and the head go with the letter");
        ClusterStatus tooLarge = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0)).status();
        assertEquals(4, tooLarge.observedGeneration(), "the generation of the state too large");
        assertEquals(MalformedInputs.REASON, tooLarge.failure().orElseThrow().reason());
        assertEquals(PROBLEM, tooLarge.failure().orElseThrow().message());
        assertEquals(PROBLEM, tooLarge.condition(ConditionType.READY).orElseThrow().message());
        assertEquals(ConditionStatus.FALSE, tooLarge.condition(ConditionType.READY).orElseThrow().status());

        // The echo of that status, a few bytes larger: the same words, no second letter, nothing to write again.
        written(CLUSTER, tooLarge, tooLarge, now);
        assertNull(letter(put(standIn(4, 1_500_400, tooLarge))));
        assertEquals(List.of(), due(WINDOW.toMillis()).stream().filter(WriteStatus.class::isInstance).toList());

        // Its next state fits: computed as before.
        ObjectNode fits = showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), tooLarge);
        ((ObjectNode) fits.get("metadata")).put("generation", 5);
        assertNull(letter(put(fits)));
        ClusterStatus computed = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0)).status();
        assertEquals(ConditionStatus.TRUE, computed.condition(ConditionType.READY).orElseThrow().status());
        assertEquals(5, computed.observedGeneration());
        assertEquals(java.util.Optional.empty(), computed.failure(), "the failure it raised is cleared");
    }
}
