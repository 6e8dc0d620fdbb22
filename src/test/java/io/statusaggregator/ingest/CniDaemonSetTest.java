package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CniDaemonSetTest {
    @ParameterizedTest
    @CsvSource({
            "public.ecr.aws/isovalent/cilium:v1.15.16-eksa.1, v1.15.16-eksa.1",
            "registry.local:5000/cilium/cilium:v1.17.8-0, v1.17.8-0",
            "quay.io/cilium/cilium:v1.14.1@sha256:abc123, v1.14.1",
            "registry.local:5000/cilium/cilium, ''",
            "cilium, ''"})
    void theVersionIsTheImageTag(String image, String tag) {
        assertEquals(tag.isEmpty() ? Optional.empty() : Optional.of(tag), CniDaemonSet.imageTag(image));
    }

    private static DaemonSet daemonSet(long generation, long observed, int desired, int ready, int updated) {
        return new DaemonSetBuilder()
                .withNewMetadata().withName("cilium").withGeneration(generation).endMetadata()
                .withNewSpec().withNewTemplate().withNewSpec()
                .addNewContainer().withName("cilium-operator-sidecar").withImage("x/sidecar:v9").endContainer()
                .addNewContainer().withName("cilium-agent").withImage("x/cilium:v1.15.16-eksa.1").endContainer()
                .endSpec().endTemplate().endSpec()
                .withNewStatus().withObservedGeneration(observed).withDesiredNumberScheduled(desired).withNumberReady(ready)
                .withUpdatedNumberScheduled(updated).endStatus()
                .build();
    }

    @Test
    void theAgentContainerGivesTheVersion() {
        assertEquals(Optional.of("v1.15.16-eksa.1"), CniDaemonSet.version(daemonSet(1, 1, 3, 3, 3)));
    }

    @Test
    void readyMeansEveryScheduledPodReadyAndUpdatedAndTheRolloutObserved() {
        assertTrue(CniDaemonSet.ready(daemonSet(2, 2, 3, 3, 3)));
        assertFalse(CniDaemonSet.ready(daemonSet(2, 2, 3, 2, 3)), "a pod not ready");
        assertFalse(CniDaemonSet.ready(daemonSet(2, 2, 3, 3, 2)), "a pod of the old template");
        assertFalse(CniDaemonSet.ready(daemonSet(3, 2, 3, 3, 3)), "a new template not yet observed");
        assertFalse(CniDaemonSet.ready(daemonSet(1, 1, 0, 0, 0)), "scheduled nowhere");
    }
}
