package io.statusaggregator.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Kubernetes version rules of versions.md (002), table-driven through {@link VersionRules}, the one entry the
 * status and the webhook share: the skew that always holds, and a change from the versions the cluster last reached
 * ({@code status.versions.currentKubernetes}) to the spec now. Groups are written {@code md-0=1.27} (own version) or
 * {@code md-0} (follows the cluster's).
 */
class KubernetesVersionRulesTest {
    private static EksaCluster cluster(String reachedCluster, String reachedGroups, String cluster, String groups) throws Exception {
        String reached = reachedCluster.equals("-") ? "" : "currentKubernetes: {kubernetesVersion: \"%s\", workerNodeGroups: [%s]}"
                .formatted(reachedCluster, groupList(reachedGroups, false));
        String yaml = """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: c1, generation: 2}
                spec:
                  kubernetesVersion: "%s"
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [%s]
                status:
                  versions: {current: "v0.20.0#h", %s}
                """.formatted(cluster, groupList(groups, true), reached);
        return (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree(yaml)).orElseThrow();
    }

    private static String groupList(String groups, boolean withCount) {
        StringBuilder list = new StringBuilder();
        for (String group : groups.split(";")) {
            if (group.isBlank()) {
                continue;
            }
            String[] parts = group.trim().split("=");
            list.append(list.length() == 0 ? "" : ", ").append("{name: ").append(parts[0]);
            if (withCount) {
                list.append(", count: 1");
            }
            if (parts.length > 1) {
                list.append(", kubernetesVersion: \"").append(parts[1]).append('"');
            }
            list.append('}');
        }
        return list.toString();
    }

    @ParameterizedTest(name = "{0} [{1}] -> {2} [{3}]")
    @CsvSource(delimiter = '|', value = {
            // The skew that always holds, whatever was reached (- : nothing reached yet).
            "-    | ''               | 1.28 | md-0=1.26                 | ''",
            "-    | ''               | 1.28 | md-0=1.25                 | cluster level minor version must be within 2 versions greater than worker node group version: md-0",
            "-    | ''               | 1.28 | md-0=1.29                 | cluster level minor version must be within 2 versions greater than worker node group version: md-0",
            "-    | ''               | 1.28 | md-0;md-1=2.28            | cluster level minor version must be within 2 versions greater than worker node group version: md-1",
            // The control plane stays or rises by one minor.
            "1.27 | md-0             | 1.27 | md-0                      | ''",
            "1.27 | md-0             | 1.28 | md-0                      | ''",
            "1.27 | md-0             | 1.29 | md-0                      | only +1 minor version skew is supported, minor version skew detected 2",
            "1.28 | md-0             | 1.27 | md-0                      | kubernetes version downgrade is not supported (1.28) -> (1.27)",
            // A modular upgrade: the control plane first, a group pinned to the old version, then the group.
            "1.27 | md-0;md-1        | 1.28 | md-0;md-1=1.27            | ''",
            "1.28 | md-0;md-1=1.27   | 1.28 | md-0;md-1=1.28            | ''",
            "1.28 | md-0;md-1=1.27   | 1.28 | md-0;md-1                 | ''",
            "1.28 | md-0;md-1=1.26   | 1.28 | md-0;md-1=1.28            | only +1 minor version skew is supported, minor version skew detected 2",
            "1.28 | md-0;md-1=1.27   | 1.28 | md-0;md-1=1.26            | kubernetes version downgrade is not supported (1.27) -> (1.26)",
            // A group that followed the cluster is compared with the old cluster version.
            "1.27 | md-0             | 1.27 | md-0=1.29                 | cluster level minor version must be within 2 versions greater than worker node group version: md-0",
            "1.28 | md-0             | 1.29 | md-0=1.27                 | kubernetes version downgrade is not supported (1.28) -> (1.27)",
            // Dropping a group's own version while the cluster version moves.
            "1.27 | md-0=1.27        | 1.28 | md-0                      | can't simultaneously remove worker kubernetesVersion and upgrade cluster level kubernetesVersion: md-0",
            "1.28 | md-0=1.27        | 1.28 | md-0                      | ''",
            // A new group is held only to the skew that always holds.
            "1.28 | md-0             | 1.28 | md-0;md-9=1.26            | ''",
            // The first rule that fails wins, in spec order.
            "1.27 | md-0=1.27;md-1=1.27 | 1.28 | md-0=1.26;md-1        | kubernetes version downgrade is not supported (1.27) -> (1.26)"})
    void aChangeIsJudgedFromTheVersionsLastReached(String reachedCluster, String reachedGroups, String cluster, String groups,
            String message) throws Exception {
        Optional<Failure> expected = message.isEmpty() ? Optional.empty() : Optional.of(new Failure("KubernetesVersionInvalid", message));
        assertEquals(expected, VersionRules.check(cluster(reachedCluster, reachedGroups, cluster, groups), ManagementCluster.UNKNOWN,
                Optional.empty()));
    }

    @ParameterizedTest(name = "workload {0}, management {1}")
    @CsvSource(delimiter = '|', value = {
            "v0.20.1 | v0.20.1 | ''",
            "v0.20.0 | v0.20.1 | ''",
            "v0.20.2 | v0.20.1 | cannot upgrade workload cluster to v0.20.2 while management cluster is an older version: v0.20.1",
            "v0.21.0 | v0.20.1 | cannot upgrade workload cluster to v0.21.0 while management cluster is an older version: v0.20.1",
            "v0.21.0 | -       | ''"})
    void aWorkloadClusterNeverRunsANewerEksaVersionThanItsManagementCluster(String workload, String manager, String message)
            throws Exception {
        EksaCluster cluster = (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: w1, generation: 2}
                spec:
                  kubernetesVersion: "1.28"
                  eksaVersion: %s
                  managementCluster: {name: mgmt}
                  controlPlaneConfiguration: {count: 1}
                status:
                  versions: {current: "v0.20.0#h"}
                """.formatted(workload))).orElseThrow();
        ManagementCluster management = new ManagementCluster(Optional.empty(), manager.equals("-") ? Map.of() : Map.of("mgmt", manager));
        Optional<Failure> expected = message.isEmpty() ? Optional.empty() : Optional.of(new Failure("EksaVersionInvalid", message));
        assertEquals(expected, VersionRules.check(cluster, management, Optional.empty()));
        // A management cluster is not held to itself.
        EksaCluster selfManaged = (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: mgmt}
                spec: {kubernetesVersion: "1.28", eksaVersion: %s, managementCluster: {name: mgmt}, controlPlaneConfiguration: {count: 1}}
                """.formatted(workload))).orElseThrow();
        assertEquals(Optional.empty(), VersionRules.check(selfManaged, management, Optional.empty()));
    }

    /** Rule 4 against the built-in compatibility data: the versions each release line supports, and nothing else. */
    @ParameterizedTest(name = "{0} on {1} [{2}]")
    @CsvSource(delimiter = '|', value = {
            "1.31 | v0.21.7 | md-0           | ''",
            "1.27 | v0.21.0 | md-0           | ''",
            "1.99 | v0.21.7 | md-0           | kubernetes version 1.99 is not supported by EKS-A v0.21.7, which supports 1.27, 1.28, 1.29, 1.30, 1.31",
            "1.32 | v0.21.7 | md-0           | kubernetes version 1.32 is not supported by EKS-A v0.21.7, which supports 1.27, 1.28, 1.29, 1.30, 1.31",
            "1.26 | v0.21.7 | md-0           | kubernetes version 1.26 is not supported by EKS-A v0.21.7, which supports 1.27, 1.28, 1.29, 1.30, 1.31",
            "1.28 | v0.21.7 | md-0;md-1=1.26 | kubernetes version 1.26 of worker node group md-1 is not supported by EKS-A v0.21.7, which supports 1.27, 1.28, 1.29, 1.30, 1.31",
            // A release line the data does not know is not judged, as the Cilium expectation is not.
            "1.99 | v0.99.0 | md-0           | ''",
            "1.99 | -       | md-0           | ''"})
    void aKubernetesVersionTheReleaseDoesNotSupportIsInvalid(String kubernetes, String eksa, String groups, String message)
            throws Exception {
        EksaCluster cluster = (EksaCluster) ObjectDecoder.decode(new YAMLMapper().readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: c1, generation: 1}
                spec:
                  kubernetesVersion: "%s"
                  %s
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [%s]
                """.formatted(kubernetes, eksa.equals("-") ? "" : "eksaVersion: " + eksa, groupList(groups, true)))).orElseThrow();
        Optional<Failure> expected = message.isEmpty() ? Optional.empty() : Optional.of(new Failure("KubernetesVersionInvalid", message));
        assertEquals(expected, VersionRules.check(cluster, ManagementCluster.UNKNOWN,
                VersionRules.supportedBy(cluster.spec(), CompatibilityReader.builtIn())));
    }
}
