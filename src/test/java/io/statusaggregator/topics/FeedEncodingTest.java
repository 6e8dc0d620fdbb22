package io.statusaggregator.topics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.cli.ComputeRunner;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.SpecHash;
import io.statusaggregator.model.json.StatusDocument;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.model.json.StatusJson;
import io.statusaggregator.model.json.Utf8Bytes;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The feeds write statuses, change events and status documents with Jackson's generator, no tree: every byte must be
 * what the trees gave ({@link StatusEncoder}'s tree, written as it is), and every event id the hash of the cluster and
 * of both statuses' texts as the data carries them. The trees' code of before is kept here as the reference.
 * The statuses: every one the scenarios under {@code src/test/resources/scenarios} compute or hold, and edge cases.
 */
class FeedEncodingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final ObjectKey CLUSTER = new ObjectKey("default", "alpha");
    private static final List<ClusterStatus> STATUSES = new ArrayList<>();

    @BeforeAll
    static void statuses() throws Exception {
        STATUSES.addAll(scenarioStatuses());
        STATUSES.addAll(edgeCases());
    }

    /** What every scenario computes, for every EKS-A Cluster in it, and the statuses its Clusters hold. */
    private static List<ClusterStatus> scenarioStatuses() throws IOException, URISyntaxException, MalformedObjectException {
        Path root = Path.of(FeedEncodingTest.class.getResource("/scenarios").toURI());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        List<ClusterStatus> statuses = new ArrayList<>();
        assertTrue(files.size() > 50, "scenarios: " + files.size());
        for (Path file : files) {
            int found = statuses.size();
            JsonNode scenario = YAML.readTree(file.toFile());
            StringBuilder objects = new StringBuilder();
            for (JsonNode object : scenario.get("objects")) {
                objects.append("---\n").append(YAML.writeValueAsString(object).replaceFirst("^---\n", ""));
                if (object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/") && object.has("status")) {
                    try {
                        statuses.add(ObjectDecoder.statusOf(object));
                    } catch (MalformedObjectException e) {
                        // a scenario of a malformed status: nothing to publish
                    }
                }
            }
            ComputeRunner.Result result = ComputeRunner.compute(objects.toString(),
                    Instant.parse(scenario.path("now").asText("2023-06-05T21:58:57Z")), scenario.path("capiNamespace").asText("eksa-system"));
            for (JsonNode document : result.documents()) {
                if (document.has("status")) {
                    statuses.add(ObjectDecoder.statusOf(document));
                }
            }
            assertTrue(statuses.size() > found, "no status from " + file);
        }
        return statuses;
    }

    private static Condition condition(ConditionType type, ConditionStatus status, String reason, String message, Severity severity) {
        return new Condition(type, status, reason, message, severity, T0);
    }

    private static List<ClusterStatus> edgeCases() {
        String awkward = "quote \" backslash \\ slash / tab \t newline \n cr \r nul \u0000 bell \u0007 del \u007f "
                + "é ü ß 漢字 emoji \ud83d\ude80 line sep \u2028 bom \ufeff <script>&amp;";
        String loneSurrogates = "high \ud800 alone, low \udc00 alone, then a pair \ud83d\ude80 and a high at the end \udbff";
        List<Condition> allFalse = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            allFalse.add(condition(type, ConditionStatus.FALSE, "Reason" + type.ordinal(), awkward, Severity.WARNING));
        }
        KubernetesVersion v130 = new KubernetesVersion(1, 30);
        KubernetesVersion v131 = new KubernetesVersion(1, 31);
        return List.of(
                ClusterStatus.NONE,
                new ClusterStatus(0, Optional.empty(), Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE),
                // empty strings left out: reason, message, severity; a failure with empty parts; a CNI with no version
                new ClusterStatus(3, Optional.of(new ClusterStatus.Failure("", "")),
                        Optional.of(new ClusterStatus.DefaultCni(Cni.CILIUM, "", ClusterStatus.CniState.NOT_APPLIED)),
                        List.of(condition(ConditionType.READY, ConditionStatus.TRUE, "", "", Severity.NONE)), List.of(), ClusterStatus.Versions.NONE),
                new ClusterStatus(Long.MAX_VALUE, Optional.of(new ClusterStatus.Failure("SpecInvalid", awkward)),
                        Optional.of(new ClusterStatus.DefaultCni(Cni.KINDNETD, "v0.2 \"x\"", ClusterStatus.CniState.APPLIED)),
                        allFalse, List.of(), ClusterStatus.Versions.NONE),
                new ClusterStatus(7, Optional.of(new ClusterStatus.Failure("", loneSurrogates)), Optional.empty(),
                        List.of(condition(ConditionType.READY, ConditionStatus.UNKNOWN, loneSurrogates, loneSurrogates, Severity.ERROR)),
                        List.of(), ClusterStatus.Versions.NONE),
                // worker groups, with and without versions; versions partly there
                new ClusterStatus(2, Optional.empty(), Optional.empty(), allFalse,
                        List.of(new ClusterStatus.WorkerNodeGroupStatus("md-0", Optional.of(v131), 3, 1, 0),
                                new ClusterStatus.WorkerNodeGroupStatus("md-\u00e9", Optional.empty(), 0, 0, 0)),
                        new ClusterStatus.Versions(Optional.of("v0.23.1#abc"), Optional.empty(), Optional.empty(), Optional.empty())),
                new ClusterStatus(2, Optional.empty(), Optional.empty(), List.of(), List.of(),
                        new ClusterStatus.Versions(Optional.empty(), Optional.of("v0.23.1#cur"), Optional.of("v0.22.0#last"),
                                Optional.of(new KubernetesVersions(Optional.empty(), List.of())))),
                new ClusterStatus(2, Optional.empty(), Optional.empty(), List.of(), List.of(),
                        new ClusterStatus.Versions(Optional.of("n#1"), Optional.of("c#2"), Optional.of("l#3"),
                                Optional.of(new KubernetesVersions(Optional.of(v130), List.of(new KubernetesVersions.Group("md-0", Optional.empty()),
                                        new KubernetesVersions.Group("md-1", Optional.of(v131))))))),
                new ClusterStatus(2, Optional.empty(), Optional.empty(), List.of(), List.of(),
                        new ClusterStatus.Versions(Optional.empty(), Optional.empty(), Optional.empty(),
                                Optional.of(new KubernetesVersions(Optional.of(v130), List.of(new KubernetesVersions.Group("", Optional.of(v130))))))));
    }

    @Test
    void aStatusIsWrittenAsItsTreeWas() {
        for (ClusterStatus status : STATUSES) {
            ObjectNode tree = StatusEncoder.encode(status);
            assertEquals(tree.toString(), StatusJson.text(status), () -> "contract order of " + status);
            assertEquals(tree.toString(), PublishedStatus.of(status).json());
        }
    }

    @Test
    void aChangeHasTheIdAndDataItHadEachStatusAfterTheOneBefore() throws IOException {
        List<StatusChange> changes = new ArrayList<>();
        changes.add(change(Optional.empty(), Optional.of(STATUSES.get(0))));
        for (int i = 1; i < STATUSES.size(); i++) {
            changes.add(change(Optional.of(STATUSES.get(i - 1)), Optional.of(STATUSES.get(i))));
        }
        for (ClusterStatus status : STATUSES.subList(STATUSES.size() - 12, STATUSES.size())) {
            changes.add(change(Optional.of(status), Optional.empty())); // deletions
        }
        int parsed = 0;
        for (StatusChange change : changes) {
            assertEquals(idOfTrees(change), change.id(), () -> "id of " + change);
            byte[] data = change.data();
            String legacy = legacyData(change).toString();
            assertArrayEquals(legacy.getBytes(StandardCharsets.UTF_8), data, () -> "data of " + change);
            if (new String(data, StandardCharsets.UTF_8).equals(legacy)) { // an unpaired surrogate was never sent as it was
                // The tree as before, but for the numbers' node types (parsing makes an int of a small long).
                assertTrue(legacyData(change).equals(FeedEncodingTest::sameValue, JSON.readTree(data)), () -> "data tree of " + change);
                parsed++;
            }
        }
        assertTrue(parsed > changes.size() - 5, "data parsed: " + parsed + " of " + changes.size());
    }

    @Test
    void aStatusDocumentIsWrittenAsItsTreeWas() {
        EksaCluster cluster = new EksaCluster(new ObjectKey("ns-\u00e9", "alpha"), "anywhere.eks.amazonaws.com/v1alpha1", 42,
                java.util.Map.of(), null, "", ClusterStatus.NONE, "", null);
        for (ClusterStatus status : STATUSES) {
            assertEquals(StatusDocument.of(cluster, status).toString(), StatusDocument.text(cluster, PublishedStatus.of(status).json()));
        }
    }

    @Test
    void transitionTimesAreWrittenAsInstantToStringWritesThem() {
        Random random = new Random(7);
        List<Instant> times = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("0000-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Instant.parse("0000-01-01T00:00:00Z").minusNanos(1), Instant.parse("+10000-01-01T00:00:00Z"), Instant.MIN, Instant.MAX,
                Instant.parse("2000-02-29T12:00:00Z"), Instant.parse("1900-03-01T00:00:00.5Z"), Instant.parse("2026-11-22T01:37:59.104Z"),
                Instant.parse("2026-11-22T01:37:00.000100Z"), Instant.parse("2026-11-22T01:37:00.000000001Z")));
        for (int i = 0; i < 5_000; i++) {
            long seconds = random.nextInt(4) == 0 ? random.nextLong() % 400_000_000_000L : 946_684_800L + random.nextInt(1_000_000_000);
            int nanos = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextInt(1_000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            times.add(Instant.ofEpochSecond(seconds, nanos));
        }
        for (Instant time : times) {
            ClusterStatus status = new ClusterStatus(1, Optional.empty(), Optional.empty(),
                    List.of(new Condition(ConditionType.READY, ConditionStatus.TRUE, "", "", Severity.NONE, time)), List.of(), ClusterStatus.Versions.NONE);
            ObjectNode tree = StatusEncoder.encode(status);
            assertEquals(tree.toString(), StatusJson.text(status), time::toString);
        }
    }

    @Test
    void utf8BytesAreWhatStringGetBytesGives() {
        Random random = new Random(7);
        char[] alphabet = {'a', '"', '\\', '\n', '\u0000', '\u00e9', '\u07ff', '\u0800', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude80'};
        for (int n = 0; n < 2_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(40); i > 0; i--) {
                text.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String s = text.toString();
            Utf8Bytes array = Utf8Bytes.array(random.nextInt(64)); // the thread's buffer lent again, or a new one
            int cut = s.isEmpty() ? 0 : random.nextInt(s.length());
            array.append(s.substring(0, cut)).write(s.toCharArray(), cut, s.length() - cut); // in two writes: a pair may be split
            assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), array.toByteArray(), s);
            Utf8Bytes sha1 = Utf8Bytes.sha1();
            sha1.write(s, 0, s.length());
            assertEquals(SpecHash.base64urlSha1(s), sha1.base64urlSha1(), s);
        }
        Utf8Bytes big = Utf8Bytes.sha1();
        String long_ = "\u00e9x\ud83d\ude80".repeat(5_000);
        big.append(long_);
        assertEquals(SpecHash.base64urlSha1(long_), big.base64urlSha1(), "more than the digest's buffer");
    }

    @Test
    void longRunsOfAsciiAcrossTheBuffersEndsAreWhatStringGetBytesGives() {
        Random random = new Random(11);
        char[] other = {'\u00e9', '\u0800', '\ud800', '\udc00', '\ud83d', '\ude80'};
        for (int n = 0; n < 300; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(5_000); i > 0; i--) {
                text.append(random.nextInt(50) == 0 ? other[random.nextInt(other.length)] : (char) (32 + random.nextInt(95)));
            }
            String s = text.toString();
            Utf8Bytes array = Utf8Bytes.array(random.nextInt(2_000));
            Utf8Bytes sha1 = Utf8Bytes.sha1();
            for (int at = 0; at < s.length(); ) {
                int next = Math.min(s.length(), at + 1 + random.nextInt(1_500));
                switch (random.nextInt(3)) { // the three ways a generator or a caller writes text
                    case 0 -> {
                        array.write(s.toCharArray(), at, next - at);
                        sha1.write(s.toCharArray(), at, next - at);
                    }
                    case 1 -> {
                        array.write(s, at, next - at);
                        sha1.write(s, at, next - at);
                    }
                    default -> {
                        array.append(s.substring(at, next));
                        sha1.append(new StringBuilder(s.substring(at, next)));
                    }
                }
                at = next;
            }
            assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), array.toByteArray(), "text " + n);
            assertEquals(SpecHash.base64urlSha1(s), sha1.base64urlSha1(), "text " + n);
        }
    }

    private static int sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.bigIntegerValue().compareTo(b.bigIntegerValue());
        }
        return a.equals(b) ? 0 : 1;
    }

    private static StatusChange change(Optional<ClusterStatus> before, Optional<ClusterStatus> after) {
        return new StatusChange(CLUSTER, 5, before.map(PublishedStatus::of), after.map(PublishedStatus::of),
                new StatusChange.Progress(1, 3, 2, 7));
    }

    /** The id docs/feeds.md defines: the cluster and the texts of both statuses' trees, concatenated and hashed. */
    private static String idOfTrees(StatusChange change) {
        String text = change.cluster() + "\n" + change.before().map(s -> StatusEncoder.encode(s.status()).toString()).orElse("")
                + "\n" + change.after().map(s -> StatusEncoder.encode(s.status()).toString()).orElse("");
        return SpecHash.base64urlSha1(text);
    }

    /** The data as it was: a tree. */
    private static ObjectNode legacyData(StatusChange change) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.putObject("cluster").put("namespace", change.cluster().namespace()).put("name", change.cluster().name());
        data.put("generation", change.generation());
        change.after().ifPresent(s -> data.put("observedGeneration", s.status().observedGeneration()));
        data.set("before", change.before().<JsonNode>map(s -> StatusEncoder.encode(s.status())).orElse(JsonNodeFactory.instance.nullNode()));
        data.set("after", change.after().<JsonNode>map(s -> StatusEncoder.encode(s.status())).orElse(JsonNodeFactory.instance.nullNode()));
        ArrayNode transitions = data.putArray("transitions");
        for (StatusChange.Transition t : change.transitions()) {
            transitions.addObject().put("type", t.type()).put("from", t.from()).put("to", t.to()).put("reason", t.reason())
                    .put("message", t.message()).put("severity", t.severity());
        }
        ObjectNode progress = data.putObject("progress");
        progress.putObject("controlPlane").put("ready", change.progress().controlPlaneReady()).put("desired", change.progress().controlPlaneDesired());
        progress.putObject("workers").put("ready", change.progress().workersReady()).put("desired", change.progress().workersDesired());
        return data;
    }
}
