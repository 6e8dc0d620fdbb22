package io.statusaggregator.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.statusaggregator.model.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the webhook's view of the status topic keeps of each record: the cluster's versions, until its tombstone. */
class VersionHistoryViewTest {
    private static final ObjectKey ALPHA = new ObjectKey("default", "alpha");

    private static byte[] document(String versions) {
        return ("""
                {"apiVersion": "anywhere.eks.amazonaws.com/v1alpha1", "kind": "Cluster",
                 "metadata": {"namespace": "default", "name": "alpha", "generation": 2},
                 "status": {"observedGeneration": 2, "conditions": [], %s}}""".formatted(versions))
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachClustersLastVersionsAreKeptAndATombstoneForgetsThem() {
        try (VersionHistoryView view = new VersionHistoryView(Map.of("bootstrap.servers", "127.0.0.1:9"), "statuses")) {
            view.apply("default/alpha", document("\"versions\": {\"current\": \"v0.23.1#a\", \"last\": \"v0.22.0#b\"}"));
            view.apply("default/alpha", document("\"versions\": {\"current\": \"v0.23.1#c\", \"last\": \"v0.23.1#a\"}"));
            assertEquals(Optional.of("v0.23.1#c"), view.of(ALPHA).flatMap(v -> v.current()));
            assertEquals(Optional.of("v0.23.1#a"), view.of(ALPHA).flatMap(v -> v.last()));

            view.apply("default/alpha", null);
            assertFalse(view.of(ALPHA).isPresent(), "deleted: no history left to compare with");

            view.apply("default/alpha", document("\"versions\": {\"current\": \"v0.23.1#a\"}"));
            view.apply("default/alpha", document("\"failureReason\": \"X\", \"failureMessage\": \"m\""));
            assertEquals(0, view.size(), "a status without versions replaces the one before it on the topic");
        }
    }
}
