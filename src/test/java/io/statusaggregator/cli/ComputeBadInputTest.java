package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code compute} on bad input: exit code 2, a message naming the document and the field, nothing on stdout. */
class ComputeBadInputTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static final String CLUSTER = """
            apiVersion: anywhere.eks.amazonaws.com/v1alpha1
            kind: Cluster
            metadata: {namespace: default, name: c1, generation: 2}
            spec:
              kubernetesVersion: "1.30"
              controlPlaneConfiguration: {count: 1}
              workerNodeGroupConfigurations: [{name: md-0, count: 1}]
            """;

    private static ComputeRunner.Result compute(String yaml) throws IOException {
        return ComputeRunner.compute(yaml, NOW, "eksa-system");
    }

    private static void assertBadInput(ComputeRunner.Result result, String... inMessage) {
        assertEquals(2, result.exitCode(), result.err());
        assertEquals("", result.out(), "nothing is printed on standard output for bad input");
        for (String part : inMessage) {
            assertTrue(result.err().contains(part), () -> "stderr should contain '" + part + "': " + result.err());
        }
    }

    @Test
    void notYaml() throws IOException {
        assertBadInput(compute(CLUSTER + "---\nkind: [unclosed\n  - : :\n"), "document 2", "not valid YAML");
    }

    @Test
    void yamlSyntaxIsToldWithWhereItIs() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + "---\nkind: Machine\nmetadata: {name: [m1\n");
        assertBadInput(result, "error: document 2: not valid YAML: expected ',' or ']', but got <stream end> at line 11, column 1");
        assertEquals(1, result.err().strip().lines().count(), result.err());
    }

    @Test
    void jsonNestedTooDeepIsToldInTheProjectsWords() throws IOException {
        ComputeRunner.Result result = compute("[".repeat(1200) + "]".repeat(1200));
        assertBadInput(result, "error: document 1: not valid YAML: nested more than 1000 levels deep");
        assertFalse(result.err().contains("StreamReadConstraints"), result.err());
    }

    @Test
    void aListWhereTheDocumentShouldBeAnObject() throws IOException {
        assertBadInput(compute(CLUSTER + "---\n- one\n- two\n"), "document 2", "expected a Kubernetes object", "got a list");
    }

    @Test
    void aListWhereAFieldShouldBeAnObject() throws IOException {
        assertBadInput(compute(CLUSTER.replace("controlPlaneConfiguration: {count: 1}", "controlPlaneConfiguration: [1, 2]")),
                "document 1 (Cluster default/c1)", "spec.controlPlaneConfiguration: expected an object, got a list");
    }

    @Test
    void aNegativeCount() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + """
                ---
                apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                kind: KubeadmControlPlane
                metadata: {namespace: eksa-system, name: c1, labels: {cluster.x-k8s.io/cluster-name: c1}}
                status: {observedGeneration: 1, replicas: -1}
                """);
        assertBadInput(result, "document 2 (KubeadmControlPlane eksa-system/c1)", "status.replicas: must not be negative, got -1");
    }

    @Test
    void aNegativeCountInAListNamesTheItem() throws IOException {
        assertBadInput(compute(CLUSTER.replace("{name: md-0, count: 1}", "{name: md-0, count: 1}, {name: md-1, count: -2}")),
                "spec.workerNodeGroupConfigurations[1].count: must not be negative, got -2");
    }

    @Test
    void aNumberWhereAVersionStringBelongs() throws IOException {
        assertBadInput(compute(CLUSTER.replace("kubernetesVersion: \"1.30\"", "kubernetesVersion: 1.30")),
                "spec.kubernetesVersion: expected a string", "quote it");
    }

    @Test
    void aVersionThatDoesNotParse() throws IOException {
        assertBadInput(compute(CLUSTER + """
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: Machine
                metadata: {namespace: eksa-system, name: c1-md-0-x}
                spec: {clusterName: c1, version: latest}
                """), "document 2 (Machine eksa-system/c1-md-0-x)", "spec.version: not a Kubernetes version");
    }

    @Test
    void everyBadDocumentIsReportedNotOnlyTheFirst() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + """
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {namespace: eksa-system, name: c1-md-0}
                spec: {clusterName: c1}
                status: {readyReplicas: "two"}
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {namespace: eksa-system, name: c1-md-1}
                status: {readyReplicas: 1}
                """);
        assertBadInput(result, "document 2", "status.readyReplicas: expected a whole number, got the string \"two\"",
                "document 3", "spec.clusterName: required");
    }

    @Test
    void aMachineOfAClusterNotInTheFileIsSkippedWithAWarning() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + """
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: Machine
                metadata: {namespace: eksa-system, name: other-md-0-x}
                spec: {clusterName: other, version: v1.30.1}
                """);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.err().contains("warning: skipped Machine eksa-system/other-md-0-x: its cluster other is not in the input"),
                result.err());
        assertEquals(1, result.documents().size());
        assertEquals("c1", result.documents().get(0).path("metadata").path("name").asText());
    }

    @Test
    void objectsOfOtherKindsAreSkippedWithAWarning() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + """
                ---
                apiVersion: v1
                kind: Secret
                metadata: {namespace: eksa-system, name: c1-kubeconfig}
                data: {value: c2VjcmV0}
                """);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.err().contains("warning: skipped 1 object(s) of kind Secret"), result.err());
        assertTrue(!result.err().contains("c2VjcmV0"), "the skipped object's data must not be echoed");
    }

    @Test
    void aKubectlListIsUnwrapped() throws IOException {
        String list = """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                  kind: Cluster
                  metadata: {namespace: default, name: c1, generation: 2}
                  spec:
                    controlPlaneConfiguration: {count: 1}
                - apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                  kind: KubeadmControlPlane
                  metadata: {namespace: eksa-system, name: c1, generation: 1}
                  status: {observedGeneration: 1, replicas: -3}
                """;
        assertBadInput(compute(list), "document 1, item 2 (KubeadmControlPlane eksa-system/c1)", "status.replicas");
    }

    /** A long scalar is refused before the parser, whose time grows with the square of a line's length, sees it. */
    @Test
    void aLineLongerThanAnyKubernetesObjectIsRefusedAtOnce() throws IOException {
        long start = System.nanoTime();
        assertBadInput(compute(CLUSTER + "---\nkind: " + "a".repeat(16 << 20) + "\n"), "line 9 is over 2 MiB, longer than any Kubernetes object");
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "refused in linear time, not after the parser's minutes");
    }

    @Test
    void anInputOverSixtyFourMebibytesIsRefusedWithoutReadingItAll() throws IOException {
        byte[] line = "# a comment line of an input far too large\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.io.InputStream endless = new java.io.InputStream() {
            private long position;

            @Override
            public int read() {
                return line[(int) (position++ % line.length)];
            }
        };
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int exit = new ComputeCommand().compute(endless, new java.io.PrintStream(out), new java.io.PrintStream(err));
        assertEquals(2, exit);
        assertEquals("", out.toString());
        assertTrue(err.toString().contains("the input is over 64 MiB"), err.toString());
    }

    /** kubectl get -o yaml of a fleet is one document, beyond the YAML parser's own 3 MiB limit: it is read. */
    @Test
    void aListOverThreeMebibytesIsRead() throws IOException {
        ComputeRunner.Result result = compute(CLUSTER + "---\n" + ComputeRunner.configMapList(4 << 20, 200));
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("name: \"c1\""), result.out());
    }
}
