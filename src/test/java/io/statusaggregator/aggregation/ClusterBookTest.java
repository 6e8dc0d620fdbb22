package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.aggregation.Action;
import io.statusaggregator.aggregation.Action.AnnounceDeletion;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.PublishChange;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.aggregation.ClusterObserver.Shown;
import io.statusaggregator.aggregation.DeadLetters.Reason;
import io.statusaggregator.ingest.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The aggregation core without a broker: records, write outcomes and instants in, actions out. The cluster is the
 * proposal's "cluster is ready" example (rules scenario examples/4), whose objects make a Ready status.
 */
class ClusterBookTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WINDOW = Duration.ofMillis(100);
    private static final Duration LONGEST = Duration.ofSeconds(1);
    /** The records one poll takes: a backlog larger than this grows the window. */
    private static final int POLL = 2_000;
    private static final Duration ECHO = Duration.ofSeconds(10);
    private static final long MS = 1_000_000L;
    private static final Compatibility COMPATIBILITY = CompatibilityReader.builtIn();
    private static final Instant INSTANT = Instant.parse("2023-06-05T21:58:57Z");
    private static final ObjectKey CLUSTER = new ObjectKey("default", "test-cluster");

    /** The offset of the next record applied. */
    private long offset;
    private ClusterBook book;
    private List<ObjectNode> objects;
    /** The time in the test, in nanoseconds; it only moves forward. */
    private long now = 1_000_000_000L;

    @BeforeEach
    void load() throws Exception {
        JsonNode scenario = new YAMLMapper().readTree(Path.of("src/test/resources/scenarios/examples/4-cluster-is-ready.yaml").toFile());
        objects = new ArrayList<>();
        scenario.get("objects").forEach(o -> objects.add((ObjectNode) o.deepCopy()));
        book = new ClusterBook(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO);
        book.observedBy(new ClusterObserver() {
            @Override
            public void shows(Shown cluster) {
                told.add(cluster);
            }

            @Override
            public void left(ObjectKey cluster) {
                told.add(new Left(cluster));
            }
        });
    }

    /** What the book told its observer, in order: {@link ClusterObserver.Shown} and {@link Left}. */
    private final List<Object> told = new ArrayList<>();

    private record Left(ObjectKey cluster) {
    }

    // --- rebuild and coalescing

    @Test
    void aRebuildComputesNothingUntilThePartitionIsRebuiltThenEachClusterOnce() {
        book.assigned(List.of(0), 1, Map.of());
        objects.forEach(o -> assertEquals(List.of(), put(o)));
        assertEquals(List.of(), due(WINDOW.toMillis() * 10), "nothing computed while rebuilding");
        assertFalse(book.live());

        assertEquals(List.of(), book.rebuilt(0));
        List<Action> actions = due(0);
        assertTrue(book.live());
        assertEquals(1, book.computations());
        WriteStatus write = assertInstanceOf(WriteStatus.class, actions.get(0));
        assertEquals(CLUSTER, write.cluster());
        assertEquals(ConditionStatus.TRUE, write.status().condition(ConditionType.READY).orElseThrow().status());
    }

    @Test
    void aBurstOfRecordsIsOneComputationOneWindowAfterItsFirst() {
        settledOnReady();
        long computations = book.computations();
        ObjectNode machine = object("Machine");
        for (int i = 0; i < 5; i++) {
            machine.with("metadata").with("annotations").put("burst", String.valueOf(i));
            put(machine);
            now += 10 * MS;
        }
        assertEquals(List.of(), due(0), "50 ms after the first record: not due yet");
        assertEquals(List.of(), due(60), "due, computed, and the status is the one shown: nothing to do");
        assertEquals(computations + 1, book.computations());
        assertTrue(book.settled());
    }

    @Test
    void behindABacklogRecordsAreGatheredLongerAndComputedAtOnceWhenCaughtUp() {
        ClusterStatus ready = settledOnReady();
        long computations = book.computations();
        ObjectNode kcp = object("KubeadmControlPlane");
        int readyReplicas = kcp.path("status").path("readyReplicas").intValue();
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        assertEquals(List.of(), due(WINDOW.toMillis(), 10 * POLL), "ten polls behind: the window is 1 s");
        assertEquals(List.of(), due(300, 5 * POLL), "five polls behind, 400 ms: the window is 500 ms");
        assertEquals(computations, book.computations());
        WriteStatus write = assertInstanceOf(WriteStatus.class, due(100, 5 * POLL).get(0), "500 ms: due");
        assertEquals(computations + 1, book.computations());
        assertNotEquals(ready, write.status());

        book.written(CLUSTER, write.status(), now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), write.status()));
        assertEquals(List.of(), due(WINDOW.toMillis(), 100 * POLL), "far behind, 100 ms: not due");
        assertEquals(List.of(), due(899, 100 * POLL), "999 ms: not due");
        assertEquals(List.of(), due(1, 100 * POLL), "1 s, the longest window: due (the echo: nothing to do)");
        assertEquals(computations + 2, book.computations());

        kcp.with("status").put("readyReplicas", readyReplicas);
        put(kcp);
        assertEquals(List.of(), due(WINDOW.toMillis() / 2, 100 * POLL));
        assertEquals(List.of(), due(WINDOW.toMillis() / 2 - 1, POLL), "caught up, 99 ms: the window is 100 ms again");
        assertEquals(new WriteStatus(CLUSTER, ready), due(1, POLL).get(0), "100 ms: due, and Ready again");
    }

    @Test
    void aRebuiltPartitionIsComputedAtOnceHoweverFarBehindTheConsumerIs() {
        book.assigned(List.of(0), 1, Map.of());
        objects.forEach(this::put);
        book.rebuilt(0);
        assertInstanceOf(WriteStatus.class, due(0, 100 * POLL).get(0));
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

        List<Action> written = book.written(CLUSTER, ready, now);
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
        book.written(CLUSTER, ready, now);

        assertEquals(List.of(), due(ECHO.toMillis()), "the echo timeout runs from the end of the write");
        List<Action> again = due(1);
        assertEquals(List.of(new WriteStatus(CLUSTER, ready)), again, "another writer overwrote it: written again");
    }

    @Test
    void anOutcomeForAStatusReplacedMeanwhileLeavesTheNewerOnePending() {
        ClusterStatus first = firstWrite();
        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        ClusterStatus second = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0)).status();
        assertNotEquals(first, second);

        book.written(CLUSTER, first, now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), first)); // the first write's echo
        assertEquals(List.of(), due(WINDOW.toMillis()), "the newer status is still being written");
        assertFalse(book.settled());
        book.written(CLUSTER, second, now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), second));
        due(WINDOW.toMillis());
        assertTrue(book.settled());
    }

    @Test
    void aRefusedWriteLeavesTheClustersOwnStatusTheTruth() {
        firstWrite();
        assertFalse(book.settled());
        book.refused(CLUSTER);
        assertTrue(book.settled(), "nothing pending any more");
    }

    // --- publication and deletion

    @Test
    void aStatusFoundCorrectIsPublishedOnceAndAChangeTheBrokerRefusedGoesOutAgainASecondLater() {
        ClusterStatus ready = settledOnReady();
        put(object("Machine")); // the same state again: computed, the same status
        assertEquals(List.of(), due(WINDOW.toMillis()), "published already");

        assertTrue(book.unpublished(CLUSTER, java.util.Optional.empty(), ready, now));
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
        book.revoked(List.of(0));
        book.assigned(List.of(0), 1, Map.of(CLUSTER.toString(), last, gone.toString(), last));
        objects.forEach(this::put);
        List<Action> actions = book.rebuilt(0);
        assertEquals(1, actions.size(), "test-cluster is there: only the other is announced: " + actions);
        assertEquals(gone, assertInstanceOf(AnnounceDeletion.class, actions.get(0)).cluster());
    }

    @Test
    void writeBackFindingTheClusterGoneAnnouncesItsDeletionOnce() {
        ClusterStatus ready = settledOnReady();
        List<Action> actions = book.gone(CLUSTER);
        assertEquals(List.of(new AnnounceDeletion(CLUSTER, 3, ready)), actions);
        assertEquals(List.of(), tombstone("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), "announced already");
    }

    @Test
    void revokedPartitionsAreForgottenWithWhatWasPendingForThem() {
        ClusterStatus ready = firstWrite();
        book.revoked(List.of(0));
        assertEquals(List.of(), book.written(CLUSTER, ready, now), "no longer this instance's");
        assertEquals(0, book.tracked());
        assertEquals(List.of(), put(object("Machine")), "a record of a revoked partition still in the batch");
    }

    @Test
    void newCompatibilityDataComputesEveryClusterAgain() {
        settledOnReady();
        long computations = book.computations();
        assertEquals(List.of(), book.due(now, 100 * POLL, CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN, INSTANT),
                "at once, however far behind the consumer is");
        assertEquals(computations + 1, book.computations());
    }

    // --- what the observer (the per-cluster metrics) is told

    @Test
    void theObserverHearsNothingWhileRebuildingThenWhatTheClusterShowsAtEachComputationAndWrite() {
        book.assigned(List.of(0), 1, Map.of());
        objects.forEach(this::put);
        book.rebuilt(0);
        assertEquals(List.of(), told, "nothing while rebuilding");

        ClusterStatus ready = assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
        ClusterObserver.Shown computed = assertInstanceOf(ClusterObserver.Shown.class, told.get(0));
        assertEquals(CLUSTER, computed.cluster());
        assertEquals(3, computed.generation());
        assertEquals(java.util.Optional.of(java.util.List.of("md-0")),
                computed.spec().map(spec -> spec.workerNodeGroups().stream().map(io.statusaggregator.model.WorkerNodeGroup::name).toList()));
        assertEquals(ClusterStatus.NONE, computed.status(), "while being written, the Cluster still shows its own status (none)");

        book.written(CLUSTER, ready, now);
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
        book.refused(CLUSTER);
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
        book.written(CLUSTER, write.status(), now);
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
        book.gone(CLUSTER);
        assertEquals(List.of(new Left(CLUSTER)), told);

        load();
        settledOnReady();
        told.clear();
        apply(keyOf(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1")), "{not json");
        assertEquals(List.of(new Left(CLUSTER)), told);
    }

    @Test
    void anotherEksaClusterOfTheSameNameInItsPlaceMakesTheFirstLeave() {
        settledOnReady();
        told.clear();
        ObjectNode other = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        other.with("metadata").put("namespace", "other");
        ObjectKey otherKey = new ObjectKey("other", "test-cluster");
        apply(new ObjectStateKey("test-cluster", ObjectKind.EKSA_CLUSTER, otherKey).encode(), other.toString());
        assertEquals(List.of(new Left(CLUSTER)), told);
        due(WINDOW.toMillis());
        assertEquals(otherKey, ((ClusterObserver.Shown) told.get(1)).cluster());
    }

    @Test
    void theClustersOfARevokedPartitionLeaveAndCanComeBackOnTheNextAssignment() {
        ClusterStatus ready = settledOnReady();
        told.clear();
        book.revoked(List.of(0));
        assertEquals(List.of(new Left(CLUSTER)), told);

        book.assigned(List.of(0), 1, Map.of(CLUSTER.toString(), ready));
        objects.forEach(o -> put(o.path("kind").asText().equals("Cluster") && o.path("apiVersion").asText().startsWith("anywhere")
                ? showing(o, ready) : o));
        book.rebuilt(0);
        due(0);
        assertEquals(ready, ((ClusterObserver.Shown) told.get(1)).status(), "shown again by the partition's new owner");
    }

    // --- records it cannot use

    @Test
    void unusableRecordsAreDeadLetteredAndAnUnreadableObjectOnlyWhenItsProblemIsNew() {
        settledOnReady();
        assertEquals(Reason.UNKNOWN_KEY, letter(apply("no key of ours", "{}")));
        ObjectNode configMap = object("Machine").deepCopy();
        configMap.put("apiVersion", "v1").put("kind", "ConfigMap");
        assertEquals(List.of(), apply(keyOf(object("Machine")), configMap.toString()), "a Machine's record is read when computed");
        assertEquals(Reason.UNKNOWN_KIND, letter(due(WINDOW.toMillis())));

        ObjectNode broken = object("MachineDeployment");
        broken.with("status").put("readyReplicas", "many");
        put(broken);
        List<Action> actions = due(WINDOW.toMillis());
        assertEquals(Reason.MALFORMED_OBJECT, letter(actions));
        ClusterStatus computed = assertInstanceOf(WriteStatus.class, actions.get(1)).status();
        assertEquals(io.statusaggregator.rules.MalformedInputs.REASON, computed.condition(ConditionType.READY).orElseThrow().reason());
        put(broken);
        assertEquals(List.of(), due(WINDOW.toMillis()), "the same problem again: no second dead letter");

        assertEquals(Reason.UNKNOWN_KEY, letter(apply("no key of ours", "{}")), "a key is read at once");
        apply(keyOf(object("Machine")), "{not json");
        assertEquals(Reason.NOT_JSON, letter(due(WINDOW.toMillis())));
    }

    @Test
    void aMachinesRecordIsReadWhenItsClusterIsComputedAndOnlyIfItIsItsObjectsLatest() {
        settledOnReady();
        long computations = book.computations();
        ObjectNode machine = object("Machine");
        String good = machine.toString();
        apply(keyOf(machine), "{not json");
        ObjectNode broken = machine.deepCopy();
        broken.with("status").put("phase", 7);
        apply(keyOf(machine), broken.toString());
        assertEquals(List.of(), apply(keyOf(machine), good), "nothing read yet");
        assertEquals(List.of(), due(WINDOW.toMillis()), "only the latest was read, as compaction would leave it: no dead "
                + "letter for the two it replaced, and the cluster is Ready as before");
        assertEquals(computations + 1, book.computations());
        assertTrue(book.settled(), book.progress());
    }

    @Test
    void aRebuildReadsOnlyEachObjectsLatestRecordAndAtMostSoManyWaitUnread() {
        book.assigned(List.of(0), 1, Map.of());
        ObjectNode machine = object("Machine");
        apply(keyOf(machine), "{not json"); // replaced below before it is read: no dead letter
        objects.forEach(this::put);
        long oldest = book.unreadFrom(0).getAsLong();
        assertTrue(oldest > 0, "the record replaced is not waited for");
        int machines = ClusterBook.UNREAD_WHILE_REBUILDING;
        List<Action> read = List.of();
        for (int i = 0; i < machines; i++) {
            ObjectNode other = machine.deepCopy();
            other.with("metadata").put("name", "m-" + i);
            read = apply(new ObjectStateKey("cluster-" + i / 10, ObjectKind.MACHINE, new ObjectKey("eksa-system", "m-" + i)).encode(),
                    other.toString());
        }
        assertEquals(List.of(), read, "the oldest read: nothing to say about them");
        assertTrue(book.unreadFrom(0).getAsLong() > oldest, "the oldest clusters' records were read");
        assertEquals(1 + machines / 10, book.tracked());
        assertEquals(List.of(), book.rebuilt(0));
        List<Action> actions = due(0);
        assertEquals(1, actions.size(), "the cluster's status, and no dead letter: " + actions);
        assertInstanceOf(WriteStatus.class, actions.get(0));
        assertTrue(book.unreadFrom(0).isEmpty());
    }

    @Test
    void theCommittedOffsetStopsAtTheOldestRecordNotReadYet() {
        settledOnReady();
        assertTrue(book.unreadFrom(0).isEmpty());
        long first = offset;
        put(object("Machine"));
        put(object("MachineDeployment"));
        put(object("Machine")); // replaces the first: that one will never be read
        assertEquals(first + 1, book.unreadFrom(0).getAsLong());
        tombstone("MachineDeployment");
        assertEquals(first + 2, book.unreadFrom(0).getAsLong(), "a deletion: its object's record will not be read");
        due(WINDOW.toMillis());
        assertTrue(book.unreadFrom(0).isEmpty(), "read when computed");
    }

    @Test
    void aDeadLetterCarriesTheRecordItIsAbout() {
        settledOnReady();
        apply(keyOf(object("Machine")), "{not json");
        long at = offset - 1;
        DeadLetter letter = assertInstanceOf(DeadLetter.class, due(WINDOW.toMillis()).get(0));
        assertEquals("record@" + at, letter.origin());
    }

    @Test
    void aClusterWhoseOnlyRecordsAreUnreadableIsForgottenWhenComputed() {
        settledOnReady();
        String key = new ObjectStateKey("other-cluster", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m-1")).encode();
        apply(key, "{not json");
        assertEquals(2, book.tracked(), "its record is not read yet");
        assertEquals(Reason.NOT_JSON, letter(due(WINDOW.toMillis())));
        assertEquals(1, book.tracked());
        assertTrue(book.settled(), book.progress());
    }

    // --- helpers

    /** Assigned and rebuilt: the status of the Cluster, which shows none, is handed to write-back. */
    private ClusterStatus firstWrite() {
        book.assigned(List.of(0), 1, Map.of());
        objects.forEach(this::put);
        book.rebuilt(0);
        return assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
    }

    /** Rebuilt, written and echoed, published: the cluster shows Ready and nothing is in flight. */
    private ClusterStatus settledOnReady() {
        ClusterStatus ready = firstWrite();
        assertInstanceOf(PublishChange.class, book.written(CLUSTER, ready, now).get(0));
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), ready));
        due(WINDOW.toMillis());
        assertTrue(book.settled(), book.progress());
        return ready;
    }

    private List<Action> due(long afterMillis) {
        return due(afterMillis, 0);
    }

    /** What is due {@code afterMillis} later, with {@code backlog} records waiting to be read. */
    private List<Action> due(long afterMillis, long backlog) {
        now += afterMillis * MS;
        return book.due(now, backlog, COMPATIBILITY, ManagementCluster.UNKNOWN, INSTANT);
    }

    private ObjectNode object(String kind) {
        return object(kind, null);
    }

    private ObjectNode object(String kind, String apiVersion) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind)
                && (apiVersion == null || o.path("apiVersion").asText().equals(apiVersion))).findFirst().orElseThrow();
    }

    private static ObjectNode showing(ObjectNode eksaCluster, ClusterStatus status) {
        ObjectNode copy = eksaCluster.deepCopy();
        copy.set("status", StatusEncoder.encode(status));
        return copy;
    }

    private List<Action> put(ObjectNode object) {
        return apply(keyOf(object), object.toString());
    }

    private List<Action> tombstone(String kind) {
        return tombstone(kind, null);
    }

    private List<Action> tombstone(String kind, String apiVersion) {
        return apply(keyOf(object(kind, apiVersion)), null);
    }

    /** The next record of partition 0; its origin, what a dead letter hands back, names its offset. */
    private List<Action> apply(String key, String value) {
        long at = offset++;
        return book.apply(0, at, key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                "record@" + at, now);
    }

    private static String keyOf(JsonNode object) {
        ObjectKind kind = ObjectKind.of(object.path("apiVersion").asText(), object.path("kind").asText()).orElseThrow();
        JsonNode metadata = object.path("metadata");
        return new ObjectStateKey("test-cluster", kind, new ObjectKey(metadata.path("namespace").asText(), metadata.path("name").asText())).encode();
    }

    private static Reason letter(List<Action> actions) {
        return actions.stream().filter(DeadLetter.class::isInstance).map(a -> ((DeadLetter) a).reason()).findFirst().orElse(null);
    }
}
