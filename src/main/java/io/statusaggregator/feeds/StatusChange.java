package io.statusaggregator.feeds;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.model.json.SpecHash;
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
 * subscribers already saw.
 */
public record StatusChange(ObjectKey cluster, long generation, Optional<PublishedStatus> before, Optional<PublishedStatus> after,
        Progress progress) {
    /** The CloudEvents type of a status change. */
    public static final String CHANGED = "io.statusaggregator.cluster.status.changed";
    /** The CloudEvents type of a Cluster's deletion: its last status, and nothing after. */
    public static final String DELETED = "io.statusaggregator.cluster.deleted";

    /** Ready and desired machines of the control plane and of the workers, for progress bars. */
    public record Progress(int controlPlaneReady, int controlPlaneDesired, int workersReady, int workersDesired) {
        public static final Progress UNKNOWN = new Progress(0, 0, 0, 0);

        public static Progress of(ClusterSnapshot snapshot, ClusterStatus status) {
            String name = snapshot.cluster().key().name();
            int controlPlaneReady = snapshot.controlPlanes().stream().filter(kcp -> kcp.key().name().equals(name)).findFirst()
                    .or(() -> snapshot.controlPlanes().stream().findFirst()).map(KubeadmControlPlane::readyReplicas).orElse(0);
            int workersDesired = 0;
            for (WorkerNodeGroup group : snapshot.cluster().spec().workerNodeGroups()) {
                // An autoscaled group's size is the autoscaler's: what its MachineDeployment asks for.
                workersDesired += group.autoscaling().isPresent()
                        ? status.workerNodeGroups().stream().filter(g -> g.name().equals(group.name())).mapToInt(g -> g.replicas()).sum()
                        : group.count();
            }
            int workersReady = status.workerNodeGroups().stream().mapToInt(ClusterStatus.WorkerNodeGroupStatus::readyReplicas).sum();
            return new Progress(controlPlaneReady, snapshot.cluster().spec().controlPlaneCount(), workersReady, workersDesired);
        }
    }

    /** A condition that changed: its status before and after (empty where it had none), and its reason now. */
    public record Transition(String type, String from, String to, String reason, String message, String severity) {
    }

    public String type() {
        return after.isPresent() ? CHANGED : DELETED;
    }

    public String id() {
        String text = cluster + "\n" + before.map(PublishedStatus::canonical).orElse("") + "\n" + after.map(PublishedStatus::canonical).orElse("");
        return SpecHash.base64urlSha1(text);
    }

    /** Every condition whose status, reason, message or severity differs, in the contract's order. */
    public List<Transition> transitions() {
        List<Transition> moved = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            Optional<Condition> was = before.flatMap(s -> s.status().condition(type));
            Optional<Condition> now = after.flatMap(s -> s.status().condition(type));
            if (was.isEmpty() && now.isEmpty() || was.isPresent() && now.isPresent() && sameState(was.get(), now.get())) {
                continue;
            }
            moved.add(new Transition(type.wireName(), was.map(c -> c.status().wireName()).orElse(""),
                    now.map(c -> c.status().wireName()).orElse(""), now.map(Condition::reason).orElse(""),
                    now.map(Condition::message).orElse(""), now.map(c -> c.severity().wireName()).orElse("")));
        }
        return moved;
    }

    private static boolean sameState(Condition a, Condition b) {
        return a.status() == b.status() && a.reason().equals(b.reason()) && a.message().equals(b.message())
                && Objects.equals(a.severity(), b.severity());
    }

    /** The event's data (JSON): see docs/feeds.md for the schema. */
    public ObjectNode data() {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.putObject("cluster").put("namespace", cluster.namespace()).put("name", cluster.name());
        data.put("generation", generation);
        after.ifPresent(s -> data.put("observedGeneration", s.status().observedGeneration()));
        data.set("before", before.<com.fasterxml.jackson.databind.JsonNode>map(PublishedStatus::json).orElse(JsonNodeFactory.instance.nullNode()));
        data.set("after", after.<com.fasterxml.jackson.databind.JsonNode>map(PublishedStatus::json).orElse(JsonNodeFactory.instance.nullNode()));
        ArrayNode transitions = data.putArray("transitions");
        for (Transition t : transitions()) {
            transitions.addObject().put("type", t.type()).put("from", t.from()).put("to", t.to()).put("reason", t.reason())
                    .put("message", t.message()).put("severity", t.severity());
        }
        ObjectNode progress = data.putObject("progress");
        progress.putObject("controlPlane").put("ready", this.progress.controlPlaneReady()).put("desired", this.progress.controlPlaneDesired());
        progress.putObject("workers").put("ready", this.progress.workersReady()).put("desired", this.progress.workersDesired());
        return data;
    }
}
