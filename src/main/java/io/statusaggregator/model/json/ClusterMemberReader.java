package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.ObservedConditions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the cluster members that make most of the object-state topic's records (Machines, MachineDeployments,
 * KubeadmControlPlanes) straight from their JSON bytes into the model, with Jackson's streaming parser: no tree, and
 * the fields the rules do not read skipped. A fast path in front of {@link ObjectDecoder}, never a second opinion: it
 * answers only for a well-formed object of those kinds whose every field it reads is valid, and gives up (empty) on
 * anything else (another kind, a field of the wrong type, a repeated field, a version that does not parse, trailing
 * content), leaving the object to {@link ObjectDecoder}, which reads it or names what is wrong with it. When it does
 * answer, the answer is the one {@link ObjectDecoder#decode} gives ({@code ClusterMemberReaderTest} holds the two to
 * it). Not thread-safe: one per reading thread.
 */
public final class ClusterMemberReader {
    private static final JsonFactory JSON = new JsonFactory();
    /** Bits of {@link Fields#seen}: a field read twice (JSON allows it; the tree keeps the last) is left to the tree. */
    private static final int API_VERSION = 1, KIND = 1 << 1, METADATA = 1 << 2, SPEC = 1 << 3, STATUS = 1 << 4,
            NAMESPACE = 1 << 5, NAME = 1 << 6, GENERATION = 1 << 7, LABELS = 1 << 8, CLUSTER_NAME = 1 << 9,
            VERSION = 1 << 10, OBSERVED_GENERATION = 1 << 11, REPLICAS = 1 << 12, READY_REPLICAS = 1 << 13,
            UPDATED_REPLICAS = 1 << 14, UNAVAILABLE_REPLICAS = 1 << 15, INITIALIZED = 1 << 16, INITIALIZATION = 1 << 17,
            CONDITIONS = 1 << 18, LABEL_CLUSTER = 1 << 19, LABEL_DEPLOYMENT = 1 << 20;

    /** Gives up: the object is left to {@link ObjectDecoder}. Thrown without a stack trace; it is not an error. */
    private static final class GiveUp extends Exception {
        static final GiveUp INSTANCE = new GiveUp();

        private GiveUp() {
            super(null, null, false, false);
        }
    }

    /** What was read of one object, in whatever order its fields came. */
    private static final class Fields {
        int seen;
        String apiVersion;
        String kind;
        String namespace;
        String name;
        long generation = -1;
        String labelCluster;
        String labelDeployment;
        String specClusterName;
        String specVersion;
        long observedGeneration = -1;
        int replicas;
        int readyReplicas;
        int updatedReplicas;
        int unavailableReplicas;
        boolean initialized;
        boolean controlPlaneInitialized;
        List<ObservedCondition> conditions = List.of();

        void once(int bit) throws GiveUp {
            if ((seen & bit) != 0) {
                throw GiveUp.INSTANCE;
            }
            seen |= bit;
        }
    }

    /** Whether this reader reads objects of {@code kind} (the others go to {@link ObjectDecoder} at once). */
    public static boolean reads(ObjectKind kind) {
        return kind == ObjectKind.MACHINE || kind == ObjectKind.MACHINE_DEPLOYMENT || kind == ObjectKind.KUBEADM_CONTROL_PLANE;
    }

    /** The object, if it is a member this reader reads and it reads it whole; empty to leave it to {@link ObjectDecoder}. */
    public Optional<KubernetesObject> read(byte[] json) {
        try (JsonParser parser = JSON.createParser(json)) {
            Fields fields = new Fields();
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            root(parser, fields);
            if (parser.nextToken() != null) {
                return Optional.empty(); // trailing content: the tree refuses it as not JSON
            }
            return Optional.ofNullable(build(fields));
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void root(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "apiVersion" -> {
                    fields.once(API_VERSION);
                    fields.apiVersion = text(parser, value);
                }
                case "kind" -> {
                    fields.once(KIND);
                    fields.kind = text(parser, value);
                }
                case "metadata" -> {
                    fields.once(METADATA);
                    if (object(value)) {
                        metadata(parser, fields);
                    }
                }
                case "spec" -> {
                    fields.once(SPEC);
                    if (object(value)) {
                        spec(parser, fields);
                    }
                }
                case "status" -> {
                    fields.once(STATUS);
                    if (object(value)) {
                        status(parser, fields);
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    private static void metadata(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "namespace" -> {
                    fields.once(NAMESPACE);
                    fields.namespace = text(parser, value);
                }
                case "name" -> {
                    fields.once(NAME);
                    fields.name = text(parser, value);
                }
                case "generation" -> {
                    fields.once(GENERATION);
                    fields.generation = value == JsonToken.VALUE_NULL ? -1 : generation(parser, value);
                }
                case "labels" -> {
                    fields.once(LABELS);
                    if (object(value)) {
                        labels(parser, fields);
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    /** Every label's value must be a string (or null), as {@link ObjectDecoder} requires; two are kept. */
    private static void labels(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String label;
        while ((label = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            String text = text(parser, value);
            if (ObjectDecoder.CLUSTER_NAME_LABEL.equals(label)) {
                fields.once(LABEL_CLUSTER);
                fields.labelCluster = text == null ? "" : text;
            } else if (ObjectDecoder.DEPLOYMENT_NAME_LABEL.equals(label)) {
                fields.once(LABEL_DEPLOYMENT);
                fields.labelDeployment = text == null ? "" : text;
            }
        }
    }

    private static void spec(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "clusterName" -> {
                    fields.once(CLUSTER_NAME);
                    fields.specClusterName = text(parser, value);
                }
                case "version" -> {
                    fields.once(VERSION);
                    fields.specVersion = text(parser, value);
                }
                default -> parser.skipChildren();
            }
        }
    }

    private static void status(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "observedGeneration" -> {
                    fields.once(OBSERVED_GENERATION);
                    fields.observedGeneration = value == JsonToken.VALUE_NULL ? -1 : generation(parser, value);
                }
                case "replicas" -> {
                    fields.once(REPLICAS);
                    fields.replicas = count(parser, value);
                }
                case "readyReplicas" -> {
                    fields.once(READY_REPLICAS);
                    fields.readyReplicas = count(parser, value);
                }
                case "updatedReplicas" -> {
                    fields.once(UPDATED_REPLICAS);
                    fields.updatedReplicas = count(parser, value);
                }
                case "unavailableReplicas" -> {
                    fields.once(UNAVAILABLE_REPLICAS);
                    fields.unavailableReplicas = count(parser, value);
                }
                case "initialized" -> {
                    fields.once(INITIALIZED);
                    fields.initialized = bool(value);
                }
                case "initialization" -> {
                    fields.once(INITIALIZATION);
                    if (object(value)) {
                        initialization(parser, fields);
                    }
                }
                case "conditions" -> {
                    fields.once(CONDITIONS);
                    fields.conditions = conditions(parser, value);
                }
                default -> parser.skipChildren();
            }
        }
    }

    private static void initialization(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String field;
        boolean seen = false;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (field.equals("controlPlaneInitialized")) {
                if (seen) {
                    throw GiveUp.INSTANCE;
                }
                seen = true;
                fields.controlPlaneInitialized = bool(value);
            } else {
                parser.skipChildren();
            }
        }
    }

    private static List<ObservedCondition> conditions(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_NULL) {
            return List.of();
        }
        if (value != JsonToken.START_ARRAY) {
            throw GiveUp.INSTANCE;
        }
        List<ObservedCondition> conditions = new ArrayList<>(4);
        JsonToken item;
        while ((item = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (item != JsonToken.START_OBJECT) {
                throw GiveUp.INSTANCE;
            }
            conditions.add(condition(parser));
        }
        return conditions;
    }

    private static ObservedCondition condition(JsonParser parser) throws IOException, GiveUp {
        String type = null, status = null, reason = null, message = null;
        int seen = 0;
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            int bit = switch (field) {
                case "type" -> 1;
                case "status" -> 2;
                case "reason" -> 4;
                case "message" -> 8;
                default -> 0;
            };
            if (bit == 0) {
                parser.skipChildren();
                continue;
            }
            if ((seen & bit) != 0) {
                throw GiveUp.INSTANCE;
            }
            seen |= bit;
            String text = text(parser, value);
            switch (bit) {
                case 1 -> type = text;
                case 2 -> status = text;
                case 4 -> reason = text;
                default -> message = text;
            }
        }
        if (type == null || type.isEmpty()) {
            throw GiveUp.INSTANCE; // required
        }
        return new ObservedCondition(type, status == null ? "" : status, reason == null ? "" : reason, message == null ? "" : message);
    }

    /** A string, or null for an explicit null; anything else gives up. */
    private static String text(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        throw GiveUp.INSTANCE;
    }

    /** Whether the value is an object to read (false for null); anything else gives up. */
    private static boolean object(JsonToken value) throws GiveUp {
        if (value == JsonToken.START_OBJECT) {
            return true;
        }
        if (value == JsonToken.VALUE_NULL) {
            return false;
        }
        throw GiveUp.INSTANCE;
    }

    private static boolean bool(JsonToken value) throws GiveUp {
        return switch (value) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE, VALUE_NULL -> false;
            default -> throw GiveUp.INSTANCE;
        };
    }

    /** A count: a whole number in an int, not negative; null is 0. */
    private static int count(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_NULL) {
            return 0;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() != JsonParser.NumberType.INT || parser.getIntValue() < 0) {
            throw GiveUp.INSTANCE;
        }
        return parser.getIntValue();
    }

    private static long generation(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || parser.getLongValue() < 0) {
            throw GiveUp.INSTANCE;
        }
        return parser.getLongValue();
    }

    /** The model record, as {@link ObjectDecoder#decode} makes it; null (give up) for any other kind or a missing part. */
    private static KubernetesObject build(Fields f) throws GiveUp {
        if (f.apiVersion == null || f.apiVersion.isEmpty() || f.kind == null || f.kind.isEmpty() || f.name == null || f.name.isEmpty()) {
            return null;
        }
        Optional<ObjectKind> kind = ObjectKind.of(f.apiVersion, f.kind);
        if (kind.isEmpty()) {
            return null;
        }
        ObjectKey key = new ObjectKey(f.namespace == null ? ObjectDecoder.DEFAULT_NAMESPACE : f.namespace, f.name);
        String clusterName = f.specClusterName != null && !f.specClusterName.isEmpty() ? f.specClusterName
                : f.labelCluster != null && !f.labelCluster.isEmpty() ? f.labelCluster : null;
        long generation = f.generation < 0 ? 1L : f.generation;
        long observedGeneration = Math.max(f.observedGeneration, 0L);
        ObservedConditions conditions = new ObservedConditions(f.conditions);
        return switch (kind.get()) {
            case MACHINE -> {
                if (clusterName == null) {
                    yield null;
                }
                Optional<KubernetesVersion> version = Optional.empty();
                if (f.specVersion != null) {
                    version = KubernetesVersion.parseMachine(f.specVersion);
                    if (version.isEmpty()) {
                        yield null;
                    }
                }
                yield new Machine(key, clusterName, Optional.ofNullable(f.labelDeployment), version);
            }
            case MACHINE_DEPLOYMENT -> clusterName == null ? null : new MachineDeployment(key, clusterName, generation,
                    observedGeneration, f.replicas, f.readyReplicas, f.updatedReplicas, conditions);
            case KUBEADM_CONTROL_PLANE -> new KubeadmControlPlane(key, clusterName == null ? key.name() : clusterName, generation,
                    observedGeneration, f.replicas, f.readyReplicas, f.updatedReplicas, f.unavailableReplicas,
                    f.initialized || f.controlPlaneInitialized, conditions);
            default -> null; // read by ObjectDecoder: rarer, and the EKS-A Cluster's spec is hashed as stored
        };
    }
}
