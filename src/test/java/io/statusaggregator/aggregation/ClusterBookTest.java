package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.AnnounceDeletion;
import io.statusaggregator.aggregation.Action.PublishChange;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.aggregation.ClusterObserver.Shown;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The aggregation core without a broker: records, write outcomes and instants in, actions out.
 */
class ClusterBookTest extends BookTestBase {    // --- rebuild and coalescing

    @Test
    void aRebuildComputesNothingUntilThePartitionIsRebuiltThenEachClusterOnce() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(o -> assertEquals(List.of(), put(o)));
        assertEquals(List.of(), due(WINDOW.toMillis() * 10), "nothing computed while rebuilding");
        assertFalse(book.live());

        assertEquals(List.of(), rebuilt(0));
        List<Action> actions = due(0);
        assertTrue(book.live());
        assertEquals(1, book.computations());
        WriteStatus write = assertInstanceOf(WriteStatus.class, actions.get(0));
        assertEquals(CLUSTER, write.cluster());
        assertEquals(ConditionStatus.TRUE, write.status().condition(ConditionType.READY).orElseThrow().status());
    }

    @Test
    void aChangeToAQuietClusterIsComputedAndWrittenAtOnce() {
        ClusterStatus ready = settledOnReady();
        assertEquals(List.of(), due(WINDOW.toMillis()), "quiet for a window");
        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        WriteStatus write = assertInstanceOf(WriteStatus.class, due(0).get(0), "written without waiting");
        assertNotEquals(ready, write.status());
    }

    @Test
    void aBurstIsComputedAtItsFirstRecordThenOnceForAllTheRestWhenItEnds() {
        ClusterStatus ready = settledOnReady();
        due(WINDOW.toMillis());
        long computations = book.computations();
        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        WriteStatus first = assertInstanceOf(WriteStatus.class, due(0).get(0), "the first change: at once");
        assertEquals(computations + 1, book.computations());
        for (int i = 0; i < 3; i++) {
            now += 5 * MS;
            kcp.with("metadata").with("annotations").put("burst", String.valueOf(i));
            kcp.with("status").put("readyReplicas", i == 2 ? 1 : 0);
            put(kcp);
            assertEquals(List.of(), due(0), "5 ms after the record before: the burst goes on");
        }
        assertEquals(computations + 1, book.computations());
        assertEquals(List.of(), due(WINDOW.toMillis() / 10 - 1), "just under a tenth of the window since the last");
        WriteStatus rest = assertInstanceOf(WriteStatus.class, due(1).get(0), "the rest together, once the burst ended");
        assertEquals(computations + 2, book.computations(), "one computation for the rest of the burst");
        assertNotEquals(first.status(), rest.status());
        assertEquals(ready, rest.status(), "what the last record says: the control plane Machine ready again");
    }

    // --- read-your-own-writes

    @Test
    void aWrittenStatusCountsAsShownUntilItsEchoSoStaleClusterStatesDoNotWriteItAgain() {
        ClusterStatus ready = firstWrite();

        // The Cluster's next state was read before the write: it still shows no status.
        ObjectNode stale = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        stale.with("metadata").with("labels").put("touched", "yes");
        put(stale);
        assertEquals(List.of(), due(WINDOW.toMillis()), "the pending status counts as shown: no second write");

        List<Action> written = written(CLUSTER, ready, ready, now);
        PublishChange change = assertInstanceOf(PublishChange.class, written.get(0));
        assertEquals(ready, change.after());
        assertTrue(change.before().isEmpty(), "no status published before");
        assertFalse(book.settled(), "its echo is awaited");

        put(showing(stale, ready)); // the echo
        assertEquals(List.of(), due(WINDOW.toMillis()));
        assertTrue(book.settled());
    }

    @Test
    void withoutAnEchoWithinTheTimeoutTheClustersOwnStatusIsTrustedAgainAndWrittenOver() {
        ClusterStatus ready = firstWrite();
        written(CLUSTER, ready, ready, now);

        assertEquals(List.of(), due(ECHO.toMillis()), "the echo timeout runs from the end of the write");
        List<Action> again = due(1);
        assertEquals(List.of(new WriteStatus(CLUSTER, ready, "")), again, "another writer overwrote it: written again");
    }

    /**
     * An API server whose Cluster CRD lacks {@code defaultCNI}, {@code workerNodeGroups} and {@code versions} (EKS-A's
     * own) keeps only the rest: the Cluster shows what it kept, and that counts as showing the status written. Were it
     * compared as it is, the dropped fields would be written again at every computation and after every echo timeout.
     */
    @Test
    void aClusterShowingWhatTheApiServerKeptOfTheStatusWrittenIsNotWrittenAgain() {
        ClusterStatus ready = firstWrite();
        ClusterStatus kept = new ClusterStatus(ready.observedGeneration(), ready.failure(), Optional.empty(), ready.conditions(), List.of(),
                ClusterStatus.Versions.NONE);
        assertNotEquals(ready, kept, "the example's status has a defaultCNI and worker node groups");
        assertInstanceOf(PublishChange.class, written(CLUSTER, ready, kept, now).get(0));
        ObjectNode cluster = showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), kept);
        put(cluster); // the echo: what the server kept
        assertEquals(List.of(), due(WINDOW.toMillis()));
        assertTrue(book.settled(), book.progress());
        assertEquals(List.of(), due(ECHO.toMillis() + 1), "no echo timeout: the echo came");

        cluster.with("metadata").with("labels").put("touched", "yes");
        put(cluster);
        assertEquals(List.of(), due(WINDOW.toMillis()), "computed again, the same status: nothing written");

        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        WriteStatus changed = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0), "a change is written");
        assertNotEquals(ready, changed.status());
    }

    /**
     * Write-back off: nothing written (nothing kept), no echo awaited; the status last computed counts as shown
     * whatever the Cluster shows, so another controller's status changes nothing the aggregator publishes.
     */
    @Test
    void withWriteBackOffTheStatusLastComputedCountsAsShownWhateverTheClusterShows() {
        ClusterStatus ready = firstWrite();
        assertInstanceOf(PublishChange.class, written(CLUSTER, ready, null, now).get(0));
        assertTrue(book.settled(), "no echo awaited: " + book.progress());

        ClusterStatus theirs = new ClusterStatus(1, Optional.of(new ClusterStatus.Failure("TheirReason", "their message")),
                Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), theirs)); // another controller's write
        assertEquals(List.of(), due(WINDOW.toMillis()), "computed against its own last status: the same, nothing to do");
        assertEquals(List.of(), due(ECHO.toMillis() + 1));

        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0), "a change is handed on (the writer, off, writes nothing)");
    }

    /**
     * Each status is written on condition of the Cluster's version it was computed from. Another controller sets a
     * failure while the first status is being written (its state read, masked meanwhile by the status being written);
     * the write is refused (409): computed again at once from that newer state, the failure kept and Ready False.
     */
    @Test
    void aStatusRefusedForAChangedClusterIsComputedAgainFromItsNewerState() {
        ObjectNode eksa = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        WriteStatus first = firstWriteAt("11");

        ClusterStatus theirs = new ClusterStatus(1, Optional.of(new ClusterStatus.Failure("BadDatacenterConfig", "no such datacenter")),
                Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE);
        ObjectNode failed = showing(eksa, theirs);
        failed.with("metadata").put("resourceVersion", "12");
        put(failed);
        assertEquals(List.of(), due(WINDOW.toMillis()), "the status being written counts as shown: nothing new");

        conflicted(CLUSTER, first.status(), "11", now);
        WriteStatus again = assertInstanceOf(WriteStatus.class, due(0).get(0), "computed again at once");
        assertEquals("12", again.basis());
        assertEquals(theirs.failure(), again.status().failure(), "the other controller's failure kept");
        assertEquals(ConditionStatus.FALSE, again.status().condition(ConditionType.READY).orElseThrow().status());
    }

    /** Refused before the Cluster's newer state is read: nothing until it comes (no write that would be refused again). */
    @Test
    void aStatusRefusedBeforeTheClustersNewerStateIsReadWaitsForIt() {
        ObjectNode eksa = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        WriteStatus first = firstWriteAt("11");

        conflicted(CLUSTER, first.status(), "11", now);
        assertEquals(List.of(), due(WINDOW.toMillis() * 10), "the state it was computed from is all there is here");

        ObjectNode newer = eksa.deepCopy();
        newer.with("metadata").put("resourceVersion", "12").with("labels").put("touched", "yes");
        put(newer);
        WriteStatus again = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0), "its newer state came: computed");
        assertEquals(new WriteStatus(CLUSTER, first.status(), "12"), again);
    }

    /** No newer state of the Cluster within an echo timeout (a refusal no change of it explains): written again. */
    @Test
    void aStatusRefusedWithNoNewerStateComingIsComputedAgainAfterAnEchoTimeout() {
        WriteStatus first = firstWriteAt("11");
        conflicted(CLUSTER, first.status(), "11", now);
        assertEquals(List.of(), due(ECHO.toMillis() - 1));
        assertEquals(List.of(first), due(1), "computed again, and written on the same condition");
    }

    /** The example's Cluster at {@code resourceVersion}, rebuilt: its first status, handed to write-back. */
    private WriteStatus firstWriteAt(String resourceVersion) {
        object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").with("metadata").put("resourceVersion", resourceVersion);
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        rebuilt(0);
        WriteStatus first = assertInstanceOf(WriteStatus.class, due(0).get(0));
        assertEquals(resourceVersion, first.basis(), "written on condition of the version computed from");
        return first;
    }

    @Test
    void anOutcomeForAStatusReplacedMeanwhileLeavesTheNewerOnePending() {
        ClusterStatus first = firstWrite();
        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        ClusterStatus second = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0)).status();
        assertNotEquals(first, second);

        written(CLUSTER, first, first, now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), first)); // the first write's echo
        assertEquals(List.of(), due(WINDOW.toMillis()), "the newer status is still being written");
        assertFalse(book.settled());
        written(CLUSTER, second, second, now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), second));
        due(WINDOW.toMillis());
        assertTrue(book.settled());
    }

    @Test
    void aRefusedWriteLeavesTheClustersOwnStatusTheTruth() {
        firstWrite();
        assertFalse(book.settled());
        refused(CLUSTER);
        assertTrue(book.settled(), "nothing pending any more");
    }

    // --- publication and deletion

    @Test
    void aStatusFoundCorrectIsPublishedOnceAndAChangeTheBrokerRefusedGoesOutAgainASecondLater() {
        ClusterStatus ready = settledOnReady();
        put(object("Machine")); // the same state again: computed, the same status
        assertEquals(List.of(), due(WINDOW.toMillis()), "published already");

        assertEquals(List.of(new Action.PublishAgain(CLUSTER, "refused")),
                unpublished(CLUSTER, java.util.Optional.empty(), ready, "refused"), "taken back");
        assertEquals(List.of(), due(500), "not before a second");
        PublishChange again = assertInstanceOf(PublishChange.class, due(600).get(0));
        assertEquals(ready, again.after());
    }

    @Test
    void theTombstoneOfTheEksaClusterAnnouncesItsDeletionWithItsLastPublishedStatus() {
        ClusterStatus ready = settledOnReady();
        assertEquals(List.of(), tombstone("Machine"), "a member's deletion is no cluster's deletion");
        List<Action> actions = tombstone("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        AnnounceDeletion deletion = assertInstanceOf(AnnounceDeletion.class, actions.get(0));
        assertEquals(CLUSTER, deletion.cluster());
        assertEquals(ready, deletion.last());
        assertEquals(3, deletion.generation());
        assertFalse(book.isPublished(CLUSTER));
    }

    @Test
    void aClusterDeletedWhileNoInstanceOwnedItsPartitionIsAnnouncedWhenTheRebuildEnds() {
        ClusterStatus last = settledOnReady();
        ObjectKey gone = new ObjectKey("default", "gone-while-away");
        revoked(List.of(0));
        statusesRead(assigned(List.of(0), 1), Map.of(CLUSTER.toString(), last, gone.toString(), last));
        objects.forEach(this::put);
        List<Action> actions = rebuilt(0);
        assertEquals(1, actions.size(), "test-cluster is there: only the other is announced: " + actions);
        assertEquals(gone, assertInstanceOf(AnnounceDeletion.class, actions.get(0)).cluster());
    }

    @Test
    void aPartitionReadToItsEndWaitsForTheStatusTopicBeforeItsClustersAreComputed() {
        ClusterStatus last = settledOnReady();
        ObjectKey gone = new ObjectKey("default", "gone-while-away");
        revoked(List.of(0));
        long assignment = assigned(List.of(0), 1);
        objects.forEach(this::put);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), last)); // its latest record: the echo
        assertEquals(List.of(), rebuilt(0), "the status topic not read yet: nothing announced");
        assertFalse(book.live(0));
        long computations = book.computations();
        assertEquals(List.of(), due(WINDOW.toMillis()), "nothing computed before the status topic is read");
        assertEquals(computations, book.computations());

        List<Action> actions = statusesRead(assignment, Map.of(CLUSTER.toString(), last, gone.toString(), last));
        assertEquals(List.of(new AnnounceDeletion(gone, last.observedGeneration(), last)), actions, "once read, live");
        assertTrue(book.live(0));
        assertEquals(List.of(), due(0), "test-cluster shows what it last published: nothing to write or publish");
        assertEquals(computations + 1, book.computations());
    }

    @Test
    void theStatusTopicReadForAnEarlierAssignmentDoesNotCountForALaterOne() {
        long first = assigned(List.of(0), 1);
        revoked(List.of(0)); // then assigned again before the first read came back: what it read may be stale
        long second = assigned(List.of(0), 1);
        objects.forEach(this::put);
        rebuilt(0);
        assertEquals(List.of(), statusesRead(first, Map.of()));
        assertFalse(book.live(0), "the read of the earlier assignment does not make the partition live");
        statusesRead(second, Map.of());
        assertTrue(book.live(0));
        assertInstanceOf(WriteStatus.class, due(0).get(0));
    }

    @Test
    void writeBackFindingTheClusterGoneAnnouncesItsDeletionOnce() {
        ClusterStatus ready = settledOnReady();
        List<Action> actions = gone(CLUSTER);
        assertEquals(List.of(new AnnounceDeletion(CLUSTER, 3, ready)), actions);
        assertEquals(List.of(), tombstone("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), "announced already");
    }

    @Test
    void revokedPartitionsAreForgottenWithWhatWasPendingForThem() {
        ClusterStatus ready = firstWrite();
        revoked(List.of(0));
        assertEquals(List.of(), written(CLUSTER, ready, ready, now), "no longer this instance's");
        assertEquals(0, book.tracked());
        assertEquals(List.of(), put(object("Machine")), "a record of a revoked partition still in the batch");
    }

    @Test
    void newCompatibilityDataComputesEveryClusterAgain() {
        settledOnReady();
        long computations = book.computations();
        assertEquals(List.of(), on(new BookEvent.TimePassed(now, 100 * POLL, CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN, INSTANT)),
                "at once, however far behind the consumer is");
        assertEquals(computations + 1, book.computations());
    }

    // --- what the observer (the per-cluster metrics) is told

    @Test
    void theObserverHearsNothingWhileRebuildingThenWhatTheClusterShowsAtEachComputationAndWrite() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        rebuilt(0);
        assertEquals(List.of(), told, "nothing while rebuilding");

        ClusterStatus ready = assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
        ClusterObserver.Shown computed = assertInstanceOf(ClusterObserver.Shown.class, told.get(0));
        assertEquals(CLUSTER, computed.cluster());
        assertEquals(3, computed.generation());
        assertEquals(java.util.Optional.of(java.util.List.of("md-0")),
                computed.spec().map(spec -> spec.workerNodeGroups().stream().map(io.statusaggregator.model.WorkerNodeGroup::name).toList()));
        assertEquals(ClusterStatus.NONE, computed.status(), "while being written, the Cluster still shows its own status (none)");

        written(CLUSTER, ready, ready, now);
        assertEquals(new ClusterObserver.Shown(CLUSTER, 3, computed.spec(), ready), told.get(1), "written: the server has it, echo or not");
        put(object("Machine")); // a record before the echo: computed again, still showing the written status
        due(WINDOW.toMillis());
        assertEquals(told.get(1), told.get(2));
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), ready));
        due(WINDOW.toMillis());
        assertEquals(told.get(1), told.get(3), "the echo");
        assertEquals(4, told.size());
    }

    @Test
    void aRefusedWriteLeavesTheObserverWithTheClustersOwnStatus() {
        firstWrite();
        refused(CLUSTER);
        put(object("Machine"));
        due(WINDOW.toMillis());
        assertTrue(told.stream().allMatch(t -> ((ClusterObserver.Shown) t).status().equals(ClusterStatus.NONE)), told.toString());
    }

    @Test
    void aNewGenerationIsToldWithTheOldStatusUntilTheNewOneIsWritten() {
        ClusterStatus ready = settledOnReady();
        ObjectNode changed = showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), ready);
        changed.with("metadata").put("generation", 4);
        put(changed);
        WriteStatus write = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0));
        ClusterObserver.Shown stale = (ClusterObserver.Shown) told.get(told.size() - 1);
        assertEquals(4, stale.generation());
        assertEquals(3, stale.status().observedGeneration(), "what the Cluster shows until the write lands: the alert's staleness");
        written(CLUSTER, write.status(), write.status(), now);
        assertEquals(4, ((ClusterObserver.Shown) told.get(told.size() - 1)).status().observedGeneration());
    }

    @Test
    void anEksaClusterWhoseSpecCannotBeReadIsShownWithoutASpec() {
        settledOnReady();
        ObjectNode broken = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        broken.with("spec").put("kubernetesVersion", "1.x");
        put(broken);
        due(WINDOW.toMillis());
        ClusterObserver.Shown shown = (ClusterObserver.Shown) told.get(told.size() - 1);
        assertEquals(CLUSTER, shown.cluster());
        assertEquals(3, shown.generation());
        assertTrue(shown.spec().isEmpty(), "no spec to export: " + shown.spec());
    }

    @Test
    void theObserverHearsAClusterLeaveOnItsTombstoneOnWriteBackFindingItGoneAndWhenItsRecordIsNotJson() throws Exception {
        settledOnReady();
        told.clear();
        tombstone("Machine");
        assertEquals(List.of(), told, "a member's deletion is not the cluster's");
        tombstone("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        assertEquals(List.of(new Left(CLUSTER)), told);

        load();
        settledOnReady();
        told.clear();
        gone(CLUSTER);
        assertEquals(List.of(new Left(CLUSTER)), told);

        load();
        settledOnReady();
        told.clear();
        apply(keyOf(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1")), "{not json");
        assertEquals(List.of(new Left(CLUSTER)), told);
    }

    @Test
    void anotherEksaClusterOfTheSameNameBesideItLeavesTheFirstShown() {
        settledOnReady();
        told.clear();
        ObjectNode other = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        other.with("metadata").put("namespace", "other");
        ObjectKey otherKey = new ObjectKey("other", "test-cluster");
        apply(new ObjectStateKey("test-cluster", ObjectKind.EKSA_CLUSTER, otherKey).encode(), other.toString());
        due(WINDOW.toMillis());
        assertEquals(List.of(otherKey), told.stream().map(t -> ((ClusterObserver.Shown) t).cluster()).toList(),
                "the first is neither left nor shown again: its name is its own (NameConflictBookTest)");
    }

    @Test
    void theClustersOfARevokedPartitionLeaveAndCanComeBackOnTheNextAssignment() {
        ClusterStatus ready = settledOnReady();
        told.clear();
        revoked(List.of(0));
        assertEquals(List.of(new Left(CLUSTER)), told);

        statusesRead(assigned(List.of(0), 1), Map.of(CLUSTER.toString(), ready));
        objects.forEach(o -> put(o.path("kind").asText().equals("Cluster") && o.path("apiVersion").asText().startsWith("anywhere")
                ? showing(o, ready) : o));
        rebuilt(0);
        due(0);
        assertEquals(ready, ((ClusterObserver.Shown) told.get(1)).status(), "shown again by the partition's new owner");
    }

    // --- records it cannot use

    @Test
    void unusableRecordsAreDeadLetteredAndAnUnreadableObjectOnlyWhenItsProblemIsNew() {
        settledOnReady();
        assertEquals(DeadLetterReason.UNKNOWN_KEY, letter(apply("no key of ours", "{}")));
        ObjectNode configMap = object("Machine").deepCopy();
        configMap.put("apiVersion", "v1").put("kind", "ConfigMap");
        assertEquals(List.of(), apply(keyOf(object("Machine")), configMap.toString()), "a Machine's record is read when computed");
        assertEquals(DeadLetterReason.UNKNOWN_KIND, letter(due(WINDOW.toMillis())));

        ObjectNode broken = object("MachineDeployment");
        broken.with("status").put("readyReplicas", "many");
        put(broken);
        List<Action> actions = due(WINDOW.toMillis());
        assertEquals(DeadLetterReason.MALFORMED_OBJECT, letter(actions));
        ClusterStatus computed = assertInstanceOf(WriteStatus.class, actions.get(1)).status();
        assertEquals(io.statusaggregator.rules.MalformedInputs.REASON, computed.condition(ConditionType.READY).orElseThrow().reason());
        put(broken);
        assertEquals(List.of(), due(WINDOW.toMillis()), "the same problem again: no second dead letter");

        assertEquals(DeadLetterReason.UNKNOWN_KEY, letter(apply("no key of ours", "{}")), "a key is read at once");
        apply(keyOf(object("Machine")), "{not json");
        assertEquals(DeadLetterReason.NOT_JSON, letter(due(WINDOW.toMillis())));
    }
}
