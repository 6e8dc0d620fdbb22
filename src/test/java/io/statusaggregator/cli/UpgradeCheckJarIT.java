package io.statusaggregator.cli;

import io.statusaggregator.kubernetes.KubernetesResources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.model.ObjectKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code upgrade-check} on the packaged application against an API server reached through {@code KUBECONFIG}, as a
 * user runs it: up to date, one step, two steps, an unknown target and a missing cluster, with their exit codes.
 */
class UpgradeCheckJarIT {
    private static EmbeddedKubernetes api;
    private static Path kubeconfig;

    @BeforeAll
    static void apiServer() throws Exception {
        api = EmbeddedKubernetes.start(0);
        kubeconfig = api.writeKubeconfig(Files.createTempDirectory("upgrade-check").resolve("kubeconfig"));
        KubernetesClient client = api.client();
        release(client, "v0.22.6");
        cluster(client, "current", "v0.22.6", "1.27");
        cluster(client, "behind", "v0.21.7", "1.28");
        cluster(client, "lagging", "v0.21.7", "1.27");
        release(client, "v0.21.7");
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static void release(KubernetesClient client, String version) {
        client.genericKubernetesResources(KubernetesResources.RELEASES).inNamespace("eksa-system")
                .resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: eksa-%s, namespace: eksa-system}
                        spec: {version: %s}
                        """.formatted(version.replace('.', '-'), version), GenericKubernetesResource.class)).create();
    }

    private static void cluster(KubernetesClient client, String name, String eksaVersion, String groupVersion) {
        client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default")
                .resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: Cluster
                        metadata: {namespace: default, name: %s}
                        spec:
                          kubernetesVersion: "1.28"
                          eksaVersion: %s
                          controlPlaneConfiguration: {count: 1}
                          workerNodeGroupConfigurations: [{name: md-0, count: 1, kubernetesVersion: "%s"}]
                        """.formatted(name, eksaVersion, groupVersion), GenericKubernetesResource.class)).create();
    }

    private static JarProcess.Finished upgradeCheck(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("upgrade-check"));
        command.addAll(List.of(args));
        return JarProcess.run(List.of(), java.util.Map.of("KUBECONFIG", kubeconfig.toString()), new byte[0], command.toArray(String[]::new));
    }

    @Test
    void aClusterOnTheNewestReleaseIsUpToDate() throws Exception {
        JarProcess.Finished run = upgradeCheck("--cluster", "default/current");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("default/current: up to date (EKS-A v0.22.6, Kubernetes 1.28)"), run.out());
    }

    @Test
    void oneMinorBehindIsOneStepWithTheCiliumChange() throws Exception {
        JarProcess.Finished run = upgradeCheck("--cluster", "default/behind", "-o", "json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode answer = new ObjectMapper().readTree(run.out());
        assertEquals(1, answer.path("steps").size(), run.out());
        assertEquals("upgrade EKS-A from v0.21.7 to v0.22.6 (Cilium v1.14.12-eksa.3 -> v1.15.16-eksa.1)",
                answer.path("steps").get(0).path("description").asText());
    }

    @Test
    void aGroupOnAVersionTheNextLineDropsIsUpgradedFirst() throws Exception {
        JarProcess.Finished run = upgradeCheck("--cluster", "default/lagging");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("""
                Steps, in order:
                  1. upgrade worker node group md-0 from Kubernetes 1.27 to 1.28
                  2. upgrade EKS-A from v0.21.7 to v0.22.6 (Cilium v1.14.12-eksa.3 -> v1.15.16-eksa.1)
                """), run.out());
        assertTrue(run.out().contains("EKS-A v0.22 does not support Kubernetes below 1.28: Kubernetes is upgraded first"), run.out());
    }

    @Test
    void aKubernetesTargetTwoMinorsAheadGoesOneMinorAtATimeControlPlaneFirst() throws Exception {
        JarProcess.Finished run = upgradeCheck("--cluster", "default/current", "--to", "1.30");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("""
                  1. upgrade the control plane from Kubernetes 1.28 to 1.29
                  2. upgrade worker node group md-0 from Kubernetes 1.27 to 1.28
                  3. upgrade the control plane from Kubernetes 1.29 to 1.30
                  4. upgrade worker node group md-0 from Kubernetes 1.28 to 1.29
                  5. upgrade worker node group md-0 from Kubernetes 1.29 to 1.30
                """), run.out());
        assertTrue(run.out().contains("Kubernetes goes one minor version at a time"), run.out());
    }

    @Test
    void anUnknownTargetOrClusterIsAClearErrorAndAnExitCode() throws Exception {
        JarProcess.Finished unknown = upgradeCheck("--cluster", "default/current", "--to", "v0.99.0");
        assertEquals(2, unknown.exitCode());
        assertEquals("", unknown.out());
        assertTrue(unknown.err().contains("error: unknown EKS-A version v0.99.0: no EKSARelease eksa-v0-99-0 on the management cluster"),
                unknown.err());
        JarProcess.Finished missing = upgradeCheck("--cluster", "default/nosuch");
        assertEquals(1, missing.exitCode());
        assertTrue(missing.err().contains("error: EKS-A Cluster default/nosuch not found"), missing.err());
    }
}
