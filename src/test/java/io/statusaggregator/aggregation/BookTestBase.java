package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.PublishChange;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
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
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of the aggregation core share: a book without a broker, the proposal's "cluster is ready" example
 * (rules scenario examples/4), whose objects make a Ready status, and records, outcomes and instants to give it.
 */
abstract class BookTestBase {
    static final Duration WINDOW = Duration.ofMillis(100);
    static final Duration LONGEST = Duration.ofSeconds(1);
    /** The records one poll takes: a backlog larger than this grows the window. */
    static final int POLL = 2_000;
    static final Duration ECHO = Duration.ofSeconds(10);
    static final long MS = 1_000_000L;
    static final Compatibility COMPATIBILITY = CompatibilityReader.builtIn();
    static final Instant INSTANT = Instant.parse("2023-06-05T21:58:57Z");
    static final ObjectKey CLUSTER = new ObjectKey("default", "test-cluster");

    /** The offset of the next record applied. */
    long offset;
    ClusterBook book;
    List<ObjectNode> objects;
    /** The time in the test, in nanoseconds; it only moves forward. */
    long now = 1_000_000_000L;

    @BeforeEach
    void load() throws Exception {
        JsonNode scenario = new YAMLMapper().readTree(Path.of("src/test/resources/scenarios/examples/4-cluster-is-ready.yaml").toFile());
        objects = new ArrayList<>();
        scenario.get("objects").forEach(o -> objects.add((ObjectNode) o.deepCopy()));
        book = new ClusterBook(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO, "eksa-system");
    }

    /**
     * What the book asked its shell to tell the observer, in order: {@link ClusterObserver.Shown} and {@link Left}.
     * The helpers below take those out of the actions they return, to here.
     */
    final List<Object> told = new ArrayList<>();

    record Left(ObjectKey cluster) {
    }

    /** {@code event} to the book: what it decides, but what it tells the observer, which goes to {@link #told}. */
    List<Action> on(BookEvent event) {
        List<Action> actions = new ArrayList<>(book.on(event));
        actions.removeIf(action -> {
            if (action instanceof Action.Shows shows) {
                told.add(shows.cluster());
            } else if (action instanceof Action.Left left) {
                told.add(new Left(left.cluster()));
            } else {
                return false;
            }
            return true;
        });
        return actions;
    }

    /** Partitions {@code numbers} assigned, of {@code partitionCount}: the assignment the book asks statuses for. */
    long assigned(List<Integer> numbers, int partitionCount) {
        List<Action> actions = on(new BookEvent.Assigned(numbers, partitionCount));
        return assertInstanceOf(Action.ReadStatuses.class, actions.get(0)).assignment();
    }

    List<Action> statusesRead(long assignment, Map<String, ClusterStatus> statuses) {
        return on(new BookEvent.StatusesRead(assignment, statuses));
    }

    List<Action> rebuilt(int number) {
        return on(new BookEvent.Rebuilt(number));
    }

    List<Action> revoked(List<Integer> numbers) {
        return on(new BookEvent.Revoked(numbers));
    }

    List<Action> written(ObjectKey cluster, ClusterStatus status, ClusterStatus kept, long at) {
        return on(new BookEvent.Written(cluster, status, kept, at));
    }

    List<Action> gone(ObjectKey cluster) {
        return on(new BookEvent.Gone(cluster));
    }

    List<Action> conflicted(ObjectKey cluster, ClusterStatus status, String basis, long at) {
        return on(new BookEvent.Conflicted(cluster, status, basis, at));
    }

    List<Action> refused(ObjectKey cluster) {
        return on(new BookEvent.Refused(cluster));
    }

    /** The broker refused the change that published {@code status}, saying {@code error}. */
    List<Action> unpublished(ObjectKey cluster, Optional<ClusterStatus> before, ClusterStatus status, String error) {
        return on(new BookEvent.Unpublished(cluster, before, status, error, now));
    }

    /** Assigned and rebuilt: the status of the Cluster, which shows none, is handed to write-back. */
    ClusterStatus firstWrite() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        rebuilt(0);
        return assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
    }

    /** Rebuilt, written and echoed, published: the cluster shows Ready and nothing is in flight. */
    ClusterStatus settledOnReady() {
        ClusterStatus ready = firstWrite();
        assertInstanceOf(PublishChange.class, written(CLUSTER, ready, ready, now).get(0));
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), ready));
        due(WINDOW.toMillis());
        assertTrue(book.settled(), book.progress());
        return ready;
    }

    List<Action> due(long afterMillis) {
        return due(afterMillis, 0);
    }

    /** What is due {@code afterMillis} later, with {@code backlog} records waiting to be read. */
    List<Action> due(long afterMillis, long backlog) {
        now += afterMillis * MS;
        return on(new BookEvent.TimePassed(now, backlog, COMPATIBILITY, ManagementCluster.UNKNOWN, INSTANT));
    }

    ObjectNode object(String kind) {
        return object(kind, null);
    }

    ObjectNode object(String kind, String apiVersion) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind)
                && (apiVersion == null || o.path("apiVersion").asText().equals(apiVersion))).findFirst().orElseThrow();
    }

    static ObjectNode showing(ObjectNode eksaCluster, ClusterStatus status) {
        ObjectNode copy = eksaCluster.deepCopy();
        copy.set("status", StatusEncoder.encode(status));
        return copy;
    }

    List<Action> put(ObjectNode object) {
        return apply(keyOf(object), object.toString());
    }

    List<Action> tombstone(String kind) {
        return tombstone(kind, null);
    }

    List<Action> tombstone(String kind, String apiVersion) {
        return apply(keyOf(object(kind, apiVersion)), null);
    }

    /** The next record of partition 0; a dead letter hands it back. */
    List<Action> apply(String key, String value) {
        long at = offset++;
        return on(new BookEvent.RecordRead(record(at, key, value), now));
    }

    static SourceRecord record(long offset, String key, String value) {
        return new SourceRecord("object-states", 0, offset, 1_700_000_000_000L, key.getBytes(StandardCharsets.UTF_8),
                fetched(value), List.of());
    }

    /**
     * {@code value} as the consumer hands it over: a slice of a larger fetched response, with other records' bytes on
     * both sides, which a reader must not stray into.
     */
    static java.nio.ByteBuffer fetched(String value) {
        if (value == null) {
            return null;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        String before = "{\"before\":1}";
        byte[] response = (before + value + "{\"after\":2}").getBytes(StandardCharsets.UTF_8);
        return java.nio.ByteBuffer.wrap(response, before.length(), bytes.length).slice();
    }

    static String keyOf(JsonNode object) {
        ObjectKind kind = ObjectKind.of(object.path("apiVersion").asText(), object.path("kind").asText()).orElseThrow();
        JsonNode metadata = object.path("metadata");
        return new ObjectStateKey("test-cluster", kind, new ObjectKey(metadata.path("namespace").asText(), metadata.path("name").asText())).encode();
    }

    static DeadLetterReason letter(List<Action> actions) {
        return actions.stream().filter(DeadLetter.class::isInstance).map(a -> ((DeadLetter) a).reason()).findFirst().orElse(null);
    }
}
