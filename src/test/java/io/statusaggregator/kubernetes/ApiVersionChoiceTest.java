package io.statusaggregator.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.kubernetes.ApiVersionChoice.Choice;
import io.statusaggregator.kubernetes.ApiVersionChoice.Setting;
import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which version each kind is read at: every setting against every set of versions a management cluster can serve. */
class ApiVersionChoiceTest {
    /** What Cluster API serves a kind at over its releases, and what no release does (nothing, a version not read). */
    private static final List<Set<String>> SERVED = List.of(Set.of(), Set.of("v1beta1"), Set.of("v1beta2", "v1beta1"),
            Set.of("v1beta2"), Set.of("v1alpha4"), Set.of("v1alpha4", "v1beta1"));

    @Test
    void everySettingAgainstEveryServedSetForEveryKind() {
        for (ObjectKind kind : ObjectKind.values()) {
            for (Set<String> served : SERVED) {
                for (Setting setting : Setting.values()) {
                    Choice choice = ApiVersionChoice.decide(kind, served, setting);
                    String where = kind + " served at " + served + ", " + setting;
                    assertEquals(kind, choice.kind());
                    assertEquals(expected(kind, served, setting), choice.version(), where);
                    assertEquals(choice.version().isEmpty(), choice.problem().isPresent(),
                            where + ": a problem exactly when no version");
                    boolean forcedHere = setting != Setting.AUTO && kind.versions().contains(setting.text());
                    assertEquals(forcedHere && choice.version().isEmpty(), choice.forced(), where);
                    choice.version().ifPresent(version -> assertTrue(served.contains(version),
                            where + ": never a version not served"));
                }
            }
        }
    }

    /** The rule said again plainly: a forced version of a kind that has it, else the newest served that is read. */
    private static Optional<String> expected(ObjectKind kind, Set<String> served, Setting setting) {
        if (setting != Setting.AUTO && kind.versions().contains(setting.text())) {
            return served.contains(setting.text()) ? Optional.of(setting.text()) : Optional.empty();
        }
        List<String> readable = new ArrayList<>(kind.versions());
        readable.retainAll(served);
        return readable.stream().findFirst();
    }

    @Test
    void autoReadsV1beta2WhereServedAndV1beta1Before() {
        assertEquals(Optional.of("v1beta1"), version(ObjectKind.MACHINE, Set.of("v1beta1"), Setting.AUTO));
        assertEquals(Optional.of("v1beta2"), version(ObjectKind.MACHINE, Set.of("v1beta2", "v1beta1"), Setting.AUTO));
        assertEquals(Optional.of("v1beta2"), version(ObjectKind.MACHINE, Set.of("v1beta2"), Setting.AUTO));
        assertEquals(Optional.of("v1beta1"), version(ObjectKind.ETCDADM_CLUSTER, Set.of("v1beta1"), Setting.V1BETA2),
                "EtcdadmCluster has no v1beta2: a forced v1beta2 is not its");
    }

    private static Optional<String> version(ObjectKind kind, Set<String> served, Setting setting) {
        return ApiVersionChoice.decide(kind, served, setting).version();
    }

    @Test
    void theProblemsSayWhatIsServed() {
        assertEquals(Optional.of("aggregator.capi.api-version is v1beta1, but the API server serves "
                + "machines.cluster.x-k8s.io at v1beta2 only"),
                ApiVersionChoice.decide(ObjectKind.MACHINE, Set.of("v1beta2"), Setting.V1BETA1).problem());
        assertEquals(Optional.of("aggregator.capi.api-version is v1beta2, but the API server serves "
                + "machines.cluster.x-k8s.io at none of v1beta2, v1beta1"),
                ApiVersionChoice.decide(ObjectKind.MACHINE, Set.of(), Setting.V1BETA2).problem());
        assertEquals(Optional.of("kubeadmcontrolplanes.controlplane.cluster.x-k8s.io/v1beta2 or v1beta1"),
                ApiVersionChoice.decide(ObjectKind.KUBEADM_CONTROL_PLANE, Set.of("v1alpha4"), Setting.AUTO).problem());
    }

    @Test
    void aKindWithoutAVersionKeepsTheOneItIsReadAtAndTheOthersMove() {
        Map<ObjectKind, String> current = new LinkedHashMap<>(
                Map.of(ObjectKind.MACHINE, "v1beta1", ObjectKind.CAPI_CLUSTER, "v1beta1"));
        Map<ObjectKind, String> next = ApiVersionChoice.next(current, List.of(
                ApiVersionChoice.decide(ObjectKind.MACHINE, Set.of("v1beta2", "v1beta1"), Setting.AUTO),
                ApiVersionChoice.decide(ObjectKind.CAPI_CLUSTER, Set.of(), Setting.AUTO)));
        assertEquals(Map.of(ObjectKind.MACHINE, "v1beta2", ObjectKind.CAPI_CLUSTER, "v1beta1"), next);
    }

    @Test
    void beforeDiscoveryAnswersEachKindIsReadAtTheOldestOrTheForcedVersion() {
        List<ObjectKind> kinds = List.of(ObjectKind.MACHINE, ObjectKind.ETCDADM_CLUSTER);
        assertEquals(Map.of(ObjectKind.MACHINE, "v1beta1", ObjectKind.ETCDADM_CLUSTER, "v1beta1"),
                ApiVersionChoice.initial(kinds, Setting.AUTO));
        assertEquals(Map.of(ObjectKind.MACHINE, "v1beta2", ObjectKind.ETCDADM_CLUSTER, "v1beta1"),
                ApiVersionChoice.initial(kinds, Setting.V1BETA2));
    }

    @Test
    void theSettingIsReadInAnyCaseAndNothingElse() {
        assertEquals(Optional.of(Setting.AUTO), Setting.parse("auto"));
        assertEquals(Optional.of(Setting.V1BETA2), Setting.parse(" V1Beta2 "));
        assertEquals(Optional.of(Setting.V1BETA1), Setting.parse("v1beta1"));
        assertFalse(Setting.parse("v1beta3").isPresent());
        assertFalse(Setting.parse("").isPresent());
    }
}
