package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

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

    /** The Kubernetes versions an EKS-A release supports: its line's, if the data knows the line and lists any. */
    public Optional<List<KubernetesVersion>> kubernetesFor(EksaVersion release) {
        String minorLine = release.minorLine();
        for (ReleaseLine line : releaseLines) {
            if (line.eksa().equals(minorLine)) {
                return line.kubernetes().isEmpty() ? Optional.empty() : Optional.of(line.kubernetes());
            }
        }
        return Optional.empty();
    }

    /** The Cilium version the given EKS-A release ships, if the data knows it. */
    public Optional<String> ciliumFor(EksaVersion release) {
        // Loops, not a stream: every snapshot of a cluster asks this.
        String minorLine = release.minorLine();
        CiliumFrom latest = null;
        for (ReleaseLine line : releaseLines) {
            if (!line.eksa().equals(minorLine)) {
                continue;
            }
            for (CiliumFrom entry : line.cilium()) {
                if (entry.from().compareTo(release) <= 0
                        && (latest == null || entry.from().compareTo(latest.from()) > 0)) {
                    latest = entry;
                }
            }
        }
        return latest == null ? Optional.empty() : latest.version();
    }
}
