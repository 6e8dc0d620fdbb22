package io.statusaggregator.versions;

import io.statusaggregator.versions.json.CompatibilityReader;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.EksaVersion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.versions.UpgradePlan.Component;
import io.statusaggregator.versions.UpgradePlan.Position;
import io.statusaggregator.versions.UpgradePlan.Step;
import io.statusaggregator.versions.UpgradePlan.Target;
import io.statusaggregator.versions.UpgradePlan.UnreachableTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Upgrade plans over the built-in compatibility data. */
class UpgradePlanTest {
    private static final Compatibility DATA = CompatibilityReader.builtIn();

    private static EksaVersion v(String text) {
        return EksaVersion.parse(text).orElseThrow();
    }

    private static KubernetesVersion k(String text) {
        return KubernetesVersion.parseSpec(text).orElseThrow();
    }

    private static List<EksaVersion> releases(String... versions) {
        List<EksaVersion> list = new ArrayList<>();
        for (String version : versions) {
            list.add(v(version));
        }
        return list;
    }

    /** groups: "name=version" pairs, in order. */
    private static Position at(String eksa, String controlPlane, String... groups) {
        Map<String, KubernetesVersion> map = new LinkedHashMap<>();
        for (String group : groups) {
            String[] parts = group.split("=");
            map.put(parts[0], k(parts[1]));
        }
        return new Position(v(eksa), k(controlPlane), map, Optional.empty());
    }

    private static Step eksa(String from, String to) {
        return new Step(Component.EKSA, Optional.empty(), from, to, "upgrade EKS-A from " + from + " to " + to);
    }

    private static Step eksa(String from, String to, String cilium) {
        return new Step(Component.EKSA, Optional.empty(), from, to, "upgrade EKS-A from " + from + " to " + to + " (Cilium " + cilium + ")");
    }

    private static Step cp(String from, String to) {
        return new Step(Component.CONTROL_PLANE, Optional.empty(), from, to,
                "upgrade the control plane from Kubernetes " + from + " to " + to);
    }

    private static Step group(String name, String from, String to) {
        return new Step(Component.WORKER_NODE_GROUP, Optional.of(name), from, to,
                "upgrade worker node group " + name + " from Kubernetes " + from + " to " + to);
    }

    private static UpgradePlan plan(Position current, Target target, List<EksaVersion> releases) throws UnreachableTarget {
        UpgradePlan plan = UpgradePlan.of(current, target, releases, DATA);
        assertValid(plan, releases);
        return plan;
    }

    private static String unreachable(Position current, Target target, List<EksaVersion> releases) {
        return assertThrows(UnreachableTarget.class, () -> UpgradePlan.of(current, target, releases, DATA)).getMessage();
    }

    @Test
    void upToDateWhenNoNewerReleaseIsAvailable() throws Exception {
        UpgradePlan plan = plan(at("v0.24.2", "1.30", "md-0=1.30"), Target.NEXT, releases("v0.23.1", "v0.24.0", "v0.24.2"));
        assertTrue(plan.upToDate());
        assertEquals(plan.from(), plan.to());
        assertEquals(Optional.of("v1.17.10-0"), plan.from().cilium());
        assertEquals(List.of("up to date: no newer EKS-A release is available on the management cluster"), plan.notes());
    }

    @Test
    void theDefaultTargetIsTheNewestReleaseOfTheNextMinor() throws Exception {
        UpgradePlan plan = plan(at("v0.23.1", "1.30", "md-0=1.30"), Target.NEXT,
                releases("v0.25.0", "v0.24.2", "v0.23.1", "v0.24.0"));
        assertEquals(List.of(eksa("v0.23.1", "v0.24.2", "v1.15.16-eksa.1 -> v1.17.10-0")), plan.steps());
        assertEquals(Optional.of("v1.15.16-eksa.1"), plan.from().cilium());
        assertEquals(v("v0.24.2"), plan.to().eksa());
        assertEquals(Optional.of("v1.17.10-0"), plan.to().cilium());
        assertEquals(k("1.30"), plan.to().controlPlane());
        assertEquals(List.of(), plan.notes());
        assertFalse(plan.upToDate());
    }

    @Test
    void withoutANextMinorTheDefaultTargetIsANewerPatch() throws Exception {
        UpgradePlan plan = plan(at("v0.22.2", "1.30"), Target.NEXT, releases("v0.22.2", "v0.22.6", "v0.22.4"));
        assertEquals(List.of(eksa("v0.22.2", "v0.22.6", "v1.15.14-eksa.1 -> v1.15.16-eksa.1")), plan.steps());
    }

    @Test
    void theCiliumPartIsOmittedWhenUnknownAndSaysUnchangedWhenEqual() throws Exception {
        assertEquals(List.of(eksa("v0.22.6", "v0.23.1", "v1.15.16-eksa.1 unchanged")),
                plan(at("v0.22.6", "1.30"), Target.NEXT, releases("v0.23.1")).steps());
        assertEquals(List.of(eksa("v0.18.3", "v0.19.2")),
                plan(at("v0.18.3", "1.27"), Target.NEXT, releases("v0.19.2")).steps());
    }

    @Test
    void aTargetTwoMinorsAheadPassesThroughTheNewestReleaseOfTheMiddleLine() throws Exception {
        UpgradePlan plan = plan(at("v0.23.1", "1.30", "md-0=1.29"), Target.parse("v0.25.0"),
                releases("v0.23.1", "v0.24.0", "v0.24.2", "v0.25.0", "v0.25.3"));
        assertEquals(List.of(eksa("v0.23.1", "v0.24.2", "v1.15.16-eksa.1 -> v1.17.10-0"),
                eksa("v0.24.2", "v0.25.0", "v1.17.10-0 -> v1.18.5-0")), plan.steps());
        assertEquals(List.of("v0.25.0 is 2 minor versions ahead of v0.23.1: EKS-A upgrades go one minor version at a time"),
                plan.notes());
        assertEquals(new Position(v("v0.25.0"), k("1.30"), Map.of("md-0", k("1.29")), Optional.of("v1.18.5-0")), plan.to());
    }

    @Test
    void aMissingMiddleLineIsUnreachable() {
        String message = unreachable(at("v0.23.1", "1.30"), new Target(Optional.of(v("v0.25.0")), Optional.empty()),
                releases("v0.23.1", "v0.25.0"));
        assertTrue(message.contains("no EKS-A v0.24 release is available on the management cluster"), message);
    }

    @Test
    void unknownTargets() {
        Position current = at("v0.23.1", "1.30");
        assertEquals("unknown EKS-A version v0.24.3: no EKSARelease eksa-v0-24-3 on the management cluster",
                unreachable(current, new Target(Optional.of(v("v0.24.3")), Optional.empty()), releases("v0.24.2")));
        String noLine = unreachable(at("v0.26.0", "1.33"), new Target(Optional.of(v("v0.27.0")), Optional.empty()),
                releases("v0.27.0"));
        assertTrue(noLine.contains("no compatibility data for EKS-A release line v0.27"), noLine);
        assertEquals("Kubernetes 1.40 is not supported by any EKS-A release in the compatibility data",
                unreachable(current, new Target(Optional.empty(), Optional.of(k("1.40"))), releases("v0.24.2")));
        for (String text : List.of("latest", "v0.24", "1.29.3", "", "0.24.2")) {
            String message = assertThrows(UnreachableTarget.class, () -> Target.parse(text)).getMessage();
            assertEquals("unknown upgrade target \"" + text
                    + "\": expected an EKS-A version such as v0.24.2 or a Kubernetes version such as 1.29", message);
        }
        // A caller's text comes back cut short and with nothing unprintable in it (the HTTP check answers with it).
        String longer = "v" + "9".repeat(4_000) + "\n<script>";
        String message = assertThrows(UnreachableTarget.class, () -> Target.parse(longer)).getMessage();
        assertTrue(message.startsWith("unknown upgrade target \"v999") && message.contains("\"...: expected"), message);
        assertTrue(message.length() < 200, message);
        String control = assertThrows(UnreachableTarget.class, () -> Target.parse("v1\u001b[31m")).getMessage();
        assertTrue(control.startsWith("unknown upgrade target \"v1\\u001b[31m\""), control);
    }

    @Test
    void targetsParse() throws Exception {
        assertEquals(new Target(Optional.of(v("v0.24.2")), Optional.empty()), Target.parse("v0.24.2"));
        assertEquals(new Target(Optional.empty(), Optional.of(k("1.29"))), Target.parse("1.29"));
    }

    @Test
    void downgradesAreUnreachable() {
        assertEquals("cannot upgrade from v0.24.2 to v0.23.1: EKS-A versions cannot be downgraded",
                unreachable(at("v0.24.2", "1.30"), new Target(Optional.of(v("v0.23.1")), Optional.empty()),
                        releases("v0.23.1", "v0.24.2")));
        assertEquals("cannot upgrade the control plane from Kubernetes 1.30 to 1.29: Kubernetes versions cannot be downgraded",
                unreachable(at("v0.24.2", "1.30"), new Target(Optional.empty(), Optional.of(k("1.29"))), releases("v0.24.2")));
    }

    @Test
    void theCurrentVersionsAreUpToDate() throws Exception {
        assertTrue(plan(at("v0.24.2", "1.30"), Target.parse("v0.24.2"), releases("v0.24.2", "v0.25.0")).upToDate());
        assertTrue(plan(at("v0.24.2", "1.30", "md-0=1.30"), Target.parse("1.30"), releases("v0.24.2")).upToDate());
        assertEquals(List.of(group("md-0", "1.29", "1.30")),
                plan(at("v0.24.2", "1.30", "md-0=1.29"), Target.parse("1.30"), releases("v0.24.2")).steps());
    }

    @Test
    void aKubernetesTargetTheCurrentLineDoesNotSupportUpgradesEksaFirst() throws Exception {
        UpgradePlan plan = plan(at("v0.22.6", "1.32", "md-0=1.32"), Target.parse("1.33"),
                releases("v0.22.6", "v0.23.0", "v0.23.1"));
        assertEquals(List.of(eksa("v0.22.6", "v0.23.1", "v1.15.16-eksa.1 unchanged"), cp("1.32", "1.33"),
                group("md-0", "1.32", "1.33")), plan.steps());
        assertEquals(List.of("Kubernetes 1.33 is not supported by EKS-A v0.22.6: EKS-A is upgraded first"), plan.notes());
        assertEquals(Optional.of("v1.15.16-eksa.1"), plan.to().cilium());
    }

    @Test
    void aKubernetesTargetTwoMinorsAheadInterleavesEksaAndLiftsTheLaggingGroup() throws Exception {
        UpgradePlan plan = plan(at("v0.23.1", "1.32", "md-0=1.31", "md-1=1.32"), Target.parse("1.34"),
                releases("v0.23.1", "v0.24.0", "v0.24.2", "v0.25.0"));
        assertEquals(List.of(cp("1.32", "1.33"), eksa("v0.23.1", "v0.24.2", "v1.15.16-eksa.1 -> v1.17.10-0"),
                group("md-0", "1.31", "1.32"), cp("1.33", "1.34"),
                group("md-0", "1.32", "1.33"), group("md-0", "1.33", "1.34"),
                group("md-1", "1.32", "1.33"), group("md-1", "1.33", "1.34")), plan.steps());
        assertTrue(plan.notes().contains("Kubernetes 1.34 is 2 minor versions ahead of 1.32: Kubernetes goes one minor version at a time"),
                plan.notes().toString());
    }

    @Test
    void kubernetesStepsComeFirstWhenTheNextLineDropsAMinorAGroupRuns() throws Exception {
        // v0.18 supports 1.24-1.28, v0.19 supports 1.25-1.29
        UpgradePlan plan = plan(at("v0.18.3", "1.25", "md-0=1.24", "md-1=1.25"), Target.NEXT,
                releases("v0.18.3", "v0.19.0", "v0.19.2"));
        assertEquals(List.of(group("md-0", "1.24", "1.25"), eksa("v0.18.3", "v0.19.2")), plan.steps());
        assertEquals(List.of("EKS-A v0.19 does not support Kubernetes below 1.25: Kubernetes is upgraded first, under EKS-A v0.18.3"),
                plan.notes());
        // v0.20 supports 1.26-1.30, v0.21 supports 1.27-1.31: the control plane goes first, then the group
        assertEquals(List.of(cp("1.26", "1.27"), group("md-0", "1.26", "1.27"), eksa("v0.20.9", "v0.21.7",
                        "v1.13.21-eksa.5 -> v1.14.12-eksa.3")),
                plan(at("v0.20.9", "1.26", "md-0=1.26"), Target.NEXT, releases("v0.21.0", "v0.21.7")).steps());
    }

    @Test
    void aGroupTwoMinorsBehindIsRaisedBeforeTheControlPlaneRises() throws Exception {
        UpgradePlan plan = plan(at("v0.24.2", "1.30", "md-0=1.28", "md-1=1.30"), Target.parse("1.31"), releases("v0.24.2"));
        assertEquals(List.of(group("md-0", "1.28", "1.29"), cp("1.30", "1.31"), group("md-0", "1.29", "1.30"),
                group("md-0", "1.30", "1.31"), group("md-1", "1.30", "1.31")), plan.steps());
        assertEquals(List.of(), plan.notes());
    }

    @Test
    void aMissingLineInBetweenIsUnreachable() {
        String message = unreachable(at("v0.16.0", "1.27"), new Target(Optional.of(v("v0.18.0")), Optional.empty()),
                releases("v0.16.0", "v0.18.0"));
        assertEquals("no EKS-A v0.17 release is available on the management cluster, and EKS-A upgrades go one minor"
                + " version at a time: one is needed on the way to v0.18.0", message);
    }

    @Test
    void aKubernetesStepTheLineInForceDoesNotSupportIsUnreachable() throws Exception {
        // made-up data with a gap: v0.2 needs Kubernetes 1.23, which v0.1 cannot reach (it stops at 1.21)
        Compatibility gap = CompatibilityReader.read(new YAMLMapper().readTree("""
                version: test
                releaseLines:
                  - {eksa: v0.1, kubernetes: ["1.20", "1.21"]}
                  - {eksa: v0.2, kubernetes: ["1.23", "1.24"]}
                """));
        String message = assertThrows(UnreachableTarget.class,
                () -> UpgradePlan.of(at("v0.1.0", "1.21"), Target.NEXT, releases("v0.2.0"), gap)).getMessage();
        assertEquals("cannot upgrade the control plane to Kubernetes 1.22: EKS-A v0.1.0 does not support it", message);
    }

    /** Every plan over many starting points and targets, replayed step by step, respects every version rule. */
    @Test
    void everyPlanKeepsTheClusterValidAtEveryStep() throws Exception {
        List<EksaVersion> releases = new ArrayList<>();
        for (int minor = 15; minor <= 26; minor++) {
            releases.add(new EksaVersion(0, minor, 0, ""));
            releases.add(new EksaVersion(0, minor, 9, ""));
        }
        int plans = 0;
        int steps = 0;
        for (Compatibility.ReleaseLine line : DATA.releaseLines()) {
            EksaVersion start = v(line.eksa() + ".0");
            for (KubernetesVersion controlPlane : line.kubernetes()) {
                for (int lag = 0; lag <= 2; lag++) {
                    KubernetesVersion lagging = new KubernetesVersion(1, controlPlane.minor() - lag);
                    if (!line.kubernetes().contains(lagging)) {
                        continue;
                    }
                    Position current = new Position(start, controlPlane,
                            Map.of("md-0", lagging, "md-1", controlPlane), Optional.empty());
                    List<Target> targets = new ArrayList<>(List.of(Target.NEXT));
                    for (EksaVersion release : releases) {
                        targets.add(new Target(Optional.of(release), Optional.empty()));
                    }
                    for (int minor = controlPlane.minor(); minor <= 36; minor++) {
                        targets.add(new Target(Optional.empty(), Optional.of(new KubernetesVersion(1, minor))));
                    }
                    for (Target target : targets) {
                        UpgradePlan plan;
                        try {
                            plan = UpgradePlan.of(current, target, releases, DATA);
                        } catch (UnreachableTarget e) {
                            assertTrue(target.eksa().map(t -> t.compareTo(start) < 0).orElse(false), e.getMessage());
                            continue;
                        }
                        assertValid(plan, releases);
                        target.eksa().ifPresent(t -> assertEquals(t, plan.to().eksa()));
                        if (target.equals(Target.NEXT)) {
                            assertEquals(new EksaVersion(0, Math.min(start.minor() + 1, 26), 9, ""), plan.to().eksa());
                        }
                        target.kubernetes().ifPresent(t -> {
                            assertEquals(t, plan.to().controlPlane());
                            assertTrue(plan.to().workerNodeGroups().values().stream().allMatch(t::equals));
                        });
                        plans++;
                        steps += plan.steps().size();
                    }
                }
            }
        }
        assertTrue(plans > 1000, "plans checked: " + plans);
        assertTrue(steps > 10000, "steps checked: " + steps);
    }

    /** Replays the plan's steps from its start and checks the rules of versions.md after each one. */
    private static void assertValid(UpgradePlan plan, List<EksaVersion> releases) {
        EksaVersion eksa = plan.from().eksa();
        KubernetesVersion controlPlane = plan.from().controlPlane();
        Map<String, KubernetesVersion> groups = new LinkedHashMap<>(plan.from().workerNodeGroups());
        assertEquals(DATA.ciliumFor(eksa), plan.from().cilium());
        for (Step step : plan.steps()) {
            String where = step + " in " + plan.steps();
            assertEquals(step.component() == Component.WORKER_NODE_GROUP, step.group().isPresent(), where);
            if (step.component() == Component.EKSA) {
                assertEquals(eksa.toString(), step.from(), where);
                EksaVersion next = v(step.to());
                assertTrue(releases.contains(next), where);
                assertTrue(next.compareTo(eksa) > 0 && next.major() == eksa.major(), where);
                assertTrue(next.minor() - eksa.minor() <= 1, where);
                eksa = next;
            } else if (step.component() == Component.CONTROL_PLANE) {
                assertEquals(controlPlane.toString(), step.from(), where);
                controlPlane = oneMinorUp(controlPlane, step, where);
            } else {
                String group = step.group().orElseThrow();
                assertEquals(groups.get(group).toString(), step.from(), where);
                groups.put(group, oneMinorUp(groups.get(group), step, where));
            }
            List<KubernetesVersion> supported = supported(eksa);
            assertTrue(supported.contains(controlPlane), where);
            for (KubernetesVersion version : groups.values()) {
                assertTrue(supported.contains(version), where);
                assertEquals(controlPlane.major(), version.major(), where);
                int lag = controlPlane.minor() - version.minor();
                assertTrue(lag >= 0 && lag <= 2, where);
            }
        }
        assertEquals(new Position(eksa, controlPlane, groups, DATA.ciliumFor(eksa)), plan.to());
        assertEquals(plan.upToDate(), plan.from().equals(plan.to()));
    }

    private static KubernetesVersion oneMinorUp(KubernetesVersion version, Step step, String where) {
        KubernetesVersion next = k(step.to());
        assertEquals(new KubernetesVersion(version.major(), version.minor() + 1), next, where);
        return next;
    }

    private static List<KubernetesVersion> supported(EksaVersion eksa) {
        return DATA.releaseLines().stream().filter(l -> l.eksa().equals(eksa.minorLine())).findFirst().orElseThrow().kubernetes();
    }
}
