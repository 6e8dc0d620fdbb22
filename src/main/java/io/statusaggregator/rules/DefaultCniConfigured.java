package io.statusaggregator.rules;

import io.statusaggregator.model.Cni;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus.CniState;
import io.statusaggregator.model.ClusterStatus.DefaultCni;
import io.statusaggregator.model.CniObservation;
import io.statusaggregator.model.EksaClusterSpec.CniConfig;
import io.statusaggregator.model.Severity;
import java.util.Optional;

/** {@code DefaultCNIConfigured} and {@code defaultCNI}: the managed CNI runs, at the version the release ships. */
public final class DefaultCniConfigured {
    // The reasons this condition gives when it is not True.
    public static final String WAITING_FOR_DEFAULT_CNI_CONFIGURED = "WaitingForDefaultCNIConfigured";
    public static final String DEFAULT_CNI_UPGRADE_IN_PROGRESS = "DefaultCNIUpgradeInProgress";
    /** Not True by configuration: the summary (Ready) passes over it. */
    public static final String SKIP_UPGRADES = "SkipUpgradesForDefaultCNIConfigured";

    private DefaultCniConfigured() {
    }

    public static Verdict evaluate(ClusterSnapshot snapshot) {
        CniConfig config = snapshot.cluster().spec().cni();
        if (config.skipUpgrade()) {
            return Verdict.notMet(SKIP_UPGRADES, "Configured to skip default Cilium CNI upgrades", Severity.WARNING);
        }
        Optional<CniObservation> observed = observation(snapshot);
        if (observed.isPresent() && observed.get().problem().isPresent()) {
            // Refines rule 2 (issue [3]): the CNI cannot be observed, so it is not known to be configured; say why.
            return Verdict.notMet(
                    WAITING_FOR_DEFAULT_CNI_CONFIGURED,
                    "Managed CNI state unknown: " + observed.get().problem().get(),
                    Severity.WARNING);
        }
        if (observed.isEmpty() || !observed.get().ready()) {
            return Verdict.notMet(WAITING_FOR_DEFAULT_CNI_CONFIGURED, "Managed CNI not configured yet");
        }
        if (config.cni() == Cni.CILIUM && snapshot.expectedCiliumVersion().isPresent()
                && !snapshot.expectedCiliumVersion().equals(observed.get().version())) {
            return Verdict.notMet(DEFAULT_CNI_UPGRADE_IN_PROGRESS, "Cilium version upgrade needed");
        }
        return Verdict.TRUE;
    }

    /**
     * Whether the condition is False for want of an observation of the cluster's CNI: there is none of the configured
     * CNI, and upgrades are not skipped (which decide the condition without one).
     */
    public static boolean lacksObservation(ClusterSnapshot snapshot) {
        return !snapshot.cluster().spec().cni().skipUpgrade() && observation(snapshot).isEmpty();
    }

    /** {@code status.defaultCNI}: Applied exactly when the condition is True. */
    public static DefaultCni summary(ClusterSnapshot snapshot, Verdict verdict) {
        String version = observation(snapshot).flatMap(CniObservation::version).orElse("");
        return new DefaultCni(snapshot.cluster().spec().cni().cni(), version,
                verdict.isTrue() ? CniState.APPLIED : CniState.NOT_APPLIED);
    }

    /** An observation of another CNI than the configured one (the spec changed since) says nothing about it. */
    private static Optional<CniObservation> observation(ClusterSnapshot snapshot) {
        return snapshot.cni().filter(o -> o.cni() == snapshot.cluster().spec().cni().cni());
    }
}
