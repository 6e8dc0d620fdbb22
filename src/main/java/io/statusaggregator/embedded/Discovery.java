package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API discovery documents of the embedded API ({@code /api}, {@code /apis}, {@code /apis/GROUP},
 * {@code /apis/GROUP/VERSION}) for the kinds it serves, at the versions it serves them ({@link ServedVersions}), as a
 * real API server lists them, so that {@code kubectl get}, {@code kubectl wait}, {@code kubectl describe} and
 * {@code kubectl events} work, and ingest finds which Cluster API versions are served.
 */
final class Discovery {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> VERBS = List.of("create", "delete", "get", "list", "patch", "update", "watch");
    private static final String APIEXTENSIONS = "apiextensions.k8s.io";
    /** Events, served in {@code v1} and {@code events.k8s.io/v1} as one store ({@link CoreEvents}). */
    private static final String EVENTS = "events.k8s.io";
    /** The short names Cluster API's CRDs declare. */
    private static final Map<ObjectKind, String> SHORT_NAMES = Map.of(
            ObjectKind.CAPI_CLUSTER, "cl",
            ObjectKind.KUBEADM_CONTROL_PLANE, "kcp",
            ObjectKind.MACHINE_DEPLOYMENT, "md",
            ObjectKind.MACHINE, "ma");

    private Discovery() {
    }

    static Optional<String> answer(String path, ServedVersions served) {
        if (path.equals("/api")) {
            ObjectNode versions = JSON.createObjectNode().put("kind", "APIVersions");
            versions.putArray("versions").add("v1");
            versions.putArray("serverAddressByClientCIDRs")
                    .addObject()
                    .put("clientCIDR", "0.0.0.0/0")
                    .put("serverAddress", "127.0.0.1");
            return Optional.of(versions.toString());
        }
        if (path.equals("/api/v1")) {
            ObjectNode list = resourceList("v1");
            ObjectNode namespaces = list.withArray("resources").addObject().put("name", "namespaces")
                    .put("singularName", "namespace").put("namespaced", false).put("kind", "Namespace");
            namespaces.set("verbs", verbs());
            namespaces.putArray("shortNames").add("ns");
            list.withArray("resources").add(events());
            return Optional.of(list.toString());
        }
        Map<String, List<String>> groups = groups(served);
        if (path.equals("/apis")) {
            ObjectNode list = JSON.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
            ArrayNode items = list.putArray("groups");
            groups.forEach((group, versions) -> items.add(group(group, versions)));
            return Optional.of(list.toString());
        }
        for (Map.Entry<String, List<String>> group : groups.entrySet()) {
            if (path.equals("/apis/" + group.getKey())) {
                ObjectNode document = group(group.getKey(), group.getValue());
                return Optional.of(document.put("kind", "APIGroup").put("apiVersion", "v1").toString());
            }
            for (String version : group.getValue()) {
                String groupVersion = group.getKey() + "/" + version;
                if (path.equals("/apis/" + groupVersion)) {
                    return Optional.of(resources(group.getKey(), version, served).toString());
                }
            }
        }
        return Optional.empty();
    }

    /** A group and the versions it is served at; the newest preferred, as a CRD's highest version is. */
    private static ObjectNode group(String group, List<String> versions) {
        ObjectNode g = JSON.createObjectNode().put("name", group);
        ArrayNode listed = g.putArray("versions");
        for (String version : versions) {
            listed.addObject().put("groupVersion", group + "/" + version).put("version", version);
        }
        g.set("preferredVersion", listed.get(0).deepCopy());
        return g;
    }

    /** The resources {@code group} serves at {@code version}. */
    private static ObjectNode resources(String group, String version, ServedVersions served) {
        String groupVersion = group + "/" + version;
        ObjectNode list = resourceList(groupVersion);
        ArrayNode resources = list.withArray("resources");
        if (group.equals(EVENTS)) {
            resources.add(events());
        }
        if (group.equals(APIEXTENSIONS)) {
            resources.addObject().put("name", "customresourcedefinitions")
                    .put("singularName", "customresourcedefinition")
                    .put("namespaced", false).put("kind", "CustomResourceDefinition").set("verbs", verbs());
        }
        for (ObjectKind kind : ServedVersions.kinds()) {
            if (!kind.group().equals(group) || !served.of(kind).contains(version)) {
                continue;
            }
            ObjectNode resource = resources.addObject().put("name", kind.plural())
                    .put("singularName", kind.kind().toLowerCase())
                    .put("namespaced", true).put("kind", kind.kind());
            resource.set("verbs", verbs());
            Optional.ofNullable(SHORT_NAMES.get(kind)).ifPresent(s -> resource.putArray("shortNames").add(s));
            resources.addObject().put("name", kind.plural() + "/status").put("singularName", "")
                    .put("namespaced", true).put("kind", kind.kind())
                    .set("verbs", JSON.createArrayNode().add("get").add("patch").add("update"));
        }
        var release = KubernetesResources.RELEASES;
        if (group.equals(release.getGroup()) && version.equals(release.getVersion())) {
            resources.addObject().put("name", release.getPlural()).put("singularName", release.getKind().toLowerCase())
                    .put("namespaced", true).put("kind", release.getKind()).set("verbs", verbs());
        }
        return list;
    }

    /** Each group served and its versions, newest first. */
    private static Map<String, List<String>> groups(ServedVersions served) {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        for (ObjectKind kind : ServedVersions.kinds()) {
            List<String> versions = groups.computeIfAbsent(kind.group(), g -> new ArrayList<>());
            served.of(kind).stream().filter(v -> !versions.contains(v)).forEach(versions::add);
        }
        groups.put(APIEXTENSIONS, List.of("v1"));
        groups.put(EVENTS, List.of("v1"));
        return groups;
    }

    private static ObjectNode resourceList(String groupVersion) {
        ObjectNode list = JSON.createObjectNode()
                .put("kind", "APIResourceList")
                .put("apiVersion", "v1")
                .put("groupVersion", groupVersion);
        list.putArray("resources");
        return list;
    }

    private static ObjectNode events() {
        ObjectNode events = JSON.createObjectNode()
                .put("name", "events")
                .put("singularName", "event")
                .put("namespaced", true)
                .put("kind", "Event");
        events.set("verbs", verbs());
        events.putArray("shortNames").add("ev");
        return events;
    }

    private static ArrayNode verbs() {
        ArrayNode verbs = JSON.createArrayNode();
        VERBS.forEach(verbs::add);
        return verbs;
    }
}
