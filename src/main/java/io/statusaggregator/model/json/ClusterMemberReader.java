package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.array;
import static io.statusaggregator.model.json.StrictTokens.bool;
import static io.statusaggregator.model.json.StrictTokens.count;
import static io.statusaggregator.model.json.StrictTokens.generation;
import static io.statusaggregator.model.json.StrictTokens.nextObject;
import static io.statusaggregator.model.json.StrictTokens.object;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.ObservedConditions;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
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
    /** Bits of {@link ObjectFields#once} for this reader's own fields. */
    private static final int SPEC = ObjectFields.FIRST_OWN_BIT,
            STATUS = SPEC << 1,
            LABELS = SPEC << 2,
            CLUSTER_NAME = SPEC << 3,
            VERSION = SPEC << 4,
            OBSERVED_GENERATION = SPEC << 5,
            REPLICAS = SPEC << 6,
            READY_REPLICAS = SPEC << 7,
            UPDATED_REPLICAS = SPEC << 8,
            AVAILABLE_REPLICAS = SPEC << 9,
            INITIALIZED = SPEC << 10,
            INITIALIZATION = SPEC << 11,
            CONDITIONS = SPEC << 12,
            LABEL_CLUSTER = SPEC << 13,
            LABEL_DEPLOYMENT = SPEC << 14,
            UP_TO_DATE_REPLICAS = SPEC << 15;

    private final RepeatedValues shared = new RepeatedValues();

    /** What was read of one object, in whatever order its fields came. */
    private static final class Fields extends ObjectFields {
        final RepeatedValues shared;
        /** The cluster the record's key names (null when not told): its labels and spec name it too. */
        final String expectedCluster;
        String labelCluster;
        String labelDeployment;
        String specClusterName;
        String specVersion;
        long observedGeneration = -1;
        int replicas;
        int readyReplicas;
        int updatedReplicas;
        int upToDateReplicas;
        int availableReplicas;
        boolean initialized;
        boolean controlPlaneInitialized;
        List<ObservedCondition> conditions = List.of();

        Fields(RepeatedValues shared, ObjectKey expected, String expectedCluster) {
            this.shared = shared;
            this.expected = expected;
            this.expectedCluster = expectedCluster;
        }

        @Override
        String string(JsonParser parser, JsonToken value, String expected) throws IOException, GiveUp {
            return shared.text(parser, value, expected);
        }

        @Override
        void metadataField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            if (field.equals("labels")) {
                once(LABELS);
                if (object(value)) {
                    labels(parser, this);
                }
            } else {
                parser.skipChildren();
            }
        }

        @Override
        void bodyField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            switch (field) {
                case "spec" -> {
                    once(SPEC);
                    if (object(value)) {
                        spec(parser, this);
                    }
                }
                case "status" -> {
                    once(STATUS);
                    if (object(value)) {
                        status(parser, this);
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    /** Whether this reader reads objects of {@code kind} (the others go to {@link ObjectDecoder} at once). */
    public static boolean reads(ObjectKind kind) {
        return kind == ObjectKind.MACHINE
                || kind == ObjectKind.MACHINE_DEPLOYMENT
                || kind == ObjectKind.KUBEADM_CONTROL_PLANE;
    }

    /**
     * The object, if it is a member this reader reads and it reads it whole; empty to leave it to
     * {@link ObjectDecoder}.
     */
    public Optional<KubernetesObject> read(byte[] json) {
        return read(json, 0, json.length);
    }

    /**
     * {@link #read(byte[])} of {@code json[offset, offset + length)}: a record's value where the consumer fetched it.
     */
    public Optional<KubernetesObject> read(byte[] json, int offset, int length) {
        return read(json, offset, length, null, null);
    }

    /**
     * {@link #read(byte[], int, int)}, told what the record's key says: the object {@code key} of cluster
     * {@code clusterName}. Where the object says the same, the object read holds these instances rather than copies of
     * its own, and values it shares with objects read before (versions, conditions) are shared too: it lives until its
     * object's next record, and what it holds of its own is what each young collection copies meanwhile. What the
     * object says is still what is read: a record whose value names another object reads as that other object.
     */
    public Optional<KubernetesObject> read(byte[] json, int offset, int length, ObjectKey key, String clusterName) {
        try (JsonParser parser = ObjectFields.parser(json, offset, length)) {
            Fields fields = new Fields(shared, key, clusterName);
            return fields.read(parser) ? Optional.ofNullable(build(fields)) : Optional.empty();
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Every label's value must be a string (or null), as {@link ObjectDecoder} requires; two are kept. */
    private static void labels(JsonParser parser, Fields fields) throws IOException, GiveUp {
        String label;
        while ((label = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            if (ObjectDecoder.CLUSTER_NAME_LABEL.equals(label)) {
                String text = fields.string(parser, value, fields.expectedCluster);
                fields.once(LABEL_CLUSTER);
                fields.labelCluster = text == null ? "" : text;
            } else if (ObjectDecoder.DEPLOYMENT_NAME_LABEL.equals(label)) {
                String text = fields.string(parser, value, null);
                fields.once(LABEL_DEPLOYMENT);
                fields.labelDeployment = text == null ? "" : text;
            } else if (value != JsonToken.VALUE_STRING && value != JsonToken.VALUE_NULL) {
                throw GiveUp.INSTANCE; // not kept, but read as the tree reads it: a string or nothing
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
                    fields.specClusterName = fields.string(parser, value, fields.expectedCluster);
                }
                case "version" -> {
                    fields.once(VERSION);
                    fields.specVersion = fields.string(parser, value, null);
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
                    fields.observedGeneration = generation(parser, value);
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
                case "upToDateReplicas" -> {
                    fields.once(UP_TO_DATE_REPLICAS);
                    fields.upToDateReplicas = count(parser, value);
                }
                case "availableReplicas" -> {
                    fields.once(AVAILABLE_REPLICAS);
                    fields.availableReplicas = count(parser, value);
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
                    fields.conditions = conditions(parser, value, fields);
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

    private static List<ObservedCondition> conditions(JsonParser parser, JsonToken value, Fields fields)
            throws IOException, GiveUp {
        if (!array(value)) {
            return List.of();
        }
        List<ObservedCondition> conditions = new ArrayList<>(4);
        while (nextObject(parser)) {
            conditions.add(condition(parser, fields));
        }
        return conditions;
    }

    private static ObservedCondition condition(JsonParser parser, Fields fields) throws IOException, GiveUp {
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
            String text = fields.string(parser, value, null);
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
        return fields.shared.condition(new ObservedCondition(
                type, status == null ? "" : status, reason == null ? "" : reason, message == null ? "" : message));
    }

    /**
     * The model record, as {@link ObjectDecoder#decode} makes it; null (give up) for any other kind or a missing part.
     */
    private static KubernetesObject build(Fields f) throws GiveUp {
        if (f.apiVersion == null
                || f.apiVersion.isEmpty()
                || f.kind == null
                || f.kind.isEmpty()
                || f.name == null
                || f.name.isEmpty()) {
            return null;
        }
        Optional<ObjectKind> kind = ObjectKind.of(f.apiVersion, f.kind);
        if (kind.isEmpty()) {
            return null;
        }
        ObjectKey key = f.expected != null && f.name == f.expected.name() && f.namespace == f.expected.namespace()
                ? f.expected
                : new ObjectKey(f.namespace == null ? ObjectDecoder.DEFAULT_NAMESPACE : f.namespace, f.name);
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
                    version = f.shared.machineVersion(f.specVersion);
                    if (version.isEmpty()) {
                        yield null;
                    }
                }
                yield new Machine(key, clusterName, Optional.ofNullable(f.labelDeployment), version);
            }
            case MACHINE_DEPLOYMENT -> {
                CapiApiVersion version = CapiApiVersion.of(f.apiVersion).orElse(null);
                yield clusterName == null || version == null
                        ? null
                        : new MachineDeployment(
                                key,
                                clusterName,
                                version,
                                generation,
                                observedGeneration,
                                f.replicas,
                                f.readyReplicas,
                                version == CapiApiVersion.V1BETA2 ? f.upToDateReplicas : f.updatedReplicas,
                                f.availableReplicas,
                                conditions);
            }
            case KUBEADM_CONTROL_PLANE -> {
                CapiApiVersion version = CapiApiVersion.of(f.apiVersion).orElse(null);
                boolean v1beta2 = version == CapiApiVersion.V1BETA2;
                yield version == null
                        ? null
                        : new KubeadmControlPlane(
                                key,
                                clusterName == null ? key.name() : clusterName,
                                version,
                                generation,
                                observedGeneration,
                                f.replicas,
                                f.readyReplicas,
                                v1beta2 ? f.upToDateReplicas : f.updatedReplicas,
                                v1beta2 ? f.availableReplicas : 0,
                                v1beta2 ? f.controlPlaneInitialized : f.initialized,
                                conditions);
            }
            default -> null; // read by ObjectDecoder: rarer, and the EKS-A Cluster's spec is hashed as stored
        };
    }
}
