package io.statusaggregator.aggregation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.json.ClusterMemberReader;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.OversizedObject;
import io.statusaggregator.model.json.UnreadableJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a record of the object-state topic says, decoded from its key and value bytes: an object's latest state, its
 * deletion, or why it cannot be used. No I/O; not thread-safe (one per aggregation thread: it keeps what it read of
 * each EKS-A Cluster's spec).
 */
@Pure
final class ObjectRecord {
    private static final ObjectReader JSON =
            new ObjectMapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** Most records are Machines and their owners' statuses: read without a tree, the rest by {@link ObjectDecoder}. */
    private final ClusterMemberReader members = new ClusterMemberReader();
    private final EksaClusterReader clusters = new EksaClusterReader();
    /**
     * Each EKS-A Cluster's spec as last read fast: the next record of a Cluster (most often the echo of a status
     * written) has the same spec bytes, and is not read through a tree again. Dropped with the Cluster.
     */
    private final Map<ObjectKey, EksaClusterReader.KnownSpec> specs = new HashMap<>();

    /** A record, read. */
    sealed interface Read {
    }

    /** The object a record is of, unless it cannot be about one (a key not ours, a value of another kind). */
    static Optional<ObjectStateKey> objectOf(Read read) {
        return Optional.ofNullable(read instanceof Readable r ? r.key()
                : read instanceof Deleted d ? d.key()
                : read instanceof NotJson n ? n.key()
                : read instanceof Unreadable u ? u.key() : null);
    }

    /** The key is not one this application writes: the record says nothing about any cluster. */
    record BadKey(String error) implements Read {
    }

    /** The object is gone (a tombstone). */
    record Deleted(ObjectStateKey key) implements Read {
    }

    /** The object's latest state. */
    record Readable(ObjectStateKey key, KubernetesObject object) implements Read {
    }

    /**
     * The value is JSON, but not an object of a kind the rules read: dead-lettered, the object's earlier state kept
     * (the record cannot be what it names).
     */
    record OtherKind(ObjectStateKey key, String error) implements Read {
    }

    /** How much of a JSON parser's message (which repeats what it read) a dead letter's error keeps. */
    private static final int NOT_JSON_SHOWN = 300;

    /** The value is not JSON: what the object held before no longer holds. */
    record NotJson(ObjectStateKey key, String error) implements Read {
    }

    /**
     * An object of a kind the rules read that cannot be read: its cluster's status says so. An EKS-A Cluster keeps a
     * stand-in (identity, generation, the status it shows) so that its status can still be written. {@code oversized}:
     * the record is ingest's stand-in for an object too large to send.
     */
    record Unreadable(ObjectStateKey key, MalformedObject problem, Optional<EksaCluster> standIn,
            Optional<OversizedObject> oversized) implements Read {
        /** Its dead letter: the object too large to send, or the record that cannot be read. */
        Action.DeadLetter deadLetter(SourceRecord origin) {
            DeadLetterReason reason =
                    oversized.isPresent() ? DeadLetterReason.TOO_LARGE : DeadLetterReason.MALFORMED_OBJECT;
            return new Action.DeadLetter(reason, problem.describe(), origin, oversized);
        }
    }

    /**
     * A record of a Machine, MachineDeployment or KubeadmControlPlane (most records) whose value is not read yet: see
     * {@link #readLater}.
     */
    record Unread(ObjectStateKey key, ByteBuffer value) implements Read {
    }

    /**
     * The record, except that the value of a Machine, MachineDeployment or KubeadmControlPlane is left {@link Unread}.
     * {@code value} is not copied: left unread, it is kept as it came (see {@code ObjectStateConsumer}).
     */
    Read readLater(byte[] key, ByteBuffer value) {
        Optional<ObjectStateKey> parsed = ObjectStateKey.parse(key);
        if (parsed.isEmpty()) {
            return new BadKey(
                    "not a key this application writes (cluster/Kind.group/namespace/name of a kind the rules read): "
                            + (key == null
                                    ? "no key"
                                    : KubernetesNames.shown(new String(key, StandardCharsets.UTF_8))));
        }
        ObjectStateKey objectKey = parsed.get();
        if (value == null) {
            forget(objectKey);
            return new Deleted(objectKey);
        }
        return ClusterMemberReader.reads(objectKey.kind()) ? new Unread(objectKey, value) : readValue(objectKey, value);
    }

    /** A record left unread, read now. */
    Read read(Unread unread) {
        return readValue(unread.key(), unread.value());
    }

    /** A value's bytes, copied: for the readers that need an array of their own (an EKS-A Cluster's, the tree). */
    static byte[] bytes(ByteBuffer value) {
        byte[] bytes = new byte[value.remaining()];
        value.duplicate().get(bytes);
        return bytes;
    }

    /** The Cluster {@code key} names is gone from this reader's concern (deleted, or its partition revoked). */
    void forget(ObjectKey key) {
        specs.remove(key);
    }

    private void forget(ObjectStateKey key) {
        if (key.kind() == ObjectKind.EKSA_CLUSTER) {
            specs.remove(key.key());
        }
    }

    /** {@code value} is read where it lies by the members' reader; copied for the others. */
    private Read readValue(ObjectStateKey objectKey, ByteBuffer value) {
        Optional<KubernetesObject> fast = Optional.empty();
        if (ClusterMemberReader.reads(objectKey.kind())) {
            byte[] json = value.hasArray() ? value.array() : bytes(value);
            int offset = value.hasArray() ? value.arrayOffset() + value.position() : 0;
            fast = members.read(json, offset, value.remaining(), objectKey.key(), objectKey.clusterName());
        } else if (objectKey.kind() == ObjectKind.EKSA_CLUSTER) {
            Optional<EksaClusterReader.Read> cluster =
                    clusters.read(bytes(value), Optional.ofNullable(specs.get(objectKey.key())));
            if (cluster.isPresent() && cluster.get().cluster().key().equals(objectKey.key())) {
                specs.remove(objectKey.key()); // then put: the key kept is the one the Cluster held now holds
                specs.put(cluster.get().cluster().key(), cluster.get().spec());
            }
            fast = cluster.map(EksaClusterReader.Read::cluster);
        }
        if (fast.isPresent() && fast.get().kind() == objectKey.kind() && fast.get().key().equals(objectKey.key())) {
            return new Readable(objectKey, fast.get());
        }
        forget(objectKey); // read by the tree below, or not at all
        JsonNode json;
        try {
            json = JSON.readTree(bytes(value));
            if (json == null || json.isMissingNode()) {
                return new NotJson(objectKey, "the value is not JSON: no content");
            }
        } catch (IOException e) {
            String problem = e instanceof JsonProcessingException json1 ? UnreadableJson.problem(json1) : e.toString();
            return new NotJson(objectKey, "the value is not JSON: "
                    + KubernetesNames.printable(problem, NOT_JSON_SHOWN));
        }
        try {
            if (ObjectDecoder.kindOf(json).isEmpty()) {
                return new OtherKind(
                        objectKey,
                        "not a kind the rules read: apiVersion \""
                                + json.path("apiVersion").asText() + "\", kind \""
                                + json.path("kind").asText() + "\"");
            }
        } catch (MalformedObjectException e) {
            return new OtherKind(objectKey, "not a Kubernetes object of a kind the rules read: " + e.getMessage());
        }
        try {
            KubernetesObject object = ObjectDecoder.decode(json).orElseThrow();
            if (object.kind() != objectKey.kind() || !object.key().equals(objectKey.key())) {
                throw new MalformedObjectException("", "the record's key names %s %s, its value is %s %s"
                        .formatted(objectKey.kind().kind(), objectKey.key(), object.kind().kind(), object.key()));
            }
            return new Readable(objectKey, object);
        } catch (MalformedObjectException e) {
            Optional<EksaCluster> standIn = objectKey.kind() == ObjectKind.EKSA_CLUSTER
                    ? Optional.of(ObjectDecoder.unreadableCluster(json, objectKey.key())) : Optional.empty();
            MalformedObject problem = new MalformedObject(objectKey.kind(), objectKey.key(), e.getMessage());
            return new Unreadable(objectKey, problem, standIn, OversizedObject.of(json));
        }
    }
}
