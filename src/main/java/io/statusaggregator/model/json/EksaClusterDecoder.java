package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.EksaClusterSpec.CniConfig;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.WorkerNodeGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an EKS-A Cluster for {@link ObjectDecoder}: its identity, its spec (a field of the wrong type or a version
 * that does not parse is a {@link MalformedObjectException} that names it), the spec's hash and the status it shows.
 */
final class EksaClusterDecoder {
    private EksaClusterDecoder() {
    }

    /** See {@link ObjectDecoder#unreadableCluster}. */
    static EksaCluster unreadable(JsonNode node, ObjectKey key) {
        JsonNode generation = node.path("metadata").path("generation");
        ClusterStatus status;
        try {
            status = ObjectDecoder.statusOf(node);
        } catch (MalformedObjectException e) {
            status = ClusterStatus.NONE;
        }
        JsonNode rawSpec = node.get("spec");
        return new EksaCluster(key, node.path("apiVersion").asText("anywhere.eks.amazonaws.com/v1alpha1"),
                generation.canConvertToLong() && generation.asLong() >= 0 ? generation.asLong() : 1L, Map.of(),
                new EksaClusterSpec(0, List.of(), Optional.empty(), Optional.empty(), Optional.empty(), false,
                        new CniConfig(Cni.CILIUM, false), Optional.empty()),
                SpecHash.of(rawSpec == null ? NullNode.getInstance() : rawSpec), status, resourceVersion(node),
                creation(node));
    }

    /** {@code metadata.resourceVersion}; empty when it is missing or not a string (never so from an API server). */
    private static String resourceVersion(JsonNode node) {
        JsonNode version = node.path("metadata").path("resourceVersion");
        return version.isTextual() ? version.textValue() : "";
    }

    /** The Cluster {@code node} is, {@code root} and {@code metadata} its fields, {@code key} read from them. */
    static EksaCluster eksaCluster(JsonNode node, JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        EksaClusterSpec clusterSpec = eksaClusterSpec(root.object("spec"));
        JsonNode rawSpec = node.get("spec");
        return new EksaCluster(key, root.requiredString("apiVersion"), ObjectDecoder.generation(metadata),
                metadata.stringMap("annotations"), clusterSpec,
                SpecHash.of(rawSpec == null ? NullNode.getInstance() : rawSpec),
                ClusterStatusDecoder.status(root.object("status")), resourceVersion(node), creation(node));
    }

    /** {@code metadata.creationTimestamp} and {@code uid}; each empty when missing or not a string. */
    private static EksaCluster.Creation creation(JsonNode node) {
        JsonNode metadata = node.path("metadata");
        JsonNode timestamp = metadata.path("creationTimestamp");
        JsonNode uid = metadata.path("uid");
        return new EksaCluster.Creation(timestamp.isTextual() ? timestamp.textValue() : "",
                uid.isTextual() ? uid.textValue() : "");
    }

    private static EksaClusterSpec eksaClusterSpec(JsonFields spec) throws MalformedObjectException {
        List<WorkerNodeGroup> groups = new ArrayList<>();
        for (JsonFields group : spec.objects("workerNodeGroupConfigurations")) {
            groups.add(workerNodeGroup(group));
        }
        JsonFields controlPlane = spec.object("controlPlaneConfiguration");
        int controlPlaneCount = controlPlane.count("count")
                .orElseThrow(() -> new MalformedObjectException(controlPlane.pathOf("count"), "required"));
        boolean externalEtcd = spec.has("externalEtcdConfiguration");
        if (externalEtcd) {
            spec.object("externalEtcdConfiguration").count("count");
        }
        return new EksaClusterSpec(
                controlPlaneCount,
                groups,
                requiredSpecVersion(spec),
                spec.string("eksaVersion"),
                spec.object("bundlesRef").string("name"),
                externalEtcd,
                cniConfig(spec.object("clusterNetwork")),
                spec.object("managementCluster").string("name").filter(name -> !name.isEmpty()));
    }

    private static WorkerNodeGroup workerNodeGroup(JsonFields group) throws MalformedObjectException {
        Optional<WorkerNodeGroup.Autoscaling> autoscaling = Optional.empty();
        if (group.has("autoscalingConfiguration")) {
            JsonFields bounds = group.object("autoscalingConfiguration");
            int min = bounds.countOrZero("minCount");
            int max = bounds.count("maxCount")
                    .orElseThrow(() -> new MalformedObjectException(bounds.pathOf("maxCount"), "required"));
            if (min > max) {
                throw new MalformedObjectException(
                        bounds.pathOf("minCount"), "must not be greater than maxCount (" + max + "), got " + min);
            }
            autoscaling = Optional.of(new WorkerNodeGroup.Autoscaling(min, max));
        }
        // EKS-A defaults a group without a count to one node.
        int count = group.count("count").orElse(1);
        return new WorkerNodeGroup(
                group.requiredString("name"), count, autoscaling, specVersion(group, "kubernetesVersion"));
    }

    /**
     * The control plane's version, which EKS-A requires (its webhook refuses a Cluster without one): read as optional,
     * a Cluster without it was Ready, and its next version was checked against nothing (a downgrade let through).
     */
    private static Optional<KubernetesVersion> requiredSpecVersion(JsonFields spec) throws MalformedObjectException {
        Optional<KubernetesVersion> version = specVersion(spec, "kubernetesVersion");
        if (version.isEmpty()) {
            throw new MalformedObjectException(
                    spec.pathOf("kubernetesVersion"),
                    "required: the control plane's Kubernetes version (like \"1.31\")");
        }
        return version;
    }

    private static Optional<KubernetesVersion> specVersion(JsonFields fields, String field)
            throws MalformedObjectException {
        Optional<String> text = fields.string(field);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(KubernetesVersion.parseSpec(text.get())
                .orElseThrow(() -> new MalformedObjectException(
                        fields.pathOf(field),
                        "not a Kubernetes version of the form MAJOR.MINOR (like \"1.27\"): "
                                + KubernetesNames.shown(text.get()))));
    }

    /**
     * {@code clusterNetwork.cniConfig} names one CNI; the older {@code clusterNetwork.cni} string too; Cilium by
     * default.
     */
    private static CniConfig cniConfig(JsonFields network) throws MalformedObjectException {
        JsonFields config = network.object("cniConfig");
        boolean cilium = config.has("cilium");
        boolean kindnetd = config.has("kindnetd");
        if (cilium && kindnetd) {
            throw new MalformedObjectException(config.path(), "names both cilium and kindnetd; a cluster has one CNI");
        }
        if (cilium) {
            return new CniConfig(Cni.CILIUM, config.object("cilium").bool("skipUpgrade"));
        }
        if (kindnetd) {
            return new CniConfig(Cni.KINDNETD, false);
        }
        Optional<String> legacy = network.string("cni");
        if (legacy.isPresent()) {
            Cni cni = legacy.get().startsWith("cilium")
                    ? Cni.CILIUM
                    : Cni.of(legacy.get())
                            .orElseThrow(() -> new MalformedObjectException(
                                    network.pathOf("cni"), "unknown CNI " + KubernetesNames.shown(legacy.get())));
            return new CniConfig(cni, false);
        }
        return new CniConfig(Cni.CILIUM, false);
    }

}
