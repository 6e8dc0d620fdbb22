package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.array;
import static io.statusaggregator.model.json.StrictTokens.count;
import static io.statusaggregator.model.json.StrictTokens.generation;
import static io.statusaggregator.model.json.StrictTokens.nextObject;
import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.CniState;
import io.statusaggregator.model.ClusterStatus.DefaultCni;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an EKS-A Cluster from its JSON bytes, as {@link ClusterMemberReader} reads the members: a fast path in front of
 * {@link ObjectDecoder}, never a second opinion. It answers only for a well-formed Cluster whose every field it reads
 * is valid, and then with what {@link ObjectDecoder#decode} gives ({@code EksaClusterReaderTest} holds the two to it);
 * on anything else it gives up (empty). Every status written comes back as such a record, so it is read often.
 * <p>
 * The status is read with the streaming parser, no tree. The spec is read only when its bytes are new: a spec whose
 * bytes are the ones the caller saw last for the Cluster (their SHA-256, {@link KnownSpec}) is that spec again, with
 * that hash (the record that echoes a status written has the spec of the record before it). A new spec is read from
 * its tokens ({@link ClusterSpecReader}), which write its canonical text for the version history's hash on the way
 * ({@link CanonicalJson}); only a spec that text cannot be written for exactly (a fraction in it, say) is hashed
 * through a tree.
 * Not thread-safe: one per reading thread.
 */
public final class EksaClusterReader {
    private static final ObjectMapper TREE = new ObjectMapper();
    /** Bits of {@link ObjectFields#once} for this reader's own fields. */
    private static final int SPEC = ObjectFields.FIRST_OWN_BIT, STATUS = SPEC << 1, ANNOTATIONS = SPEC << 2,
            RESOURCE_VERSION = SPEC << 3, CREATION_TIMESTAMP = SPEC << 4, UID = SPEC << 5;

    private final MessageDigest sha256;
    private final CanonicalJson canonical = new CanonicalJson();

    public EksaClusterReader() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * A spec as read: the SHA-256 of its bytes (its first 128 bits: enough to tell two specs apart), what it says,
     * and its hash for the version history.
     */
    public record KnownSpec(long digestHigh, long digestLow, EksaClusterSpec spec, String hash) {
    }

    /** A Cluster read, and its spec to hand back for its next record. */
    public record Read(EksaCluster cluster, KnownSpec spec) {
    }

    /** What was read of one Cluster, in whatever order its fields came. */
    private static final class Fields extends ObjectFields {
        /** Where to write the spec's canonical text when reading it at once; null to skip it (a spec is known). */
        final CanonicalJson canonical;
        Map<String, String> annotations = Map.of();
        String resourceVersion = "";
        String creationTimestamp = "";
        String uid = "";
        int specStart = -1;
        int specEnd;
        EksaClusterSpec spec;
        ClusterStatus status = ClusterStatus.NONE;

        Fields(CanonicalJson canonical) {
            this.canonical = canonical;
        }

        @Override
        void metadataField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            if (field.equals("annotations")) {
                once(ANNOTATIONS);
                if (object(value)) {
                    annotations = annotations(parser);
                }
            } else if (field.equals("resourceVersion")) {
                once(RESOURCE_VERSION);
                // Anything but a string (never from an API server) is no version: the write then has no precondition.
                resourceVersion = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else if (field.equals("creationTimestamp")) {
                once(CREATION_TIMESTAMP);
                creationTimestamp = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else if (field.equals("uid")) {
                once(UID);
                uid = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else {
                parser.skipChildren();
            }
        }

        @Override
        void bodyField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            switch (field) {
                case "spec" -> {
                    once(SPEC);
                    if (value != JsonToken.START_OBJECT) {
                        throw GiveUp.INSTANCE; // no spec: the tree names what is missing
                    }
                    specStart = Math.toIntExact(parser.currentTokenLocation().getByteOffset());
                    if (canonical != null) {
                        spec = ClusterSpecReader.read(
                                canonical.recording(parser)); // read once, not skipped and read again
                    } else {
                        parser.skipChildren();
                    }
                    specEnd = Math.toIntExact(parser.currentTokenLocation().getByteOffset()) + 1;
                }
                case "status" -> {
                    once(STATUS);
                    if (object(value)) {
                        status = StatusFields.read(parser);
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    /**
     * The Cluster, if {@code json} is one this reader reads whole; empty to leave it to {@link ObjectDecoder}.
     * {@code known} is the spec this Cluster's previous record had, if the caller kept it.
     */
    public Optional<Read> read(byte[] json, Optional<KnownSpec> known) {
        try (JsonParser parser = ObjectFields.parser(json)) {
            Fields fields = new Fields(known.isEmpty() ? canonical : null);
            return fields.read(parser) ? Optional.of(build(json, fields, known)) : Optional.empty();
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The status of a status document (the status topic's values: a Cluster's identity and status, no spec), as
     * {@link ObjectDecoder#statusOf} reads it; empty to leave it to {@link ObjectDecoder}. A restarted instance reads
     * one per cluster before it starts.
     */
    public static Optional<ClusterStatus> statusOf(byte[] document) {
        try (JsonParser parser = ObjectFields.parser(document)) {
            Fields fields = new Fields(null);
            return fields.read(parser) ? Optional.of(fields.status) : Optional.empty();
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Read build(byte[] json, Fields f, Optional<KnownSpec> known) throws GiveUp, IOException {
        if (f.apiVersion == null
                || f.kind == null
                || ObjectKind.of(f.apiVersion, f.kind).orElse(null) != ObjectKind.EKSA_CLUSTER
                || f.name == null
                || f.name.isEmpty()
                || f.specStart < 0) {
            throw GiveUp.INSTANCE;
        }
        KnownSpec spec = spec(json, f, known);
        ObjectKey key = new ObjectKey(f.namespace == null ? ObjectDecoder.DEFAULT_NAMESPACE : f.namespace, f.name);
        return new Read(
                new EksaCluster(
                        key,
                        f.apiVersion,
                        f.generation < 0 ? 1L : f.generation,
                        f.annotations,
                        spec.spec(),
                        spec.hash(),
                        f.status,
                        f.resourceVersion,
                        new EksaCluster.Creation(f.creationTimestamp, f.uid)),
                spec);
    }

    /**
     * The spec in {@code json[f.specStart, f.specEnd)}: the known one if its bytes are the same, else read through a
     * tree (read already if none was known).
     */
    private KnownSpec spec(byte[] json, Fields f, Optional<KnownSpec> known) throws GiveUp, IOException {
        sha256.update(json, f.specStart, f.specEnd - f.specStart);
        ByteBuffer digest = ByteBuffer.wrap(sha256.digest());
        long high = digest.getLong();
        long low = digest.getLong();
        if (known.isPresent() && known.get().digestHigh() == high && known.get().digestLow() == low) {
            return known.get();
        }
        EksaClusterSpec spec = f.spec;
        if (spec == null) {
            try (JsonParser parser = ObjectFields.parser(json, f.specStart, f.specEnd - f.specStart)) {
                parser.nextToken();
                spec = ClusterSpecReader.read(canonical.recording(parser));
            }
        }
        Optional<String> hash = canonical.hash();
        return new KnownSpec(high, low, spec, hash.isPresent() ? hash.get()
                : SpecHash.of(TREE.readTree(json, f.specStart, f.specEnd - f.specStart)));
    }

    /** Every annotation's value is a string (null reads as empty), as {@link ObjectDecoder} requires. */
    private static Map<String, String> annotations(JsonParser parser) throws IOException, GiveUp {
        Map<String, String> annotations = new HashMap<>();
        String name;
        while ((name = parser.nextFieldName()) != null) {
            String text = text(parser, parser.nextToken());
            annotations.put(name, text == null ? "" : text); // a repeated one: the last, as in the tree
        }
        return annotations;
    }

    /** The status the Cluster shows, read as {@link ObjectDecoder}'s {@code status} reads it. */
    private static final class StatusFields {
        private static final int OBSERVED_GENERATION = 1, FAILURE_REASON = 1 << 1, FAILURE_MESSAGE = 1 << 2,
                DEFAULT_CNI = 1 << 3, CONDITIONS = 1 << 4, WORKER_NODE_GROUPS = 1 << 5, VERSIONS = 1 << 6;

        private StatusFields() {
        }

        static ClusterStatus read(JsonParser parser) throws IOException, GiveUp {
            long observedGeneration = -1;
            String reason = null, message = null;
            Optional<DefaultCni> defaultCni = Optional.empty();
            List<Condition> conditions = List.of();
            List<WorkerNodeGroupStatus> groups = List.of();
            Versions versions = Versions.NONE;
            int seen = 0;
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                int bit = switch (field) {
                    case "observedGeneration" -> OBSERVED_GENERATION;
                    case "failureReason" -> FAILURE_REASON;
                    case "failureMessage" -> FAILURE_MESSAGE;
                    case "defaultCNI" -> DEFAULT_CNI;
                    case "conditions" -> CONDITIONS;
                    case "workerNodeGroups" -> WORKER_NODE_GROUPS;
                    case "versions" -> VERSIONS;
                    default -> 0;
                };
                seen = once(seen, bit);
                switch (bit) {
                    case OBSERVED_GENERATION -> observedGeneration = generation(parser, value);
                    case FAILURE_REASON -> reason = text(parser, value);
                    case FAILURE_MESSAGE -> message = text(parser, value);
                    case DEFAULT_CNI -> defaultCni = object(value) ? defaultCni(parser) : Optional.empty();
                    case CONDITIONS -> conditions = conditions(parser, value);
                    case WORKER_NODE_GROUPS -> groups = workerNodeGroups(parser, value);
                    case VERSIONS -> versions = object(value) ? versions(parser) : Versions.NONE;
                    default -> parser.skipChildren();
                }
            }
            Optional<String> failureReason = Optional.ofNullable(reason).filter(r -> !r.isEmpty());
            Optional<String> failureMessage = Optional.ofNullable(message).filter(m -> !m.isEmpty());
            Optional<Failure> failure = failureReason.isPresent() || failureMessage.isPresent()
                    ? Optional.of(new Failure(failureReason.orElse(""), failureMessage.orElse("")))
                    : Optional.empty();
            return new ClusterStatus(
                    Math.max(observedGeneration, 0L), failure, defaultCni, conditions, groups, versions);
        }

        /** Marks {@code bit} seen; a field seen twice (the tree keeps the last) gives up. */
        private static int once(int seen, int bit) throws GiveUp {
            if ((seen & bit) != 0) {
                throw GiveUp.INSTANCE;
            }
            return seen | bit;
        }

        /**
         * The string fields {@code names} of an object, in that order (null where absent); repeated or not a string
         * gives up.
         */
        private static String[] strings(JsonParser parser, String[] names) throws IOException, GiveUp {
            String[] values = new String[names.length];
            int seen = 0;
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                int index = indexOf(names, field);
                if (index < 0) {
                    parser.skipChildren();
                    continue;
                }
                seen = once(seen, 1 << index);
                values[index] = text(parser, value);
            }
            return values;
        }

        private static int indexOf(String[] names, String name) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return i;
                }
            }
            return -1;
        }

        private static String orEmpty(String text) {
            return text == null ? "" : text;
        }

        private static final String[] DEFAULT_CNI_FIELDS = {"name", "version", "status"};

        private static Optional<DefaultCni> defaultCni(JsonParser parser) throws IOException, GiveUp {
            String[] cni = strings(parser, DEFAULT_CNI_FIELDS);
            Optional<Cni> name = cni[0] == null ? Optional.empty() : Cni.of(cni[0]);
            if (name.isEmpty()) {
                return Optional.empty();
            }
            CniState state = "Applied".equals(cni[2]) ? CniState.APPLIED : CniState.NOT_APPLIED;
            return Optional.of(new DefaultCni(name.get(), orEmpty(cni[1]), state));
        }

        private static final String[] CONDITION_FIELDS = {
            "type", "status", "lastTransitionTime", "reason", "message", "severity"
        };

        /** Conditions of types this aggregator does not own, and ones without a transition time, are skipped. */
        private static List<Condition> conditions(JsonParser parser, JsonToken value) throws IOException, GiveUp {
            if (!array(value)) {
                return List.of();
            }
            List<Condition> conditions = new ArrayList<>(8);
            while (nextObject(parser)) {
                String[] condition = strings(parser, CONDITION_FIELDS);
                Optional<ConditionType> type = condition[0] == null ? Optional.empty() : ConditionType.of(condition[0]);
                Optional<ConditionStatus> status =
                        condition[1] == null ? Optional.empty() : ConditionStatus.of(condition[1]);
                if (type.isEmpty() || status.isEmpty() || condition[2] == null) {
                    continue;
                }
                Instant lastTransitionTime;
                try {
                    lastTransitionTime = TransitionTimes.parse(condition[2]);
                } catch (DateTimeParseException e) {
                    throw GiveUp.INSTANCE; // the tree names the field
                }
                conditions.add(new Condition(
                        type.get(),
                        status.get(),
                        orEmpty(condition[3]),
                        orEmpty(condition[4]),
                        condition[5] == null
                                ? Severity.NONE
                                : Severity.of(condition[5]).orElse(Severity.NONE),
                        lastTransitionTime));
            }
            return conditions;
        }

        private static List<WorkerNodeGroupStatus> workerNodeGroups(JsonParser parser, JsonToken value)
                throws IOException, GiveUp {
            if (!array(value)) {
                return List.of();
            }
            List<WorkerNodeGroupStatus> groups = new ArrayList<>(4);
            while (nextObject(parser)) {
                String name = null, version = null;
                int replicas = 0, ready = 0, upToDate = 0;
                int seen = 0;
                String field;
                while ((field = parser.nextFieldName()) != null) {
                    JsonToken item = parser.nextToken();
                    switch (field) {
                        case "name" -> {
                            seen = once(seen, 1);
                            name = text(parser, item);
                        }
                        case "kubernetesVersion" -> {
                            seen = once(seen, 1 << 1);
                            version = text(parser, item);
                        }
                        case "replicas" -> {
                            seen = once(seen, 1 << 2);
                            replicas = count(parser, item);
                        }
                        case "readyReplicas" -> {
                            seen = once(seen, 1 << 3);
                            ready = count(parser, item);
                        }
                        case "upToDateReplicas" -> {
                            seen = once(seen, 1 << 4);
                            upToDate = count(parser, item);
                        }
                        default -> parser.skipChildren();
                    }
                }
                if (name != null) {
                    groups.add(new WorkerNodeGroupStatus(name, specVersion(version), replicas, ready, upToDate));
                }
            }
            return groups;
        }

        private static Versions versions(JsonParser parser) throws IOException, GiveUp {
            String next = null, current = null, last = null;
            Optional<KubernetesVersions> currentKubernetes = Optional.empty();
            int seen = 0;
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "next" -> {
                        seen = once(seen, 1);
                        next = text(parser, value);
                    }
                    case "current" -> {
                        seen = once(seen, 1 << 1);
                        current = text(parser, value);
                    }
                    case "last" -> {
                        seen = once(seen, 1 << 2);
                        last = text(parser, value);
                    }
                    case "currentKubernetes" -> {
                        seen = once(seen, 1 << 3);
                        currentKubernetes = object(value) ? currentKubernetes(parser) : Optional.empty();
                    }
                    default -> parser.skipChildren();
                }
            }
            return new Versions(
                    Optional.ofNullable(next),
                    Optional.ofNullable(current),
                    Optional.ofNullable(last),
                    currentKubernetes);
        }

        /** {@code versions.currentKubernetes}: a group without a name makes it unreadable, so not written. */
        private static Optional<KubernetesVersions> currentKubernetes(JsonParser parser) throws IOException, GiveUp {
            String version = null;
            List<KubernetesVersions.Group> groups = new ArrayList<>(4);
            boolean unnamed = false;
            int seen = 0;
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "kubernetesVersion" -> {
                        seen = once(seen, 1);
                        version = text(parser, value);
                    }
                    case "workerNodeGroups" -> {
                        seen = once(seen, 1 << 1);
                        if (array(value)) {
                            while (nextObject(parser)) {
                                String[] group = strings(parser, CURRENT_GROUP_FIELDS);
                                unnamed |= group[0] == null;
                                groups.add(new KubernetesVersions.Group(orEmpty(group[0]), specVersion(group[1])));
                            }
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            return unnamed ? Optional.empty() : Optional.of(new KubernetesVersions(specVersion(version), groups));
        }

        private static final String[] CURRENT_GROUP_FIELDS = {"name", "kubernetesVersion"};

        /** A version this aggregator wrote; one that does not parse reads as none, as in the tree. */
        private static Optional<KubernetesVersion> specVersion(String text) {
            return text == null ? Optional.empty() : KubernetesVersion.parseSpec(text);
        }
    }
}
