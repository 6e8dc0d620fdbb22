package io.statusaggregator.topics;

import com.fasterxml.jackson.core.JsonGenerator;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.model.json.StatusJson;
import io.statusaggregator.model.json.Utf8Bytes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One change of a cluster's status, as the transitions feed carries it: the status published before and the one
 * after (empty after for a deleted Cluster), the conditions that moved, and where the machines stand.
 *
 * <p>Its id is a hash of the cluster and of both statuses, so the same change gets the same id whoever publishes it
 * and whenever: an instance that takes over after a crash and publishes a change again publishes it under the id
 * subscribers already saw. It is the base64url SHA-1 of {@code cluster + "\n" + before + "\n" + after}, each status
 * as the event's data carries it ({@link PublishedStatus#json}, empty where there is none): each status is written
 * once for the id and the data both, and a subscriber can check an id against the data.
 */
@Pure
public record StatusChange(
        ObjectKey cluster,
        long generation,
        Optional<PublishedStatus> before,
        Optional<PublishedStatus> after,
        Progress progress) {
    /** The CloudEvents type of a status change. */
    public static final String CHANGED = "io.statusaggregator.cluster.status.changed";
    /** The CloudEvents type of a Cluster's deletion: its last status, and nothing after. */
    public static final String DELETED = "io.statusaggregator.cluster.deleted";

    /** Ready and desired machines of the control plane and of the workers, for progress bars. */
    public record Progress(int controlPlaneReady, int controlPlaneDesired, int workersReady, int workersDesired) {
        public static final Progress UNKNOWN = new Progress(0, 0, 0, 0);

        public static Progress of(ClusterSnapshot snapshot, ClusterStatus status) {
            // Loops, not streams: every change published asks this.
            String name = snapshot.cluster().key().name();
            KubeadmControlPlane controlPlane = snapshot.controlPlanes().isEmpty()
                    ? null
                    : snapshot.controlPlanes().get(0);
            for (KubeadmControlPlane kcp : snapshot.controlPlanes()) {
                if (kcp.key().name().equals(name)) {
                    controlPlane = kcp;
                    break;
                }
            }
            int controlPlaneReady = controlPlane == null ? 0 : controlPlane.readyReplicas();
            int workersDesired = 0;
            for (WorkerNodeGroup group : snapshot.cluster().spec().workerNodeGroups()) {
                if (group.autoscaling().isEmpty()) {
                    workersDesired += group.count();
                    continue;
                }
                // An autoscaled group's size is the autoscaler's: what its MachineDeployment asks for.
                for (ClusterStatus.WorkerNodeGroupStatus shown : status.workerNodeGroups()) {
                    workersDesired += shown.name().equals(group.name()) ? shown.replicas() : 0;
                }
            }
            int workersReady = 0;
            for (ClusterStatus.WorkerNodeGroupStatus shown : status.workerNodeGroups()) {
                workersReady += shown.readyReplicas();
            }
            return new Progress(
                    controlPlaneReady, snapshot.cluster().spec().controlPlaneCount(), workersReady, workersDesired);
        }
    }

    /** A condition that changed: its status before and after (empty where it had none), and its reason now. */
    public record Transition(String type, String from, String to, String reason, String message, String severity) {
    }

    public String type() {
        return after.isPresent() ? CHANGED : DELETED;
    }

    public String id() {
        Utf8Bytes sha1 = Utf8Bytes.sha1();
        sha1.append(cluster.toString()).append('\n');
        before.ifPresent(s -> sha1.append(s.json()));
        sha1.append('\n');
        after.ifPresent(s -> sha1.append(s.json()));
        return sha1.base64urlSha1();
    }

    /** Every condition whose status, reason, message or severity differs, in the contract's order. */
    public List<Transition> transitions() {
        List<Transition> moved = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            Optional<Condition> was = condition(before, type);
            Optional<Condition> now = condition(after, type);
            if (was.isEmpty() && now.isEmpty()
                    || was.isPresent() && now.isPresent() && sameState(was.get(), now.get())) {
                continue;
            }
            moved.add(new Transition(type.wireName(), was.map(c -> c.status().wireName()).orElse(""),
                    now.map(c -> c.status().wireName()).orElse(""), now.map(Condition::reason).orElse(""),
                    now.map(Condition::message).orElse(""), now.map(c -> c.severity().wireName()).orElse("")));
        }
        return moved;
    }

    /** {@code ClusterStatus.condition} without a stream: this runs for every condition of every change published. */
    private static Optional<Condition> condition(Optional<PublishedStatus> status, ConditionType type) {
        if (status.isPresent()) {
            for (Condition condition : status.get().status().conditions()) {
                if (condition.type() == type) {
                    return Optional.of(condition);
                }
            }
        }
        return Optional.empty();
    }

    private static boolean sameState(Condition a, Condition b) {
        return a.status() == b.status() && a.reason().equals(b.reason()) && a.message().equals(b.message())
                && Objects.equals(a.severity(), b.severity());
    }

    /**
     * The event's data, JSON as UTF-8 (see docs/feeds.md for the schema): written with a generator, each status's
     * {@link PublishedStatus#json} text copied in as it is.
     */
    public byte[] data() {
        int size = 512 + before.map(s -> s.json().length()).orElse(0) + after.map(s -> s.json().length()).orElse(0);
        Utf8Bytes out = Utf8Bytes.array(size);
        try (JsonGenerator data = StatusJson.FACTORY.createGenerator(out)) {
            data.writeStartObject();
            data.writeObjectFieldStart("cluster");
            data.writeStringField("namespace", cluster.namespace());
            data.writeStringField("name", cluster.name());
            data.writeEndObject();
            data.writeNumberField("generation", generation);
            if (after.isPresent()) {
                data.writeNumberField("observedGeneration", after.get().status().observedGeneration());
            }
            status(data, "before", before);
            status(data, "after", after);
            data.writeArrayFieldStart("transitions");
            for (Transition t : transitions()) {
                data.writeStartObject();
                data.writeStringField("type", t.type());
                data.writeStringField("from", t.from());
                data.writeStringField("to", t.to());
                data.writeStringField("reason", t.reason());
                data.writeStringField("message", t.message());
                data.writeStringField("severity", t.severity());
                data.writeEndObject();
            }
            data.writeEndArray();
            data.writeObjectFieldStart("progress");
            data.writeObjectFieldStart("controlPlane");
            data.writeNumberField("ready", progress.controlPlaneReady());
            data.writeNumberField("desired", progress.controlPlaneDesired());
            data.writeEndObject();
            data.writeObjectFieldStart("workers");
            data.writeNumberField("ready", progress.workersReady());
            data.writeNumberField("desired", progress.workersDesired());
            data.writeEndObject();
            data.writeEndObject();
            data.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void status(JsonGenerator data, String field, Optional<PublishedStatus> status) throws IOException {
        data.writeFieldName(field);
        if (status.isPresent()) {
            data.writeRawValue(status.get().json());
        } else {
            data.writeNull();
        }
    }
}
