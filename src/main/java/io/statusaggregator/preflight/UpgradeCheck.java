package io.statusaggregator.preflight;

import io.statusaggregator.kubernetes.KubernetesResources;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.versions.UpgradePlan;
import io.statusaggregator.versions.UpgradePlan.Position;
import io.statusaggregator.versions.UpgradePlan.Step;
import io.statusaggregator.versions.UpgradePlan.Target;
import io.statusaggregator.versions.UpgradePlan.UnreachableTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code upgrade-check}: reads a Cluster and the management cluster's releases, and plans the upgrade with
 * {@link UpgradePlan}. The command and the HTTP endpoint both answer through here, so they answer alike.
 */
public final class UpgradeCheck {
    private static final ResourceDefinitionContext CLUSTERS = KubernetesResources.of(ObjectKind.EKSA_CLUSTER);

    private UpgradeCheck() {
    }

    /** No such Cluster. */
    public static final class ClusterNotFound extends Exception {
        private static final long serialVersionUID = 1L;

        ClusterNotFound(ObjectKey key) {
            super("EKS-A Cluster " + key + " not found");
        }
    }

    /** The Cluster {@code key}, read from the API server. */
    public static EksaCluster readCluster(KubernetesClient client, ObjectKey key)
            throws ClusterNotFound, MalformedObjectException {
        GenericKubernetesResource found = client.genericKubernetesResources(CLUSTERS)
                .inNamespace(key.namespace())
                .withName(key.name())
                .get();
        if (found == null) {
            throw new ClusterNotFound(key);
        }
        return (EksaCluster)
                ObjectDecoder.decode(client.getKubernetesSerialization().convertValue(found, JsonNode.class))
                        .orElseThrow();
    }

    /** The EKSARelease objects of {@code namespace}, read from the API server; one that does not decode is left out. */
    public static List<EksaRelease> readReleases(KubernetesClient client, String namespace) {
        List<EksaRelease> releases = new ArrayList<>();
        for (GenericKubernetesResource release : client.genericKubernetesResources(KubernetesResources.RELEASES)
                .inNamespace(namespace)
                .list()
                .getItems()) {
            try {
                releases.add(ObjectDecoder.eksaRelease(
                        client.getKubernetesSerialization().convertValue(release, JsonNode.class)));
            } catch (MalformedObjectException e) {
                // not a release anyone can upgrade to
            }
        }
        return releases;
    }

    /**
     * @param to an EKS-A version, a Kubernetes version, or empty for the default target (the next release)
     */
    public static UpgradePlan plan(
            EksaCluster cluster, List<EksaRelease> releases, Compatibility compatibility, Optional<String> to)
            throws UnreachableTarget {
        Target target = to.filter(t -> !t.isBlank()).isPresent() ? Target.parse(to.get()) : Target.NEXT;
        List<EksaVersion> available = releases.stream()
                .flatMap(r -> r.version().flatMap(EksaVersion::parse).stream())
                .toList();
        return UpgradePlan.of(position(cluster, releases), target, available, compatibility);
    }

    /** Where the spec stands: an update in progress is planned from, since the spec is what the next change edits. */
    private static Position position(EksaCluster cluster, List<EksaRelease> releases) throws UnreachableTarget {
        Optional<String> named = cluster.spec()
                .eksaVersion()
                .or(() -> cluster.spec().bundlesRef().flatMap(bundles -> releases.stream()
                        .filter(r -> r.bundlesRef().equals(Optional.of(bundles)))
                        .findFirst()
                        .flatMap(EksaRelease::version)));
        EksaVersion eksa = named.flatMap(EksaVersion::parse).orElseThrow(() -> new UnreachableTarget(
                "Cluster " + cluster.key() + " names no EKS-A version this check can read: spec.eksaVersion is "
                        + cluster.spec().eksaVersion().orElse("not set") + cluster.spec().bundlesRef()
                        .map(b -> ", and no EKSARelease ships bundles " + b).orElse("")));
        KubernetesVersion controlPlane = cluster.spec().kubernetesVersion().orElseThrow(() -> new UnreachableTarget(
                "Cluster " + cluster.key() + " has no spec.kubernetesVersion"));
        Map<String, KubernetesVersion> groups = new LinkedHashMap<>();
        for (WorkerNodeGroup group : cluster.spec().workerNodeGroups()) {
            groups.put(group.name(), cluster.spec().kubernetesVersionOf(group).orElseThrow());
        }
        return new Position(eksa, controlPlane, groups, Optional.empty());
    }

    /** The answer as JSON: what changes (EKS-A, Cilium, Kubernetes per group), the ordered steps and the notes. */
    public static ObjectNode toJson(ObjectKey cluster, UpgradePlan plan) {
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("cluster", cluster.toString());
        answer.put("upToDate", plan.upToDate());
        answer.set("from", position(plan.from()));
        answer.set("to", position(plan.to()));
        ArrayNode changes = answer.putArray("changes");
        for (Change change : changes(plan)) {
            ObjectNode c = changes.addObject().put("component", change.component());
            change.group().ifPresent(g -> c.put("workerNodeGroup", g));
            c.put("from", change.from()).put("to", change.to());
        }
        ArrayNode steps = answer.putArray("steps");
        for (Step step : plan.steps()) {
            ObjectNode s = steps.addObject().put("component", step.component().wireName());
            step.group().ifPresent(g -> s.put("workerNodeGroup", g));
            s.put("from", step.from()).put("to", step.to()).put("description", step.description());
        }
        ArrayNode notes = answer.putArray("notes");
        plan.notes().forEach(notes::add);
        return answer;
    }

    /** The answer for a terminal. */
    public static String toText(ObjectKey cluster, UpgradePlan plan) {
        StringBuilder text = new StringBuilder();
        if (plan.upToDate()) {
            text.append(cluster).append(": up to date (EKS-A ").append(plan.from().eksa()).append(", Kubernetes ")
                    .append(plan.from().controlPlane()).append(")\n");
        } else {
            text.append(cluster)
                    .append(": EKS-A ")
                    .append(plan.from().eksa())
                    .append(" -> ")
                    .append(plan.to().eksa())
                    .append('\n');
            text.append("\nWhat changes:\n");
            for (Change change : changes(plan)) {
                text.append("  ")
                        .append(change.component())
                        .append(change.group().map(g -> " " + g).orElse(""))
                        .append(": ")
                        .append(change.from())
                        .append(" -> ")
                        .append(change.to())
                        .append('\n');
            }
            text.append("\nSteps, in order:\n");
            int n = 1;
            for (Step step : plan.steps()) {
                text.append("  ").append(n++).append(". ").append(step.description()).append('\n');
            }
        }
        if (!plan.notes().isEmpty()) {
            text.append(plan.upToDate() ? "" : "\n").append("Notes:\n");
            plan.notes().forEach(note -> text.append("  - ").append(note).append('\n'));
        }
        return text.toString();
    }

    /** A component whose version differs between the plan's ends. */
    private record Change(String component, Optional<String> group, String from, String to) {
        Change(String component, String from, String to) {
            this(component, Optional.empty(), from, to);
        }
    }

    private static List<Change> changes(UpgradePlan plan) {
        List<Change> changes = new ArrayList<>();
        Position from = plan.from();
        Position to = plan.to();
        if (!from.eksa().equals(to.eksa())) {
            changes.add(new Change("EKS-A", from.eksa().toString(), to.eksa().toString()));
        }
        if (!from.cilium().equals(to.cilium())) {
            changes.add(new Change("Cilium", from.cilium().orElse("unknown"), to.cilium().orElse("unknown")));
        }
        if (!from.controlPlane().equals(to.controlPlane())) {
            changes.add(new Change(
                    "Kubernetes control plane",
                    from.controlPlane().toString(),
                    to.controlPlane().toString()));
        }
        from.workerNodeGroups().forEach((group, version) -> {
            KubernetesVersion after = to.workerNodeGroups().get(group);
            if (!version.equals(after)) {
                changes.add(new Change(
                        "Kubernetes worker node group", Optional.of(group), version.toString(), after.toString()));
            }
        });
        return changes;
    }

    private static ObjectNode position(Position position) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("eksaVersion", position.eksa().toString());
        node.put("kubernetesVersion", position.controlPlane().toString());
        ArrayNode groups = node.putArray("workerNodeGroups");
        position.workerNodeGroups()
                .forEach((name, version) ->
                        groups.addObject().put("name", name).put("kubernetesVersion", version.toString()));
        position.cilium().ifPresent(c -> node.put("cilium", c));
        return node;
    }
}
