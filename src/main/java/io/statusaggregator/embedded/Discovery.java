package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.ManagementClusterView;
import io.statusaggregator.model.ObjectKind;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The API discovery documents of the embedded API ({@code /api}, {@code /apis}, {@code /apis/GROUP/VERSION}) for
 * the kinds it serves, as a real API server lists them, so that {@code kubectl get}, {@code kubectl wait},
 * {@code kubectl describe} and {@code kubectl events} work.
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

    static Optional<String> answer(String path) {
        if (path.equals("/api")) {
            ObjectNode versions = JSON.createObjectNode().put("kind", "APIVersions");
            versions.putArray("versions").add("v1");
            versions.putArray("serverAddressByClientCIDRs").addObject().put("clientCIDR", "0.0.0.0/0").put("serverAddress", "127.0.0.1");
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
        Map<String, String> groups = groups();
        if (path.equals("/apis")) {
            ObjectNode list = JSON.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
            ArrayNode items = list.putArray("groups");
            groups.forEach((group, version) -> {
                ObjectNode g = items.addObject().put("name", group);
                ObjectNode groupVersion = JSON.createObjectNode().put("groupVersion", group + "/" + version).put("version", version);
                g.putArray("versions").add(groupVersion);
                g.set("preferredVersion", groupVersion);
            });
            return Optional.of(list.toString());
        }
        for (Map.Entry<String, String> group : groups.entrySet()) {
            String groupVersion = group.getKey() + "/" + group.getValue();
            if (path.equals("/apis/" + groupVersion)) {
                ObjectNode list = resourceList(groupVersion);
                ArrayNode resources = list.withArray("resources");
                if (group.getKey().equals(EVENTS)) {
                    resources.add(events());
                }
                if (group.getKey().equals(APIEXTENSIONS)) {
                    resources.addObject().put("name", "customresourcedefinitions").put("singularName", "customresourcedefinition")
                            .put("namespaced", false).put("kind", "CustomResourceDefinition").set("verbs", verbs());
                }
                served().filter(k -> k.group().equals(group.getKey())).forEach(kind -> {
                    ObjectNode resource = resources.addObject().put("name", kind.plural()).put("singularName", kind.kind().toLowerCase())
                            .put("namespaced", true).put("kind", kind.kind());
                    resource.set("verbs", verbs());
                    Optional.ofNullable(SHORT_NAMES.get(kind)).ifPresent(s -> resource.putArray("shortNames").add(s));
                    resources.addObject().put("name", kind.plural() + "/status").put("singularName", "")
                            .put("namespaced", true).put("kind", kind.kind()).set("verbs", JSON.createArrayNode().add("get").add("patch").add("update"));
                });
                var release = ManagementClusterView.RELEASES;
                if (group.getKey().equals(release.getGroup())) {
                    resources.addObject().put("name", release.getPlural()).put("singularName", release.getKind().toLowerCase())
                            .put("namespaced", true).put("kind", release.getKind()).set("verbs", verbs());
                }
                return Optional.of(list.toString());
            }
        }
        return Optional.empty();
    }

    private static Stream<ObjectKind> served() {
        return Arrays.stream(ObjectKind.values()).filter(k -> k != ObjectKind.CNI_OBSERVATION);
    }

    private static Map<String, String> groups() {
        Map<String, String> groups = new LinkedHashMap<>();
        served().forEach(k -> groups.put(k.group(), k.version()));
        groups.put(APIEXTENSIONS, "v1");
        groups.put(EVENTS, "v1");
        return groups;
    }

    private static ObjectNode resourceList(String groupVersion) {
        ObjectNode list = JSON.createObjectNode().put("kind", "APIResourceList").put("apiVersion", "v1").put("groupVersion", groupVersion);
        list.putArray("resources");
        return list;
    }

    private static ObjectNode events() {
        ObjectNode events = JSON.createObjectNode().put("name", "events").put("singularName", "event").put("namespaced", true)
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
