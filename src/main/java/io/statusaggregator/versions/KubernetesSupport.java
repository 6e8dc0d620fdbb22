package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.WorkerNodeGroup;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Version rule 4: every Kubernetes version the spec runs (the control plane's, and each worker node group's own) is
 * one its EKS-A release supports, as the compatibility data says (EKS-A has no build of any other). A release the
 * data does not know (a line newer than the data, or a release named by {@code bundlesRef}) is not judged, as
 * DefaultCNIConfigured then expects no Cilium version of it.
 */
public final class KubernetesSupport {
    private KubernetesSupport() {
    }

    /** @param supported the versions the spec's EKS-A release supports; empty when the data does not know it */
    public static Optional<Failure> check(EksaClusterSpec spec, Optional<List<KubernetesVersion>> supported) {
        if (supported.isEmpty() || spec.eksaVersion().isEmpty() || spec.kubernetesVersion().isEmpty()) {
            return Optional.empty();
        }
        List<KubernetesVersion> versions = supported.get();
        if (!versions.contains(spec.kubernetesVersion().get())) {
            return Optional.of(unsupported(spec.kubernetesVersion().get(), "", spec, versions));
        }
        for (WorkerNodeGroup group : spec.workerNodeGroups()) {
            KubernetesVersion own = spec.kubernetesVersionOf(group).orElseThrow();
            if (!versions.contains(own)) {
                return Optional.of(unsupported(own, " of worker node group " + group.name(), spec, versions));
            }
        }
        return Optional.empty();
    }

    private static Failure unsupported(KubernetesVersion version, String of, EksaClusterSpec spec,
            List<KubernetesVersion> supported) {
        return new Failure(KubernetesVersionSkew.REASON, "kubernetes version " + version + of
                + " is not supported by EKS-A " + spec.eksaVersion().orElseThrow() + ", which supports "
                + supported.stream().sorted().map(KubernetesVersion::toString).collect(Collectors.joining(", ")));
    }
}
