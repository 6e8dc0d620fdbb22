package io.statusaggregator.ingest;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.statusaggregator.model.Cni;
import java.util.List;
import java.util.Optional;

/** What a workload cluster's CNI DaemonSet says: which one to watch, its version and whether it is ready. */
final class CniDaemonSet {
    static final String NAMESPACE = "kube-system";

    private CniDaemonSet() {
    }

    /** EKS-A deploys Cilium as DaemonSet {@code cilium}, kindnetd as {@code kindnet}. */
    static String nameOf(Cni cni) {
        return cni == Cni.CILIUM ? "cilium" : "kindnet";
    }

    /** The tag of the CNI agent's image ({@code cilium-agent}, else the first container): the version it runs. */
    static Optional<String> version(DaemonSet daemonSet) {
        List<Container> containers = daemonSet.getSpec() == null || daemonSet.getSpec().getTemplate() == null
                || daemonSet.getSpec().getTemplate().getSpec() == null
                ? List.of() : daemonSet.getSpec().getTemplate().getSpec().getContainers();
        return containers.stream()
                .filter(c -> "cilium-agent".equals(c.getName()))
                .findFirst()
                .or(() -> containers.stream().findFirst())
                .map(Container::getImage)
                .flatMap(CniDaemonSet::imageTag);
    }

    /** {@code registry:5000/repo/cilium:v1.15.16-eksa.1@sha256:…} → {@code v1.15.16-eksa.1}. */
    static Optional<String> imageTag(String image) {
        if (image == null) {
            return Optional.empty();
        }
        String withoutDigest = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        int lastSlash = withoutDigest.lastIndexOf('/');
        int colon = withoutDigest.lastIndexOf(':');
        return colon > lastSlash
                ? Optional.of(withoutDigest.substring(colon + 1)).filter(t -> !t.isEmpty())
                : Optional.empty();
    }

    /** Ready: scheduled somewhere, ready and up to date on every node it is scheduled on, its rollout observed. */
    static boolean ready(DaemonSet daemonSet) {
        DaemonSetStatus status = daemonSet.getStatus();
        if (status == null) {
            return false;
        }
        int desired = orZero(status.getDesiredNumberScheduled());
        long generation = daemonSet.getMetadata().getGeneration() == null ? 0 : daemonSet.getMetadata().getGeneration();
        long observed = status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
        return desired > 0
                && orZero(status.getNumberReady()) == desired
                && orZero(status.getUpdatedNumberScheduled()) == desired
                && observed >= generation;
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }
}
