package io.statusaggregator.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Record keys read by hand: the same answers as splitting at every slash, and keys that compare as values. */
class ObjectStateKeyTest {
    @Test
    void everyKindsKeyReadsBackAsWritten() {
        for (ObjectKind kind : ObjectKind.values()) {
            ObjectStateKey key = new ObjectStateKey("alpha", kind, new ObjectKey("eksa-system", "alpha-md-0-7c9f"));
            assertEquals(Optional.of(key), ObjectStateKey.parse(key.encode()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "alpha", "alpha/Machine.cluster.x-k8s.io/eksa-system", "alpha/Machine.cluster.x-k8s.io/eksa-system/m/x",
            "/Machine.cluster.x-k8s.io/eksa-system/m", "alpha/Machine.cluster.x-k8s.io//m", "alpha/Machine.cluster.x-k8s.io/eksa-system/",
            "alpha//eksa-system/m", "alpha/ConfigMap/eksa-system/m", "alpha/Machine.cluster.x-k8s.i/eksa-system/m",
            "alpha/machine.cluster.x-k8s.io/eksa-system/m", "alpha/Machine.cluster.x-k8s.io.x/eksa-system/m", "Alpha/Machine.cluster.x-k8s.io/eksa-system/m", "////"})
    void aKeyThisApplicationDoesNotWriteIsRefused(String text) {
        assertEquals(Optional.empty(), ObjectStateKey.parse(text));
    }

    @Test
    void readingByHandAgreesWithSplittingOnRandomKeys() {
        // Segments joined by slashes: mostly as this application writes them, some not.
        String[] segments = {"alpha", "b-1", "eksa-system", "Machine.cluster.x-k8s.io", "Cluster.anywhere.eks.amazonaws.com",
                "KubeadmControlPlane.controlplane.cluster.x-k8s.io", "", "A", "é", "a.b", "-x", "ConfigMap", "a/b"};
        Random random = new Random(11);
        int accepted = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder text = new StringBuilder(segments[random.nextInt(segments.length)]);
            for (int n = random.nextInt(6); n > 0; n--) {
                text.append('/').append(segments[random.nextInt(segments.length)]);
            }
            Optional<ObjectStateKey> parsed = ObjectStateKey.parse(text.toString());
            assertEquals(bySplitting(text.toString()), parsed, text.toString());
            accepted += parsed.isPresent() ? 1 : 0;
        }
        assertTrue(accepted > 100, "the random keys exercise acceptance too: " + accepted);
    }

    @Test
    void keysAreEqualExactlyWhenEveryPartIs() {
        ObjectStateKey key = new ObjectStateKey("alpha", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m"));
        assertEquals(key, new ObjectStateKey("alpha", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m")));
        assertEquals(key.hashCode(), new ObjectStateKey("alpha", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m")).hashCode());
        assertNotEquals(key, new ObjectStateKey("beta", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m")));
        assertNotEquals(key, new ObjectStateKey("alpha", ObjectKind.MACHINE_DEPLOYMENT, new ObjectKey("eksa-system", "m")));
        assertNotEquals(key, new ObjectStateKey("alpha", ObjectKind.MACHINE, new ObjectKey("default", "m")));
        assertNotEquals(key, new ObjectStateKey("alpha", ObjectKind.MACHINE, new ObjectKey("eksa-system", "n")));
        assertNotEquals(new ObjectKey("a", "bc"), new ObjectKey("ab", "c"));
        assertNotEquals(key, "alpha/Machine.cluster.x-k8s.io/eksa-system/m");
    }

    /** The reading as it was written before: split at every slash. */
    private static Optional<ObjectStateKey> bySplitting(String text) {
        String[] parts = text.split("/", -1);
        if (parts.length != 4 || KubernetesNames.nameProblem(parts[0]).isPresent()
                || ObjectKey.problemOf(parts[2], parts[3]).isPresent()) {
            return Optional.empty();
        }
        return ObjectKind.ofQualifiedName(parts[1]).map(kind -> new ObjectStateKey(parts[0], kind, new ObjectKey(parts[2], parts[3])));
    }
}
