package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Compatibility data: which Kubernetes versions each EKS-A release line supports and which Cilium version each
 * release ships. It is data (see {@code compatibility.yaml}), never constants in rule code.
 *
 * @param version the document's own version, so that an override can be told apart from the built-in one
 */
public record Compatibility(String version, List<ReleaseLine> releaseLines) {
    public Compatibility {
        releaseLines = List.copyOf(releaseLines);
    }

    /** One EKS-A minor release line, such as {@code v0.18}. */
    public record ReleaseLine(String eksa, List<KubernetesVersion> kubernetes, List<CiliumFrom> cilium) {
        public ReleaseLine {
            kubernetes = List.copyOf(kubernetes);
            cilium = List.copyOf(cilium);
        }
    }

    /**
     * The Cilium version shipped from release {@code from} on, until the next entry of the line. An empty version
     * says the shipped version is not known from that release on, so nothing is expected of it.
     */
    public record CiliumFrom(EksaVersion from, Optional<String> version) {
    }

    /** The Cilium version the given EKS-A release ships, if the data knows it. */
    public Optional<String> ciliumFor(EksaVersion release) {
        return releaseLines.stream()
                .filter(line -> line.eksa().equals(release.minorLine()))
                .flatMap(line -> line.cilium().stream())
                .filter(entry -> entry.from().compareTo(release) <= 0)
                .max(Comparator.comparing(CiliumFrom::from))
                .flatMap(CiliumFrom::version);
    }
}
