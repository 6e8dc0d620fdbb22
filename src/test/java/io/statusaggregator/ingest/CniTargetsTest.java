package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.ingest.CniTargets.Action;
import io.statusaggregator.ingest.CniTargets.Connect;
import io.statusaggregator.ingest.CniTargets.Disconnect;
import io.statusaggregator.ingest.CniTargets.LimitReached;
import io.statusaggregator.ingest.CniTargets.Observation;
import io.statusaggregator.ingest.CniTargets.Publish;
import io.statusaggregator.ingest.CniTargets.ReadAgain;
import io.statusaggregator.ingest.CniTargets.StopWatchingSecret;
import io.statusaggregator.ingest.CniTargets.Tombstone;
import io.statusaggregator.ingest.CniTargets.WatchSecret;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which workload clusters the CNI observer watches, through what, and what it publishes: events in, actions out. */
class CniTargetsTest {
    private static final String CAPI = "eksa-system";
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
    private static final Duration STALE_AFTER = Duration.ofSeconds(30);
    private final CniTargets targets = new CniTargets(CAPI, 2, STALE_AFTER);

    private static EksaCluster cluster(String namespace, String name, String cni, String created) throws Exception {
        String json = """
                {"apiVersion": "anywhere.eks.amazonaws.com/v1alpha1", "kind": "Cluster",
                 "metadata": {"namespace": "%s", "name": "%s", "generation": 1, "creationTimestamp": "%s",
                              "uid": "%s"},
                 "spec": {"kubernetesVersion": "1.31", "controlPlaneConfiguration": {"count": 1},
                          "clusterNetwork": {"cniConfig": {"%s": {}}}}}
                """.formatted(namespace, name, created, namespace + "-" + name, cni);
        return (EksaCluster) ObjectDecoder.decode(new ObjectMapper().readTree(json)).orElseThrow();
    }

    private static EksaCluster cluster(String name) throws Exception {
        return cluster("default", name, "cilium", "2026-01-01T00:00:00Z");
    }

    private static KubeadmControlPlane controlPlane(String namespace, String name, boolean initialized)
            throws Exception {
        String json = """
                {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "KubeadmControlPlane",
                 "metadata": {"namespace": "%s", "name": "%s", "generation": 1,
                              "labels": {"cluster.x-k8s.io/cluster-name": "%s"}},
                 "status": {"observedGeneration": 1, "initialized": %s}}
                """.formatted(namespace, name, name, initialized);
        return (KubeadmControlPlane) ObjectDecoder.decode(new ObjectMapper().readTree(json)).orElseThrow();
    }

    private static <T extends Action> T only(Class<T> type, List<Action> actions) {
        List<T> found = actions.stream().filter(type::isInstance).map(type::cast).toList();
        assertEquals(1, found.size(), () -> "one " + type.getSimpleName() + " in " + actions);
        return found.get(0);
    }

    private static Optional<String> problem(List<Action> actions) {
        return only(Publish.class, actions).observation().problem();
    }

    /** The cluster seen and initialized: the secret watch it was given. */
    private long watched(String name) throws Exception {
        targets.clusterSeen(cluster(name));
        return only(WatchSecret.class, targets.controlPlaneSeen(controlPlane(CAPI, name, true))).watch();
    }

    /** The cluster watched and its kubeconfig found: the connection it was given. */
    private long connected(String name) throws Exception {
        long watch = watched(name);
        Connect connect = only(Connect.class, targets.secretFound(name, watch, "a2NvbmZpZw=="));
        targets.connected(name, connect.connection(), "https://" + name + ":6443");
        return connect.connection();
    }

    @Test
    void aClusterIsWatchedOnceItExistsAndItsControlPlaneIsInitialized() throws Exception {
        assertEquals(List.of(), targets.clusterSeen(cluster("a")));
        assertEquals(List.of(), targets.controlPlaneSeen(controlPlane(CAPI, "a", false)));
        assertEquals(List.of(), targets.controlPlaneSeen(controlPlane("elsewhere", "a", true)), "not CAPI's");
        assertEquals(new WatchSecret("a", 1), only(WatchSecret.class,
                targets.controlPlaneSeen(controlPlane(CAPI, "a", true))));
        assertEquals(List.of(), targets.controlPlaneSeen(controlPlane(CAPI, "a", false)),
                "initialized stays: the workload API exists");
    }

    @Test
    void aControlPlaneSeenBeforeItsClusterWaitsForIt() throws Exception {
        assertEquals(List.of(), targets.controlPlaneSeen(controlPlane(CAPI, "a", true)));
        only(WatchSecret.class, targets.clusterSeen(cluster("a")));
    }

    @Test
    void theKubeconfigFoundIsConnectedWithTheClustersCni() throws Exception {
        long watch = watched("a");
        assertEquals(new Connect("a", 2, "a2NvbmZpZw==", Cni.CILIUM), only(Connect.class,
                targets.secretFound("a", watch, "a2NvbmZpZw==")));
    }

    @Test
    void aMissingOrEmptySecretIsPublishedAsTheProblem() throws Exception {
        long watch = watched("a");
        assertEquals(Optional.of("kubeconfig secret eksa-system/a-kubeconfig not found"),
                problem(targets.secretNotFound("a", watch)));
        assertEquals(Optional.of("kubeconfig secret eksa-system/a-kubeconfig has no key \"value\""),
                problem(targets.secretFound("a", watch, null)));
    }

    @Test
    void aRefusedOrUnusableKubeconfigIsPublishedAndTheSameSecretAgainIsTriedAgain() throws Exception {
        long watch = watched("a");
        long connection = only(Connect.class, targets.secretFound("a", watch, "eA==")).connection();
        assertEquals(Optional.of("kubeconfig secret eksa-system/a-kubeconfig is refused: users[0].user.exec"),
                problem(targets.kubeconfigRefused("a", connection, "users[0].user.exec")));
        long again = only(Connect.class, targets.secretFound("a", watch, "eA==")).connection();
        assertEquals(Optional.of("kubeconfig secret eksa-system/a-kubeconfig does not hold a usable kubeconfig"),
                problem(targets.kubeconfigUnusable("a", again)));
    }

    @Test
    void theSameKubeconfigAgainKeepsTheConnectionAndAnotherReplacesIt() throws Exception {
        long connection = connected("a");
        assertEquals(List.of(), targets.secretFound("a", 1, "a2NvbmZpZw=="));
        List<Action> changed = targets.secretFound("a", 1, "b3RoZXI=");
        assertEquals(new Disconnect("a", connection), changed.get(0));
        assertTrue(only(Connect.class, changed).connection() != connection);
        assertEquals(List.of(), targets.observed("a", connection, Optional.of("v1"), true),
                "an event of the replaced connection");
    }

    @Test
    void theDaemonSetSeenIsPublishedOnceForEachChange() throws Exception {
        long connection = connected("a");
        assertEquals(new Observation("a", Cni.CILIUM, Optional.of("v1.15.16-eksa.1"), true, Optional.empty()),
                only(Publish.class, targets.observed("a", connection, Optional.of("v1.15.16-eksa.1"), true))
                        .observation());
        assertEquals(List.of(), targets.observed("a", connection, Optional.of("v1.15.16-eksa.1"), true), "the same");
        assertEquals(new Observation("a", Cni.CILIUM, Optional.empty(), false, Optional.empty()),
                only(Publish.class, targets.observed("a", connection, Optional.empty(), false)).observation(),
                "no DaemonSet");
    }

    @Test
    void aWorkloadApiThatStopsAnsweringIsPublishedAfterStaleAfterAndReadAgainWhenItAnswers() throws Exception {
        long connection = connected("a");
        targets.observed("a", connection, Optional.of("v1"), true);
        assertEquals(List.of(), targets.checked("a", connection, true, NOW));
        assertEquals(List.of(), targets.checked("a", connection, false, NOW));
        assertEquals(List.of(), targets.checked("a", connection, false, NOW.plus(STALE_AFTER).minusMillis(1)));
        Observation stale = only(Publish.class, targets.checked("a", connection, false, NOW.plus(STALE_AFTER)))
                .observation();
        assertEquals(Optional.of("workload cluster API https://a:6443 not answering since 2026-12-06T12:00:00Z"),
                stale.problem());
        assertEquals(Optional.of("v1"), stale.version(), "the last seen, with the problem");
        assertEquals(List.of(new ReadAgain("a", connection)), targets.checked("a", connection, true, NOW));
        assertEquals(Optional.empty(), problem(targets.observed("a", connection, Optional.of("v1"), true)));
    }

    @Test
    void pastTheConnectionLimitAClusterIsPublishedNotObservedAndGetsTheFirstConnectionFreed() throws Exception {
        connected("a");
        connected("b");
        targets.clusterSeen(cluster("c"));
        List<Action> over = targets.controlPlaneSeen(controlPlane(CAPI, "c", true));
        assertEquals(new LimitReached(2), over.get(0));
        assertEquals(Optional.of("not observed: the aggregator's limit of 2 workload cluster connections is reached"),
                problem(over));
        targets.clusterSeen(cluster("d"));
        assertTrue(targets.controlPlaneSeen(controlPlane(CAPI, "d", true)).stream()
                .noneMatch(LimitReached.class::isInstance), "told once");
        List<Action> freed = targets.clusterDeleted(new ObjectKey("default", "a"));
        assertEquals(List.of(new Disconnect("a", 2), new StopWatchingSecret("a", 1)), freed.subList(0, 2));
        assertTrue(freed.contains(new Tombstone("a")), freed.toString());
        assertEquals(1, freed.stream().filter(WatchSecret.class::isInstance).count(), "one waiting cluster: " + freed);
    }

    @Test
    void theClusterThatHoldsTheNameGivesTheCniAndTheObservationLastsWhileOneIsLeft() throws Exception {
        connected("a");
        EksaCluster later = cluster("other", "a", "kindnetd", "2026-06-01T00:00:00Z");
        assertEquals(List.of(), targets.clusterSeen(later), "created later: the first one holds the name");
        List<Action> holderGone = targets.clusterDeleted(new ObjectKey("default", "a"));
        assertEquals(new Disconnect("a", 2), holderGone.get(0), "another CNI, another DaemonSet");
        assertTrue(holderGone.stream().noneMatch(Tombstone.class::isInstance), holderGone.toString());
        assertEquals(List.of(new StopWatchingSecret("a", 1), new Tombstone("a")),
                targets.clusterDeleted(later.key()));
    }

    @Test
    void eventsOfAWatchStoppedMeanwhileAreIgnored() throws Exception {
        long watch = watched("a");
        targets.clusterDeleted(new ObjectKey("default", "a"));
        assertEquals(List.of(), targets.secretFound("a", watch, "a2NvbmZpZw=="));
        assertEquals(List.of(), targets.secretNotFound("a", watch));
    }

    @Test
    void closingStopsEveryWatchAndGivesNoFreedConnectionAway() throws Exception {
        connected("a");
        connected("b");
        targets.clusterSeen(cluster("c"));
        targets.controlPlaneSeen(controlPlane(CAPI, "c", true));
        List<Action> closing = targets.closing();
        assertEquals(2, closing.stream().filter(Disconnect.class::isInstance).count(), closing.toString());
        assertEquals(2, closing.stream().filter(StopWatchingSecret.class::isInstance).count(), closing.toString());
        assertTrue(closing.stream().noneMatch(WatchSecret.class::isInstance), closing.toString());
    }
}
