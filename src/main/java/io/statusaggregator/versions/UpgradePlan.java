package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesNames;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.EksaReleaseName;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an upgrade of a cluster would change, and in which order (versions.md, "upgrade check"). Every step keeps the
 * cluster valid: EKS-A and each Kubernetes version move at most one minor at a time, worker node groups stay 0..2
 * minors behind the control plane, and every Kubernetes version in use is supported by the EKS-A release in force.
 */
public record UpgradePlan(Position from, Position to, List<Step> steps, List<String> notes) {
    public UpgradePlan {
        steps = List.copyOf(steps);
        notes = List.copyOf(notes);
    }

    /** Where a cluster stands; {@code cilium} is what its EKS-A release ships (empty if the data does not know it). */
    public record Position(
            EksaVersion eksa,
            KubernetesVersion controlPlane,
            Map<String, KubernetesVersion> workerNodeGroups,
            Optional<String> cilium) {
        public Position {
            // keeps the caller's group order, which the steps follow
            workerNodeGroups = Collections.unmodifiableMap(new LinkedHashMap<>(workerNodeGroups));
        }
    }

    public enum Component {
        EKSA("EKS-A"), CONTROL_PLANE("control plane"), WORKER_NODE_GROUP("worker node group");

        private final String wireName;

        Component(String wireName) { this.wireName = wireName; }

        public String wireName() { return wireName; }
    }

    /** One step, to be applied after the previous one has been reached. group is set only for WORKER_NODE_GROUP. */
    public record Step(Component component, Optional<String> group, String from, String to, String description) {
    }

    /** What the user asked for: an EKS-A version, a Kubernetes version, or nothing (the default target). */
    public record Target(Optional<EksaVersion> eksa, Optional<KubernetesVersion> kubernetes) {
        public static final Target NEXT = new Target(Optional.empty(), Optional.empty());

        public Target {
            if (eksa.isPresent() && kubernetes.isPresent()) {
                throw new IllegalArgumentException("a target is an EKS-A version or a Kubernetes version, not both");
            }
        }

        public static Target parse(String text) throws UnreachableTarget {
            String t = text == null ? "" : text.trim();
            Optional<EksaVersion> eksa = t.startsWith("v") ? EksaVersion.parse(t) : Optional.empty();
            Optional<KubernetesVersion> kubernetes =
                    t.startsWith("v") ? Optional.empty() : KubernetesVersion.parseSpec(t);
            if (eksa.isEmpty() && kubernetes.isEmpty()) {
                throw new UnreachableTarget("unknown upgrade target " + KubernetesNames.shown(String.valueOf(text))
                        + ": expected an EKS-A version such as v0.24.2 or a Kubernetes version such as 1.29");
            }
            return new Target(eksa, kubernetes);
        }
    }

    /** The target is unknown or cannot be reached; the message says why, for a user. */
    public static final class UnreachableTarget extends Exception {
        private static final long serialVersionUID = 1L;

        public UnreachableTarget(String message) {
            super(message);
        }
    }

    public boolean upToDate() {
        return steps.isEmpty();
    }

    /**
     * @param current  where the cluster stands (its cilium field is ignored: computed from compatibility)
     * @param releases the EKS-A versions available on the management cluster (from its EKSARelease objects), any order
     */
    public static UpgradePlan of(
            Position current, Target target, List<EksaVersion> releases, Compatibility compatibility)
            throws UnreachableTarget {
        Planner planner = new Planner(current, releases, compatibility);
        if (target.eksa().isPresent()) {
            planner.toEksa(target.eksa().get());
        } else if (target.kubernetes().isPresent()) {
            planner.toKubernetes(target.kubernetes().get());
        } else {
            planner.toNext();
        }
        Position from = new Position(current.eksa(), current.controlPlane(), current.workerNodeGroups(),
                compatibility.ciliumFor(current.eksa()));
        Position to =
                new Position(planner.eksa, planner.controlPlane, planner.groups, compatibility.ciliumFor(planner.eksa));
        return new UpgradePlan(from, to, planner.steps, planner.notes);
    }

    /** Walks from the current position, appending steps; its fields are the position reached so far. */
    private static final class Planner {
        private final List<EksaVersion> releases;
        private final Compatibility compatibility;
        private final List<Step> steps = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();
        private EksaVersion eksa;
        private KubernetesVersion controlPlane;
        private final Map<String, KubernetesVersion> groups;

        Planner(Position current, List<EksaVersion> releases, Compatibility compatibility) {
            this.releases = List.copyOf(releases);
            this.compatibility = compatibility;
            this.eksa = current.eksa();
            this.controlPlane = current.controlPlane();
            this.groups = new LinkedHashMap<>(current.workerNodeGroups());
        }

        /** The default: the next minor line's newest release, else a newer patch of the current line. */
        void toNext() throws UnreachableTarget {
            Optional<EksaVersion> next = newestOfLine(eksa.minor() + 1)
                    .or(() -> newestOfLine(eksa.minor()).filter(r -> r.compareTo(eksa) > 0));
            if (next.isEmpty()) {
                notes.add("up to date: no newer EKS-A release is available on the management cluster");
                return;
            }
            upgradeEksa(next.get());
        }

        void toEksa(EksaVersion target) throws UnreachableTarget {
            if (!releases.contains(target)) {
                throw new UnreachableTarget("unknown EKS-A version " + target + ": no EKSARelease "
                        + EksaReleaseName.of(target.toString()) + " on the management cluster");
            }
            if (target.compareTo(eksa) < 0) {
                throw new UnreachableTarget(
                        "cannot upgrade from " + eksa + " to " + target + ": EKS-A versions cannot be downgraded");
            }
            if (target.compareTo(eksa) == 0) {
                notes.add("up to date: the cluster already runs EKS-A " + eksa);
                return;
            }
            if (target.major() != eksa.major()) {
                throw new UnreachableTarget("cannot upgrade from " + eksa + " to " + target
                        + ": EKS-A upgrades stay within one major version");
            }
            supportedBy(target);
            int start = eksa.minor();
            int skew = target.minor() - start;
            if (skew >= 2) {
                notes.add(target + " is " + skew + " minor versions ahead of " + eksa
                        + ": EKS-A upgrades go one minor version at a time");
            }
            // each line in between is passed through on its newest available release
            for (int minor = start + 1; minor < target.minor(); minor++) {
                upgradeEksa(nextLineRelease("on the way to " + target));
            }
            upgradeEksa(target);
        }

        void toKubernetes(KubernetesVersion target) throws UnreachableTarget {
            if (target.compareTo(controlPlane) < 0) {
                throw new UnreachableTarget("cannot upgrade the control plane from Kubernetes " + controlPlane + " to "
                        + target + ": Kubernetes versions cannot be downgraded");
            }
            if (compatibility.releaseLines().stream().noneMatch(line -> line.kubernetes().contains(target))) {
                throw new UnreachableTarget(
                        "Kubernetes " + target + " is not supported by any EKS-A release in the compatibility data");
            }
            if (target.equals(controlPlane) && groups.values().stream().allMatch(target::equals)) {
                notes.add("up to date: the control plane and every worker node group already run Kubernetes " + target);
                return;
            }
            if (target.major() != controlPlane.major()) {
                throw new UnreachableTarget("cannot upgrade Kubernetes from " + controlPlane + " to " + target
                        + ": Kubernetes upgrades stay within one major version");
            }
            int skew = target.minor() - controlPlane.minor();
            if (skew > 1) {
                notes.add("Kubernetes " + target + " is " + skew + " minor versions ahead of " + controlPlane
                        + ": Kubernetes goes one minor version at a time");
            }
            raiseControlPlane(target, true);
            for (String group : List.copyOf(groups.keySet())) {
                raiseGroup(group, target);
            }
        }

        /**
         * One EKS-A step; Kubernetes versions the new line no longer supports are raised first, under the current line.
         */
        private void upgradeEksa(EksaVersion release) throws UnreachableTarget {
            List<KubernetesVersion> supported = supportedBy(release);
            KubernetesVersion lowest = Collections.min(supported);
            KubernetesVersion highest = Collections.max(supported);
            if (controlPlane.compareTo(highest) > 0) {
                throw new UnreachableTarget("cannot upgrade EKS-A to " + release + ": it does not support Kubernetes "
                        + controlPlane + ", which the control plane runs, and Kubernetes cannot be downgraded");
            }
            if (controlPlane.compareTo(lowest) < 0 || groups.values().stream().anyMatch(v -> v.compareTo(lowest) < 0)) {
                notes.add("EKS-A " + release.minorLine() + " does not support Kubernetes below " + lowest
                        + ": Kubernetes is upgraded first, under EKS-A " + eksa);
                raiseControlPlane(lowest, false);
                for (String group : List.copyOf(groups.keySet())) {
                    raiseGroup(group, lowest);
                }
            }
            steps.add(new Step(Component.EKSA, Optional.empty(), eksa.toString(), release.toString(),
                    "upgrade EKS-A from " + eksa + " to " + release + cilium(eksa, release)));
            eksa = release;
        }

        /**
         * Raises the control plane one minor at a time; may insert EKS-A steps when the next minor needs a later line.
         */
        private void raiseControlPlane(KubernetesVersion target, boolean mayUpgradeEksa) throws UnreachableTarget {
            while (controlPlane.compareTo(target) < 0) {
                KubernetesVersion next = new KubernetesVersion(controlPlane.major(), controlPlane.minor() + 1);
                if (!supportedBy(eksa).contains(next)) {
                    if (!mayUpgradeEksa) {
                        throw new UnreachableTarget("cannot upgrade the control plane to Kubernetes " + next
                                + ": EKS-A " + eksa + " does not support it");
                    }
                    notes.add(
                            "Kubernetes " + next + " is not supported by EKS-A " + eksa + ": EKS-A is upgraded first");
                    upgradeEksa(nextLineRelease("for Kubernetes " + next));
                    continue; // the EKS-A step may itself have raised Kubernetes
                }
                // a group may lag at most two minors behind the control plane: lift the laggards first
                KubernetesVersion floor = new KubernetesVersion(next.major(), next.minor() - 2);
                for (String group : List.copyOf(groups.keySet())) {
                    raiseGroup(group, floor);
                }
                steps.add(new Step(Component.CONTROL_PLANE, Optional.empty(), controlPlane.toString(), next.toString(),
                        "upgrade the control plane from Kubernetes " + controlPlane + " to " + next));
                controlPlane = next;
            }
        }

        /**
         * Raises a group one minor at a time up to the target; it never passes the control plane, so never needs EKS-A.
         */
        private void raiseGroup(String group, KubernetesVersion target) throws UnreachableTarget {
            KubernetesVersion version = groups.get(group);
            if (version.major() != target.major()) {
                throw new UnreachableTarget("worker node group " + group + " runs Kubernetes " + version
                        + ", not on the control plane's major version " + controlPlane.major());
            }
            while (version.compareTo(target) < 0) {
                KubernetesVersion next = new KubernetesVersion(version.major(), version.minor() + 1);
                if (!supportedBy(eksa).contains(next)) {
                    throw new UnreachableTarget("cannot upgrade worker node group " + group + " to Kubernetes " + next
                            + ": EKS-A " + eksa + " does not support it");
                }
                steps.add(new Step(Component.WORKER_NODE_GROUP, Optional.of(group), version.toString(), next.toString(),
                        "upgrade worker node group " + group + " from Kubernetes " + version + " to " + next));
                version = next;
                groups.put(group, version);
            }
        }

        private List<KubernetesVersion> supportedBy(EksaVersion release) throws UnreachableTarget {
            Optional<List<KubernetesVersion>> supported = compatibility.kubernetesFor(release);
            if (supported.isEmpty()) {
                throw new UnreachableTarget("no compatibility data for EKS-A release line " + release.minorLine()
                        + ": which Kubernetes versions " + release + " supports is unknown");
            }
            return supported.get();
        }

        private Optional<EksaVersion> newestOfLine(int minor) {
            return releases.stream().filter(r -> r.major() == eksa.major() && r.minor() == minor)
                    .max(Comparator.naturalOrder());
        }

        private EksaVersion nextLineRelease(String why) throws UnreachableTarget {
            String line = "v" + eksa.major() + "." + (eksa.minor() + 1);
            Optional<EksaVersion> release = newestOfLine(eksa.minor() + 1);
            if (release.isEmpty()) {
                throw new UnreachableTarget("no EKS-A " + line + " release is available on the management cluster, "
                        + "and EKS-A upgrades go one minor version at a time: one is needed " + why);
            }
            return release.get();
        }

        /** The Cilium change, shown only when the data knows both sides. */
        private String cilium(EksaVersion before, EksaVersion after) {
            Optional<String> old = compatibility.ciliumFor(before);
            Optional<String> now = compatibility.ciliumFor(after);
            if (old.isEmpty() || now.isEmpty()) {
                return "";
            }
            return old.equals(now)
                    ? " (Cilium " + old.get() + " unchanged)"
                    : " (Cilium " + old.get() + " -> " + now.get() + ")";
        }
    }
}
