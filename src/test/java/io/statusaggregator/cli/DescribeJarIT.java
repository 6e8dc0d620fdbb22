package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code describe} on the packaged application against an API server reached through {@code KUBECONFIG}, as a user
 * runs it: the tree of a rolling cluster, exit 1 while it is not Ready and 0 once it is, and one-line errors.
 */
class DescribeJarIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EmbeddedKubernetes api;
    private static Path kubeconfig;

    @BeforeAll
    static void apiServer() throws Exception {
        api = EmbeddedKubernetes.start(0);
        kubeconfig = api.writeKubeconfig(Files.createTempDirectory("describe").resolve("kubeconfig"));
        try (InputStream in = DescribeJarIT.class.getResourceAsStream("/describe/rolling.yaml")) {
            for (YamlDocuments.Document document : YamlDocuments.read(in)) {
                create(api.client(), document.node());
            }
        }
    }

    /** Created as a controller makes it: the object, then its status through the status subresource. */
    private static void create(KubernetesClient client, JsonNode object) throws Exception {
        ObjectKind kind = Arrays.stream(ObjectKind.values())
                .filter(k -> k.kind().equals(object.path("kind").asText()) && k.apiVersion().equals(object.path("apiVersion").asText()))
                .findFirst().orElseThrow();
        ObjectNode withoutStatus = object.deepCopy();
        withoutStatus.remove("status");
        var resources = client.genericKubernetesResources(KubernetesResources.of(kind)).inNamespace(object.path("metadata").path("namespace").asText());
        GenericKubernetesResource created = resources.resource(JSON.treeToValue(withoutStatus, GenericKubernetesResource.class)).create();
        if (object.has("status")) {
            resources.resource(created).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                    JSON.createObjectNode().set("status", object.path("status")).toString());
        }
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static JarProcess.Finished describe(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("describe"));
        command.addAll(List.of(args));
        return JarProcess.run(List.of(), java.util.Map.of("KUBECONFIG", kubeconfig.toString()), new byte[0], command.toArray(String[]::new));
    }

    @Test
    void aRollingClusterIsATreeAndNotReadyThenReady() throws Exception {
        JarProcess.Finished rolling = describe("default/alpha");
        assertEquals(1, rolling.exitCode(), "not Ready: exit 1\n" + rolling.out() + rolling.err());
        int width = rolling.out().lines().findFirst().orElseThrow().indexOf("READY");
        List<String> names = rolling.out().lines().skip(1).map(l -> l.substring(0, Math.min(width, l.length())).stripTrailing()).toList();
        assertEquals(List.of("Cluster/alpha", "├─ControlPlane", "│ └─KubeadmControlPlane/alpha", "│   └─Machine/alpha-cp-1", "├─Workers",
                "│ └─md-0 MachineDeployment/alpha-md-0", "│   ├─Machine/alpha-md-0-a", "│   └─2 Machines...", "├─ExternalEtcd",
                "│ └─EtcdadmCluster/alpha-etcd", "└─CNI cilium"), names, rolling.out());
        assertTrue(rolling.out().lines().skip(1).findFirst().orElseThrow().contains("RollingUpgradeInProgress"), rolling.out());

        JarProcess.Finished each = describe("default/alpha", "--no-grouping");
        assertTrue(each.out().contains("Machine/alpha-md-0-b") && !each.out().contains("Machines..."), each.out());

        api.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default").withName("alpha")
                .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), """
                        {"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-25T10:00:00Z"}]}}""");
        JarProcess.Finished ready = describe("default/alpha");
        assertEquals(0, ready.exitCode(), "Ready: exit 0\n" + ready.out() + ready.err());
    }

    @Test
    void aMissingClusterOrABadNameIsOneLine() throws Exception {
        JarProcess.Finished missing = describe("default/nowhere");
        assertEquals(1, missing.exitCode());
        assertEquals("error: EKS-A Cluster default/nowhere not found\n", missing.err());
        JarProcess.Finished bad = describe("default/Not_A_Name");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().startsWith("error: describe takes NAMESPACE/NAME: ") && bad.err().lines().count() == 1, bad.err());
    }
}
