package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;

/**
 * Writes a status as the EKS-A Cluster's {@code .status} holds it: fields in the contract's order, empty strings
 * left out as Kubernetes does ({@code omitempty}).
 */
public final class StatusEncoder {
    private StatusEncoder() {
    }

    public static ObjectNode encode(ClusterStatus status) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("observedGeneration", status.observedGeneration());
        status.failure().ifPresent(f -> {
            putIfNotEmpty(node, "failureReason", f.reason());
            putIfNotEmpty(node, "failureMessage", f.message());
        });
        status.defaultCni().ifPresent(cni -> {
            ObjectNode defaultCni = node.putObject("defaultCNI");
            defaultCni.put("name", cni.name().wireName());
            putIfNotEmpty(defaultCni, "version", cni.version());
            defaultCni.put("status", cni.status().wireName());
        });
        var conditions = node.putArray("conditions");
        for (Condition condition : status.conditions()) {
            ObjectNode c = conditions.addObject();
            c.put("type", condition.type().wireName());
            c.put("status", condition.status().wireName());
            putIfNotEmpty(c, "reason", condition.reason());
            putIfNotEmpty(c, "message", condition.message());
            putIfNotEmpty(c, "severity", condition.severity().wireName());
            c.put("lastTransitionTime", condition.lastTransitionTime().toString());
        }
        if (!status.workerNodeGroups().isEmpty()) {
            var groups = node.putArray("workerNodeGroups");
            status.workerNodeGroups().forEach(group -> {
                ObjectNode g = groups.addObject();
                g.put("name", group.name());
                group.kubernetesVersion().ifPresent(v -> g.put("kubernetesVersion", v.toString()));
                g.put("replicas", group.replicas());
                g.put("readyReplicas", group.readyReplicas());
                g.put("upToDateReplicas", group.upToDateReplicas());
            });
        }
        ObjectNode versions = JsonNodeFactory.instance.objectNode();
        status.versions().next().ifPresent(v -> versions.put("next", v));
        status.versions().current().ifPresent(v -> versions.put("current", v));
        status.versions().last().ifPresent(v -> versions.put("last", v));
        status.versions().currentKubernetes().ifPresent(k -> {
            ObjectNode recorded = versions.putObject("currentKubernetes");
            k.cluster().ifPresent(v -> recorded.put("kubernetesVersion", v.toString()));
            var groups = recorded.putArray("workerNodeGroups");
            k.workerNodeGroups().forEach(group -> {
                ObjectNode g = groups.addObject().put("name", group.name());
                group.own().ifPresent(v -> g.put("kubernetesVersion", v.toString()));
            });
        });
        if (!versions.isEmpty()) {
            node.set("versions", versions);
        }
        return node;
    }

    private static void putIfNotEmpty(ObjectNode node, String field, String value) {
        if (!value.isEmpty()) {
            node.put(field, value);
        }
    }
}
