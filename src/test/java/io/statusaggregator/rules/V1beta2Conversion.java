package io.statusaggregator.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A scenario's Cluster API objects converted from {@code v1beta1} to {@code v1beta2} the way Cluster API's own
 * conversion does (CAPI v1.11 on serves both), so that every scenario also proves the rules on {@code v1beta2}
 * objects. The EKS-A Cluster, the {@code EtcdadmCluster} (it stays {@code v1beta1}) and the CNI observation are
 * left as they are.
 *
 * <p>CAPI fills a {@code v1beta2} object's counters and conditions from the {@code status.v1beta2} block that its
 * {@code v1beta1} objects carry from CAPI v1.9 on; the scenarios predate that block, so their {@code v1beta1} values
 * stand for it, one to one, as the contract maps them: {@code updatedReplicas} is {@code upToDateReplicas}, a
 * MachineDeployment's {@code Ready} condition is its {@code Available}, KCP {@code status.initialized} is
 * {@code status.initialization.controlPlaneInitialized}. As CAPI does, the {@code v1beta1} values are also kept under
 * {@code status.deprecated.v1beta1}, where the rules must never read them. An object with a {@code status.v1beta2}
 * block, or with both a {@code Ready} and an {@code Available} condition on a MachineDeployment, is refused rather than
 * converted by a guess.
 */
final class V1beta2Conversion {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String CORE = "cluster.x-k8s.io/", CONTROL_PLANE = "controlplane.cluster.x-k8s.io/";
    /** What CAPI v1beta2 writes as a condition's reason where a v1beta1 condition had none: {True, False}. */
    private static final Map<String, List<String>> REASONS = Map.of(
            "Available", List.of("Available", "NotAvailable"),
            "ControlPlaneComponentsHealthy", List.of("Healthy", "NotHealthy"),
            "Ready", List.of("Ready", "NotReady"));

    private V1beta2Conversion() {
    }

    /** The objects at {@code v1beta2}, or empty when none of them is a {@code v1beta1} CAPI object. */
    static Optional<List<JsonNode>> convert(List<JsonNode> objects, Instant now) {
        List<JsonNode> converted = new ArrayList<>();
        boolean any = false;
        for (JsonNode object : objects) {
            String apiVersion = object.path("apiVersion").asText();
            String kind = object.path("kind").asText();
            ObjectNode copy = object.deepCopy();
            if (apiVersion.equals(CONTROL_PLANE + "v1beta1") && kind.equals("KubeadmControlPlane")) {
                kubeadmControlPlane(copy, now);
            } else if (apiVersion.equals(CORE + "v1beta1") && kind.equals("MachineDeployment")) {
                machineDeployment(copy, now);
            } else if (apiVersion.equals(CORE + "v1beta1") && kind.equals("Machine")) {
                machine(copy, now);
            } else if (apiVersion.equals(CORE + "v1beta1") && kind.equals("Cluster")) {
                cluster(copy, now);
            } else {
                converted.add(object);
                continue;
            }
            any = true;
            converted.add(copy);
        }
        return any ? Optional.of(converted) : Optional.empty();
    }

    private static void kubeadmControlPlane(ObjectNode kcp, Instant now) {
        kcp.put("apiVersion", CONTROL_PLANE + "v1beta2");
        ObjectNode status = status(kcp);
        if (status == null) {
            return;
        }
        ObjectNode deprecated = deprecated(status, "failureReason", "failureMessage", "unavailableReplicas");
        copy(status, "readyReplicas", deprecated);
        if (status.has("updatedReplicas")) {
            JsonNode updated = status.remove("updatedReplicas");
            deprecated.set("updatedReplicas", updated);
            status.set("upToDateReplicas", updated);
        }
        if (status.has("initialized")) {
            status.putObject("initialization").set("controlPlaneInitialized", status.remove("initialized"));
        }
        status.remove("ready"); // v1beta2 has no such field, nor keeps it
        conditions(kcp, status, deprecated, Map.of(), now);
        keep(status, deprecated);
    }

    private static void machineDeployment(ObjectNode md, Instant now) {
        md.put("apiVersion", CORE + "v1beta2");
        ObjectNode status = status(md);
        if (status == null) {
            return;
        }
        ObjectNode deprecated = deprecated(status, "failureReason", "failureMessage", "unavailableReplicas");
        copy(status, "readyReplicas", deprecated);
        copy(status, "availableReplicas", deprecated);
        if (status.has("updatedReplicas")) {
            JsonNode updated = status.remove("updatedReplicas");
            deprecated.set("updatedReplicas", updated);
            status.set("upToDateReplicas", updated);
        }
        List<String> types = new ArrayList<>();
        status.path("conditions").forEach(c -> types.add(c.path("type").asText()));
        if (types.contains("Ready") && types.contains("Available")) {
            throw new IllegalArgumentException("MachineDeployment " + name(md)
                    + " has both Ready and Available conditions: which one v1beta2's Available is would be a guess");
        }
        conditions(md, status, deprecated, Map.of("Ready", "Available"), now);
        keep(status, deprecated);
    }

    private static void machine(ObjectNode machine, Instant now) {
        machine.put("apiVersion", CORE + "v1beta2");
        refs(machine.path("spec"), "infrastructureRef");
        if (machine.path("spec").path("bootstrap") instanceof ObjectNode bootstrap) {
            refs(bootstrap, "configRef");
        }
        ObjectNode status = status(machine);
        if (status == null) {
            return;
        }
        ObjectNode deprecated = deprecated(status, "failureReason", "failureMessage");
        conditions(machine, status, deprecated, Map.of(), now);
        keep(status, deprecated);
    }

    private static void cluster(ObjectNode cluster, Instant now) {
        cluster.put("apiVersion", CORE + "v1beta2");
        refs(cluster.path("spec"), "controlPlaneRef", "infrastructureRef", "managedExternalEtcdRef");
        ObjectNode status = status(cluster);
        if (status == null) {
            return;
        }
        ObjectNode deprecated = deprecated(status, "failureReason", "failureMessage");
        if (status.has("controlPlaneReady")) {
            initialization(status).set("controlPlaneInitialized", status.remove("controlPlaneReady"));
        }
        if (status.has("infrastructureReady")) {
            initialization(status).set("infrastructureProvisioned", status.remove("infrastructureReady"));
        }
        conditions(cluster, status, deprecated, Map.of(), now);
        keep(status, deprecated);
    }

    /** A v1beta1 reference {@code {apiVersion, kind, name, namespace}} is {@code {apiGroup, kind, name}} at v1beta2. */
    private static void refs(JsonNode spec, String... fields) {
        if (!(spec instanceof ObjectNode object)) {
            return;
        }
        for (String field : fields) {
            if (object.get(field) instanceof ObjectNode ref) {
                String apiVersion = ref.path("apiVersion").asText();
                ObjectNode converted = JSON.objectNode();
                int slash = apiVersion.indexOf('/');
                converted.put("apiGroup", slash < 0 ? "" : apiVersion.substring(0, slash));
                converted.set("kind", ref.path("kind"));
                converted.set("name", ref.path("name"));
                object.set(field, converted);
            }
        }
    }

    /**
     * The conditions as {@code metav1.Condition}s (no severity; reason, lastTransitionTime and observedGeneration
     * always set), types renamed by {@code renamed}; the v1beta1 ones as they were under {@code deprecated}.
     */
    private static void conditions(ObjectNode object, ObjectNode status, ObjectNode deprecated,
            Map<String, String> renamed, Instant now) {
        if (!(status.get("conditions") instanceof ArrayNode v1beta1)) {
            return;
        }
        deprecated.set("conditions", v1beta1);
        ArrayNode converted = status.putArray("conditions");
        JsonNode generation = object.path("metadata").path("generation");
        JsonNode observedGeneration = generation.isNumber() ? generation : JSON.numberNode(1);
        for (JsonNode condition : v1beta1) {
            String type = condition.path("type").asText();
            String conditionStatus = condition.path("status").asText();
            ObjectNode to = converted.addObject();
            to.put("type", renamed.getOrDefault(type, type));
            to.put("status", conditionStatus);
            to.set("observedGeneration", observedGeneration);
            to.put("lastTransitionTime", condition.path("lastTransitionTime").asText(now.toString()));
            String defaultReason = reason(renamed.getOrDefault(type, type), conditionStatus);
            to.put("reason", condition.path("reason").asText(defaultReason));
            if (condition.has("message")) {
                to.set("message", condition.get("message"));
            }
        }
    }

    private static String reason(String type, String status) {
        List<String> reasons = REASONS.getOrDefault(type, List.of(type, "Not" + type));
        return switch (status) {
            case "True" -> reasons.get(0);
            case "False" -> reasons.get(1);
            default -> type + "Unknown";
        };
    }

    private static ObjectNode status(ObjectNode object) {
        if (!(object.get("status") instanceof ObjectNode status)) {
            return null;
        }
        if (status.has("v1beta2")) {
            throw new IllegalArgumentException(object.path("kind").asText() + " " + name(object)
                    + " has a status.v1beta2 block: CAPI's conversion reads it, and this one does not");
        }
        return status;
    }

    /** A new {@code deprecated.v1beta1} block, with {@code fields} moved into it. */
    private static ObjectNode deprecated(ObjectNode status, String... fields) {
        ObjectNode deprecated = JSON.objectNode();
        for (String field : fields) {
            if (status.has(field)) {
                deprecated.set(field, status.remove(field));
            }
        }
        return deprecated;
    }

    private static void copy(ObjectNode status, String field, ObjectNode deprecated) {
        if (status.has(field)) {
            deprecated.set(field, status.get(field));
        }
    }

    private static void keep(ObjectNode status, ObjectNode deprecated) {
        if (!deprecated.isEmpty()) {
            status.putObject("deprecated").set("v1beta1", deprecated);
        }
    }

    private static ObjectNode initialization(ObjectNode status) {
        return status.get("initialization") instanceof ObjectNode initialization
                ? initialization : status.putObject("initialization");
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("namespace").asText() + "/" + object.path("metadata").path("name").asText();
    }
}
