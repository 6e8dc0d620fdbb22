package io.statusaggregator.model;

/** The name of the {@code EKSARelease} object of an EKS-A version (000): {@code v0.15.3} → {@code eksa-v0-15-3}. */
public final class EksaReleaseName {
    private EksaReleaseName() {
    }

    public static String of(String eksaVersion) {
        return "eksa-" + eksaVersion.replace("+", "-plus-").replace(".", "-");
    }
}
