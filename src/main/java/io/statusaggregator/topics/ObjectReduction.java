package io.statusaggregator.topics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.kubernetes.FieldManagers;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.EksaVersionSkew;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cuts a Kubernetes object down to the fields the rules read, keeping its shape, so that the same decoder reads
 * full and reduced objects. The EKS-A Cluster keeps its whole spec and status: the status another controller wrote
 * is an input, and version history hashes the spec as stored; of its annotations, those the rules read
 * ({@link #ANNOTATIONS}). An object whose record is still too large is sent as a stand-in (ingest's
 * {@code RecordSizeLimit}).
 * The fields are those of both Cluster API versions the rules read (an object has those of its own); the
 * {@code status.deprecated} block of a v1beta2 object is never read, so never sent.
 */
public final class ObjectReduction {
    private static final List<String> CONDITION_FIELDS =
            List.of("type", "status", "reason", "message", "severity", "lastTransitionTime");
    private static final List<String> LABELS =
            List.of(ObjectDecoder.CLUSTER_NAME_LABEL, ObjectDecoder.DEPLOYMENT_NAME_LABEL);
    /** The EKS-A Cluster's annotations the rules read; any other (a tool's notes, a 1 MiB blob) is not sent. */
    static final List<String> ANNOTATIONS = List.of(EksaVersionSkew.SKIP_ANNOTATION);
    /**
     * Not an annotation on the API server: where ingest puts the managers of the EKS-A Cluster's status conditions, as
     * its {@code metadata.managedFields} name them (entries of the {@code status} subresource owning
     * {@code f:status.f:conditions}), comma-separated; absent when none is named. The aggregation tells another writer
     * of the status by them (a real API server keeps managedFields; the Fabric8 mock API server does not).
     */
    public static final String STATUS_WRITERS = "statusaggregator.io/status-writers";
    /** The fields each kind keeps besides metadata; {@code status.conditions} keeps the condition fields above. */
    private static final Map<ObjectKind, List<String>> FIELDS = Map.of(
            ObjectKind.EKSA_CLUSTER, List.of("spec", "status"),
            ObjectKind.CAPI_CLUSTER, List.of("spec.controlPlaneRef.name", "spec.managedExternalEtcdRef.name",
                    "status.initialization.controlPlaneInitialized", "status.conditions"),
            ObjectKind.KUBEADM_CONTROL_PLANE, List.of("status.observedGeneration", "status.initialized",
                    "status.initialization.controlPlaneInitialized", "status.replicas", "status.readyReplicas",
                    "status.updatedReplicas", "status.upToDateReplicas", "status.availableReplicas",
                    "status.conditions"),
            ObjectKind.MACHINE_DEPLOYMENT, List.of("spec.clusterName", "status.observedGeneration", "status.replicas",
                    "status.readyReplicas", "status.updatedReplicas", "status.upToDateReplicas",
                    "status.availableReplicas", "status.conditions"),
            ObjectKind.MACHINE, List.of("spec.clusterName", "spec.version"),
            ObjectKind.ETCDADM_CLUSTER, List.of("spec.clusterName", "status.ready"),
            ObjectKind.CNI_OBSERVATION, List.of("spec"));

    private ObjectReduction() {
    }

    public static ObjectNode reduce(ObjectKind kind, JsonNode full) {
        ObjectNode reduced = JsonNodeFactory.instance.objectNode();
        reduced.set("apiVersion", full.get("apiVersion"));
        reduced.set("kind", full.get("kind"));
        JsonNode metadata = full.path("metadata");
        ObjectNode meta = reduced.putObject("metadata");
        for (String field : List.of("namespace", "name", "generation", "resourceVersion")) {
            if (metadata.hasNonNull(field)) {
                meta.set(field, metadata.get(field));
            }
        }
        JsonNode labels = metadata.path("labels");
        for (String label : LABELS) {
            if (labels.hasNonNull(label)) {
                meta.with("labels").set(label, labels.get(label));
            }
        }
        if (kind == ObjectKind.EKSA_CLUSTER) {
            // Which of two Clusters of one name in two namespaces holds it (status-rules.md).
            for (String field : List.of("creationTimestamp", "uid")) {
                if (metadata.hasNonNull(field)) {
                    meta.set(field, metadata.get(field));
                }
            }
        }
        JsonNode annotations = metadata.path("annotations");
        if (kind == ObjectKind.EKSA_CLUSTER && annotations.isObject()) {
            for (String annotation : ANNOTATIONS) {
                if (annotations.has(annotation)) {
                    meta.with("annotations").set(annotation, bounded(annotations.get(annotation)));
                }
            }
        }
        if (kind == ObjectKind.EKSA_CLUSTER) {
            Set<String> writers = FieldManagers.ofStatusConditions(metadata.path("managedFields"));
            if (!writers.isEmpty()) {
                meta.with("annotations").put(STATUS_WRITERS, String.join(",", writers));
            }
        }
        for (String path : FIELDS.get(kind)) {
            copy(full, reduced, path, kind != ObjectKind.EKSA_CLUSTER);
        }
        return reduced;
    }

    /**
     * The longest text of a field the rules read that a record keeps of a CAPI object, cut beyond it: no CAPI field the
     * rules read is that long (names and versions are short, conditions' messages a few KB at most), and a record of
     * one object must stay under the topic's 1 MiB, or its send fails and is retried for ever. A version cut so no
     * longer parses, and its cluster says so. The EKS-A Cluster's spec and status are kept whole: version history
     * hashes its spec; its annotations are cut.
     */
    static final int LONGEST_TEXT = 32_768;

    private static JsonNode bounded(JsonNode value) {
        return value.isTextual() && value.textValue().length() > LONGEST_TEXT
                ? JsonNodeFactory.instance.textNode(value.textValue().substring(0, LONGEST_TEXT) + "...") : value;
    }

    private static void copy(JsonNode from, ObjectNode to, String path, boolean boundText) {
        String[] steps = path.split("\\.");
        JsonNode source = from;
        ObjectNode target = to;
        for (int i = 0; i < steps.length - 1; i++) {
            source = source.path(steps[i]);
            if (!source.isObject()) {
                return;
            }
            target = target.with(steps[i]);
        }
        String last = steps[steps.length - 1];
        JsonNode value = source.get(last);
        if (value == null || value.isNull()) {
            return;
        }
        if (last.equals("conditions") && value.isArray()) {
            ArrayNode conditions = target.putArray(last);
            for (JsonNode condition : value) {
                ObjectNode kept = conditions.addObject();
                CONDITION_FIELDS.forEach(f -> {
                    if (condition.hasNonNull(f)) {
                        kept.set(f, boundText ? bounded(condition.get(f)) : condition.get(f));
                    }
                });
            }
        } else {
            target.set(last, boundText ? bounded(value) : value);
        }
    }
}
