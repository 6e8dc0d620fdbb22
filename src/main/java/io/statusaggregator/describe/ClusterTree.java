package io.statusaggregator.describe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.statusaggregator.kubernetes.FieldManagers;
import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A cluster as a tree of its objects, in the manner of {@code clusterctl describe cluster}: the EKS-A Cluster, its
 * control plane (the KubeadmControlPlane and its Machines), its workers (each group's MachineDeployment and its
 * Machines), its external etcd and its CNI, each line with its readiness, severity, reason, age and message; under a
 * CAPI object, its conditions that are not healthy ({@link CapiConditions}), and right under the Cluster, a workload
 * API the management cluster cannot reach. Pure: objects (as the API serves them) in, lines out.
 */
@Pure
public final class ClusterTree {
    /** One line: how deep, what it is, and what it says. */
    public record Line(
            int depth, String name, String ready, String severity, String reason, String since, String message) {}

    /**
     * @param grouping Machines alike (readiness, reason, phase, version) under one owner shown as one line
     * @param all      also each condition of the EKS-A Cluster and the CAPI Cluster object
     */
    public record Options(boolean grouping, boolean all) {
    }

    private ClusterTree() {
    }

    /**
     * @param cluster the EKS-A Cluster
     * @param capi the CAPI objects labelled with the cluster's name (Cluster, KubeadmControlPlane, MachineDeployments,
     *                Machines, EtcdadmCluster), any order
     */
    public static List<Line> of(JsonNode cluster, List<JsonNode> capi, Options options, Instant now) {
        return of(cluster, capi, Optional.empty(), options, now);
    }

    /**
     * @param verdict the aggregator's status of the cluster (the status topic's {@code status}), when known: each owned
     *                condition where it differs from the stored one is a line
     */
    public static List<Line> of(JsonNode cluster, List<JsonNode> capi, Optional<JsonNode> verdict, Options options,
            Instant now) {
        List<Line> lines = new ArrayList<>();
        JsonNode ready = condition(cluster, "Ready");
        lines.add(line(0, "Cluster/" + name(cluster), ready, now, ""));
        JsonNode status = cluster.path("status");
        if (status.hasNonNull("failureReason")) {
            // The spec cannot be realised: said apart, since Ready names it only once every condition is True.
            lines.add(new Line(1, "Failure", "False", "Error", status.path("failureReason").asText(), "",
                    status.path("failureMessage").asText()));
        }
        List<JsonNode> capiClusters = ofKind(capi, "Cluster");
        Optional<Line> unreachable = CapiConditions.unreachable(capiClusters, 1, now);
        unreachable.ifPresent(lines::add);
        lines.addAll(statusWriter(cluster, verdict));
        if (options.all()) {
            for (JsonNode condition : cluster.path("status").path("conditions")) {
                if (!condition.path("type").asText().equals("Ready")) {
                    lines.add(line(1, "Condition " + condition.path("type").asText(), condition, now, ""));
                }
            }
            Set<String> shownAbove = unreachable.isPresent() ? Set.of(CapiCluster.REMOTE_CONNECTION_PROBE) : Set.of();
            for (JsonNode c : capiClusters) {
                lines.add(line(1, "Cluster.cluster.x-k8s.io/" + name(c), readiness(c), now, ""));
                lines.addAll(CapiConditions.of(c, 2, union(shownAbove, readinessType(c)), now));
            }
        }
        List<JsonNode> machines = ofKind(capi, "Machine");
        lines.add(new Line(1, "ControlPlane", "", "", "", "", ""));
        for (JsonNode kcp : ofKind(capi, "KubeadmControlPlane")) {
            lines.add(line(2, "KubeadmControlPlane/" + name(kcp), readiness(kcp), now, replicas(kcp)));
            lines.addAll(CapiConditions.of(kcp, 3, readinessType(kcp), now));
            machines(
                    lines,
                    3,
                    machines.stream()
                            .filter(m -> m.path("metadata").path("labels").has(ObjectDecoder.CONTROL_PLANE_LABEL))
                            .toList(),
                    options,
                    now);
        }
        lines.add(new Line(1, "Workers", "", "", "", "", ""));
        Map<String, String> groups = new LinkedHashMap<>();
        for (JsonNode group : cluster.path("spec").path("workerNodeGroupConfigurations")) {
            groups.put(name(cluster) + "-" + group.path("name").asText(), group.path("name").asText());
        }
        List<JsonNode> deployments = new ArrayList<>(ofKind(capi, "MachineDeployment"));
        deployments.sort(Comparator.comparing((JsonNode md) -> !groups.containsKey(name(md)))
                .thenComparing(ClusterTree::name));
        for (JsonNode md : deployments) {
            String group = Optional.ofNullable(groups.get(name(md))).map(g -> g + " ").orElse("");
            lines.add(line(2, group + "MachineDeployment/" + name(md), readiness(md), now, replicas(md)));
            lines.addAll(CapiConditions.of(md, 3, readinessType(md), now));
            machines(
                    lines,
                    3,
                    machines.stream()
                            .filter(m -> name(md).equals(m.path("metadata")
                                    .path("labels")
                                    .path(ObjectDecoder.DEPLOYMENT_NAME_LABEL)
                                    .asText()))
                            .toList(),
                    options,
                    now);
        }
        List<JsonNode> etcd = ofKind(capi, "EtcdadmCluster");
        if (!etcd.isEmpty()) {
            lines.add(new Line(1, "ExternalEtcd", "", "", "", "", ""));
            etcd.forEach(e -> lines.add(line(2, "EtcdadmCluster/" + name(e), readiness(e), now, "")));
        }
        String cni = cluster.path("spec").path("clusterNetwork").path("cniConfig").fieldNames().hasNext()
                ? cluster.path("spec").path("clusterNetwork").path("cniConfig").fieldNames().next()
                : cluster.path("spec").path("clusterNetwork").path("cni").asText("");
        lines.add(
                line(1, "CNI" + (cni.isEmpty() ? "" : " " + cni), condition(cluster, "DefaultCNIConfigured"), now, ""));
        return lines;
    }

    /**
     * Who writes the Cluster's status, where its {@code metadata.managedFields} name the managers of the status
     * conditions (a real API server keeps them), and each condition the aggregator owns where its {@code verdict} and
     * the stored one differ (status, reason, message or severity).
     */
    static List<Line> statusWriter(JsonNode cluster, Optional<JsonNode> verdict) {
        List<Line> lines = new ArrayList<>();
        Set<String> managers = FieldManagers.ofStatusConditions(cluster.path("metadata").path("managedFields"));
        List<String> controllers = managers.stream().filter(FieldManagers::otherController).toList();
        List<String> people = managers.stream().filter(FieldManagers::person).toList();
        if (!controllers.isEmpty()) {
            lines.add(new Line(1, "StatusWriter", "", "", "", "", String.join(", ", controllers)
                    + ": another controller (EKS-A's, where it runs); the aggregator publishes its own verdict only"));
        } else if (!people.isEmpty()) {
            lines.add(new Line(1, "StatusWriter", "", "", "", "", String.join(", ", people)
                    + ": a person's edit, which the aggregator puts back once"));
        } else if (!managers.isEmpty()) {
            lines.add(new Line(1, "StatusWriter", "", "", "", "", "this aggregator"));
        }
        verdict.ifPresent(ours -> {
            for (String type : OWNED) {
                JsonNode theirs = condition(cluster, type);
                JsonNode mine = conditionIn(ours, type);
                if (!mine.isMissingNode() && !said(theirs).equals(said(mine))) {
                    lines.add(new Line(1, type + ", the aggregator's", mine.path("status").asText("Unknown"),
                            mine.path("severity").asText(""), mine.path("reason").asText(""), "",
                            mine.path("message").asText("") + (mine.path("message").asText("").isEmpty() ? "" : " ")
                                    + "(stored: " + String.join(" ", said(theirs)).strip() + ")"));
                }
            }
        });
        return lines;
    }

    /** The conditions the aggregator owns, in the contract's order. */
    private static final List<String> OWNED = List.of("ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady",
            "DefaultCNIConfigured", "Ready");

    /** What a condition says, its time left out; nothing for a missing one. */
    private static List<String> said(JsonNode condition) {
        if (condition.isMissingNode() || condition.isNull()) {
            return List.of("none");
        }
        List<String> said = new ArrayList<>();
        for (String field : List.of("status", "reason", "severity")) {
            Optional.of(condition.path(field).asText("")).filter(v -> !v.isEmpty()).ifPresent(said::add);
        }
        Optional.of(condition.path("message").asText("")).filter(v -> !v.isEmpty())
                .ifPresent(m -> said.add("\"" + m + "\""));
        return said;
    }

    private static JsonNode conditionIn(JsonNode status, String type) {
        for (JsonNode condition : status.path("conditions")) {
            if (type.equals(condition.path("type").asText())) {
                return condition;
            }
        }
        return MissingNode.getInstance();
    }

    /** The Machines under one owner, alike ones as one line when grouping. */
    private static void machines(List<Line> lines, int depth, List<JsonNode> machines, Options options, Instant now) {
        Map<List<String>, List<JsonNode>> alike = new LinkedHashMap<>();
        for (JsonNode machine : machines.stream().sorted(Comparator.comparing(ClusterTree::name)).toList()) {
            Line line = machine(depth, machine, now);
            List<String> key = options.grouping() && !options.all()
                    ? List.of(line.ready(), line.severity(), line.reason(), line.message()) : List.of(name(machine));
            alike.computeIfAbsent(key, k -> new ArrayList<>()).add(machine);
        }
        for (List<JsonNode> group : alike.values()) {
            Line first = machine(depth, group.get(0), now);
            if (group.size() == 1) {
                lines.add(first);
            } else {
                // The group's age is its youngest member's: the whole group has been so at least that long.
                String since = group.stream()
                        .map(m -> machine(depth, m, now).since())
                        .min(Comparator.comparing(ClusterTree::seconds))
                        .orElse("");
                lines.add(new Line(
                        depth,
                        group.size() + " Machines...",
                        first.ready(),
                        first.severity(),
                        first.reason(),
                        since,
                        first.message()));
            }
        }
    }

    private static Line machine(int depth, JsonNode machine, Instant now) {
        JsonNode node = condition(machine, "NodeHealthy");
        JsonNode ready = condition(machine, "Ready");
        JsonNode shown = ready.isMissingNode() ? node : ready;
        List<String> facts = new ArrayList<>();
        Optional.of(machine.path("status").path("phase").asText("")).filter(p -> !p.isEmpty()).ifPresent(facts::add);
        Optional.of(machine.path("spec").path("version").asText("")).filter(v -> !v.isEmpty()).ifPresent(facts::add);
        // The node's readiness, not its name: Machines alike in all but their names are grouped.
        facts.add(!machine.path("status").path("nodeRef").has("name") ? "no node yet"
                : node.isMissingNode() ? "node joined"
                : "True".equals(node.path("status").asText()) ? "node healthy" : "node not healthy");
        return line(depth, "Machine/" + name(machine), shown, now, String.join(", ", facts));
    }

    /** An object's Ready condition, else Available, else its {@code status.ready}. */
    private static JsonNode readiness(JsonNode object) {
        JsonNode ready = condition(object, "Ready");
        if (!ready.isMissingNode()) {
            return ready;
        }
        JsonNode available = condition(object, "Available");
        if (!available.isMissingNode()) {
            return available;
        }
        JsonNode flag = object.path("status").path("ready");
        return flag.isBoolean() ? JsonNodeFactory.instance.objectNode()
                .put("status", flag.asBoolean() ? "True" : "False") : flag;
    }

    /** The condition {@link #readiness} shows, as a set of its type (none for {@code status.ready}). */
    private static Set<String> readinessType(JsonNode object) {
        return !condition(object, "Ready").isMissingNode() ? Set.of("Ready")
                : !condition(object, "Available").isMissingNode() ? Set.of("Available") : Set.of();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> both = new HashSet<>(a);
        both.addAll(b);
        return both;
    }

    /**
     * The counters of a KubeadmControlPlane or MachineDeployment: ready of desired, available (v1beta2, and a v1beta1
     * MachineDeployment), up to date ({@code upToDateReplicas} at v1beta2, {@code updatedReplicas} at v1beta1), and
     * the replicas there are when they are not the desired count (a rollout's surge, a scale). An absent counter is 0.
     */
    private static String replicas(JsonNode object) {
        JsonNode status = object.path("status");
        String upToDate = object.path("apiVersion").asText().endsWith("/v1beta2") ? "upToDateReplicas"
                : "updatedReplicas";
        if (List.of("replicas", "readyReplicas", "availableReplicas", upToDate).stream().noneMatch(status::has)) {
            return "";
        }
        int replicas = status.path("replicas").asInt();
        int desired = object.path("spec").path("replicas").asInt(replicas);
        List<String> counts = new ArrayList<>();
        counts.add("%d/%d ready".formatted(status.path("readyReplicas").asInt(), desired));
        if (status.has("availableReplicas")) {
            counts.add(status.path("availableReplicas").asInt() + " available");
        }
        counts.add(status.path(upToDate).asInt() + " up to date");
        if (replicas != desired) {
            counts.add(replicas + " replicas");
        }
        return String.join(", ", counts);
    }

    /**
     * A line from a condition; the condition's message first, then what the object adds. A message of several lines
     * (v1beta2's often are: a line per Machine or component) follows what the object adds, as lines.
     */
    static Line line(int depth, String name, JsonNode condition, Instant now, String extra) {
        if (condition.isMissingNode() || condition.isNull()) {
            return new Line(depth, name, "Unknown", "", "", "", extra.isEmpty() ? "no status yet" : extra);
        }
        String message = condition.path("message").asText("").stripTrailing();
        String text = message.isEmpty() ? extra : extra.isEmpty() ? message
                : message.indexOf('\n') >= 0 ? extra + "\n" + message : message + " (" + extra + ")";
        String status = condition.path("status").asText("Unknown");
        // A v1beta2 condition always has a reason; True on a healthy-when-True one, it only says so again.
        boolean healthy = "True".equals(status)
                && !CapiConditions.TRUE_IS_NOT_HEALTHY.contains(condition.path("type").asText());
        String since = age(condition.path("lastTransitionTime").asText(""), now);
        return new Line(depth, name, status, condition.path("severity").asText(""),
                healthy ? "" : condition.path("reason").asText(""), since, text);
    }

    static JsonNode condition(JsonNode object, String type) {
        return conditionIn(object.path("status"), type);
    }

    private static List<JsonNode> ofKind(List<JsonNode> objects, String kind) {
        return objects.stream()
                .filter(o -> kind.equals(o.path("kind").asText()))
                .sorted(Comparator.comparing(ClusterTree::name))
                .toList();
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asText();
    }

    /** As kubectl shows ages: 45s, 12m, 3h, 5d. */
    public static String age(String time, Instant now) {
        try {
            long seconds = Math.max(0, Duration.between(Instant.parse(time), now).toSeconds());
            return seconds < 120
                    ? seconds + "s"
                    : seconds < 7_200
                            ? seconds / 60 + "m"
                            : seconds < 172_800 ? seconds / 3_600 + "h" : seconds / 86_400 + "d";
        } catch (DateTimeParseException e) {
            return "";
        }
    }

    private static long seconds(String age) {
        if (age.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long n = Long.parseLong(age.substring(0, age.length() - 1));
        return switch (age.charAt(age.length() - 1)) {
            case 'm' -> n * 60;
            case 'h' -> n * 3_600;
            case 'd' -> n * 86_400;
            default -> n;
        };
    }

    /** The tree as text: the names drawn as a tree, the other columns aligned. */
    public static String render(List<Line> lines) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            names.add(prefix(lines, i) + lines.get(i).name());
        }
        int width = Math.max("NAME".length(), names.stream().mapToInt(String::length).max().orElse(0));
        int reason = Math.max("REASON".length(), lines.stream().mapToInt(l -> l.reason().length()).max().orElse(0));
        String format = "%-" + width + "s  %-7s  %-8s  %-" + reason + "s  %-5s  %s";
        StringBuilder out = new StringBuilder(
                        String.format(format, "NAME", "READY", "SEVERITY", "REASON", "SINCE", "MESSAGE")
                                .stripTrailing())
                .append('\n');
        for (int i = 0; i < lines.size(); i++) {
            Line line = lines.get(i);
            List<String> message = line.message().lines().toList();
            out.append(String.format(format, names.get(i), line.ready(), line.severity(), line.reason(), line.since(),
                    message.isEmpty() ? "" : message.get(0)).stripTrailing()).append('\n');
            // A message's further lines under its first, the tree's branches drawn on through them.
            for (String more : message.subList(Math.min(1, message.size()), message.size())) {
                out.append(String.format(format, continuation(lines, i), "", "", "", "", more).stripTrailing())
                        .append('\n');
            }
        }
        return out.toString();
    }

    /** The tree's branches beside a message's further lines: each open ancestor's bar, one to the line's children. */
    private static String continuation(List<Line> lines, int i) {
        int depth = lines.get(i).depth();
        StringBuilder prefix = new StringBuilder();
        for (int level = 1; level <= depth; level++) {
            prefix.append(hasLaterSibling(lines, i, level) ? "│ " : "  ");
        }
        boolean children = i + 1 < lines.size() && lines.get(i + 1).depth() > depth;
        return prefix.append(children ? "│" : "").toString();
    }

    /** The tree's branches in front of line i: a bar for each open ancestor, then this line's own branch. */
    private static String prefix(List<Line> lines, int i) {
        int depth = lines.get(i).depth();
        StringBuilder prefix = new StringBuilder();
        for (int level = 1; level <= depth; level++) {
            boolean more = hasLaterSibling(lines, i, level);
            prefix.append(level == depth ? (more ? "├─" : "└─") : (more ? "│ " : "  "));
        }
        return prefix.toString();
    }

    /** Whether an ancestor of line i at {@code level} (or the line itself, at its own depth) has a later sibling. */
    private static boolean hasLaterSibling(List<Line> lines, int i, int level) {
        for (int j = i + 1; j < lines.size(); j++) {
            int depth = lines.get(j).depth();
            if (depth < level) {
                return false;
            }
            if (depth == level) {
                return true;
            }
        }
        return false;
    }
}
