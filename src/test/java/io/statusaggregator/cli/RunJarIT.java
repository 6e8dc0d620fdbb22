package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.embedded.EmbeddedKubernetes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's run command: the packaged application without arguments runs the embedded default (in-process
 * broker, API server and demo fleet) and its table shows every cluster of the fleet Ready; it listens on loopback only
 * and its kubeconfig is the user's only; SIGTERM stops it cleanly (exit status 0), removing what it wrote for the other
 * commands; and from start to stop its standard output holds the table and nothing else.
 */
class RunJarIT {
    private static final List<String> FLEET = List.of("default/alpha", "default/bravo", "default/charlie", "default/delta");

    /**
     * Pointed at a cluster that is no EKS Anywhere management cluster (the kubeconfig's context is another cluster's),
     * it says so, naming what is not served, rather than wait a minute for lists that never come and then say the API
     * server did not answer.
     */
    @Test
    void aClusterWithoutEksaOrClusterApiIsOneClearErrorAtOnce() throws Exception {
        io.fabric8.kubernetes.client.server.mock.KubernetesMockServer api = new io.fabric8.kubernetes.client.server.mock.KubernetesMockServer(false);
        api.init(); // serves nothing but what a test expects: every discovery of a group is 404
        try {
            Path kubeconfig = Files.createTempDirectory("other-cluster").resolve("kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: other, cluster: {server: "http://127.0.0.1:%d"}}]
                    users: [{name: other, user: {token: any}}]
                    contexts: [{name: other, context: {cluster: other, user: other}}]
                    current-context: other
                    """.formatted(api.getPort()));
            JarProcess.Finished run = JarProcess.run(List.of(), Map.of("KUBECONFIG", kubeconfig.toString(),
                    "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9", "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0"), new byte[0], "run");

            assertEquals(1, run.exitCode(), run.err());
            assertTrue(run.err().contains("does not serve clusters.anywhere.eks.amazonaws.com/v1alpha1, "
                    + "eksareleases.anywhere.eks.amazonaws.com/v1alpha1, clusters.cluster.x-k8s.io/v1beta2 or v1beta1"),
                    run.err());
            assertTrue(run.err().contains("check the kubeconfig's context"), run.err());
        } finally {
            api.destroy();
        }
    }

    /**
     * A Cluster API version forced ({@code aggregator.capi.api-version}) that the management cluster does not serve:
     * one line per kind says which version it serves, at once.
     */
    @Test
    void aForcedClusterApiVersionNotServedIsOneClearErrorAtOnce() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0, List.of("v1beta1"))) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("capi-v1beta1").resolve("kubeconfig"));
            JarProcess.Finished run = JarProcess.run(List.of(), Map.of("KUBECONFIG", kubeconfig.toString(),
                    "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9", "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                    "AGGREGATOR_CAPI_API_VERSION", "v1beta2"), new byte[0], "run");

            assertEquals(1, run.exitCode(), run.err());
            assertTrue(run.err().contains("aggregator.capi.api-version is v1beta2, but the API server serves "
                    + "machines.cluster.x-k8s.io at v1beta1 only"), run.err());
            assertTrue(run.err().contains("set it to auto, or to a version served"), run.err());
        }
    }

    /**
     * Given a broker but no kubeconfig where it looks (outside a pod), the client is left with the in-cluster address,
     * which cannot answer here: one line says so and names the missing kubeconfig, at once, rather than a minute's wait
     * and then "Kafka or the Kubernetes API did not answer".
     */
    @Test
    void noKubeconfigIsOneClearErrorAtOnce() throws Exception {
        Path missing = Files.createTempDirectory("no-kubeconfig").resolve("kubeconfig");
        JarProcess.Finished run = JarProcess.run(List.of(), Map.of("KUBECONFIG", missing.toString(),
                "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9", "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0"), new byte[0], "run");

        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("cannot read from the Kubernetes API at https://kubernetes.default.svc"), run.err());
        assertTrue(run.err().contains("KUBECONFIG names " + missing + ", which does not exist"), run.err());
        assertFalse(run.err().contains("could not start within"), "not after the start's timeout: " + run.err());
    }

    /**
     * Pointed at a management cluster's API (the embedded one: it serves every kind the aggregator reads) and at a broker
     * address where nothing listens: after the start's minute, the line names Kafka, not "Kafka or the Kubernetes API".
     */
    @Test
    void aBrokerThatDoesNotAnswerIsNamedAfterTheStartsMinute() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("management").resolve("kubeconfig"));
            // The start's minute, then the answer: well within three.
            JarProcess.Finished run = JarProcess.run(Duration.ofMinutes(3), List.of(), Map.of("KUBECONFIG", kubeconfig.toString(),
                    "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9", "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0"), new byte[0], "run");

            assertEquals(1, run.exitCode(), run.err());
            assertTrue(run.err().contains("could not start within 1m: Kafka at 127.0.0.1:9 did not answer in time"), run.err());
            assertTrue(run.err().contains("while the Kubernetes API at " + api.url()), run.err());
        }
    }

    @Test
    void theEmbeddedDefaultBringsTheDemoFleetToReady() throws Exception {
        Path embedded = Files.createTempDirectory("embedded");
        Path kubeconfig = embedded.resolve("kubeconfig");
        int exit;
        List<String> out;
        String err;
        // Free ports rather than the defaults 8080 and 9000, which something else on the machine may hold; the log names them.
        try (JarProcess process = JarProcess.start(Map.of("QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "AGGREGATOR_EMBEDDED_KUBECONFIG", kubeconfig.toString()))) {
            process.awaitOut(Duration.ofSeconds(120), lines -> JarProcess.blocks(lines).stream().anyMatch(RunJarIT::allReady),
                    "the table showing the whole fleet Ready");
            String log = process.err();
            // The preflight endpoints answer on the port the log names.
            java.util.regex.Matcher port = java.util.regex.Pattern.compile("HTTP endpoints on HTTP port (\\d+)").matcher(log);
            assertTrue(port.find(), "no HTTP endpoints logged; stderr:\n" + log);
            var check = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port.group(1) + "/upgrade-check/default/alpha")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, check.statusCode(), check.body());
            assertTrue(check.body().contains("\"cluster\":\"default/alpha\""), check.body());
            admissionAnswersInItsOwnWords("http://127.0.0.1:" + port.group(1));

            // What it leaves for the commands beside it is this user's only, and nothing listens beyond loopback.
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(kubeconfig)));
            assertTrue(Files.exists(embedded.resolve("bootstrap-servers")));
            List<Integer> ports = new ArrayList<>();
            for (String pattern : List.of("HTTP endpoints on HTTP port (\\d+)", "management interface, port (\\d+)", "Kafka broker at localhost:(\\d+)")) {
                java.util.regex.Matcher found = java.util.regex.Pattern.compile(pattern).matcher(log);
                assertTrue(found.find(), pattern + " in\n" + log);
                ports.add(Integer.parseInt(found.group(1)));
            }
            java.util.Optional<java.net.InetAddress> outside = java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                    .filter(i -> { try { return i.isUp() && !i.isLoopback(); } catch (java.net.SocketException e) { return false; } })
                    .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
                    .filter(address -> address instanceof java.net.Inet4Address).findFirst();
            if (outside.isPresent()) {
                for (int listening : ports) {
                    try (java.net.Socket socket = new java.net.Socket()) {
                        socket.connect(new java.net.InetSocketAddress(outside.get(), listening), 2_000);
                        throw new AssertionError("port " + listening + " answers on " + outside.get() + ", not only on loopback");
                    } catch (java.net.ConnectException expected) {
                        // Refused: it listens on loopback only.
                    }
                }
            } else {
                System.out.println("RunJarIT: no address but loopback on this machine; the listeners' addresses are not checked");
            }
            exit = process.stop(); // SIGTERM, as Kubernetes would stop it (Ctrl-C is SIGINT)
            out = process.out();
            err = process.err();
        }
        // Standard output holds the table and nothing else, from the start to the stop: logs go to standard error.
        for (List<String> table : JarProcess.blocks(out)) {
            assertTrue(table.size() >= 2 && TIMESTAMP.matcher(table.get(0)).matches() && HEADER.matcher(table.get(1)).matches()
                    && table.subList(2, table.size()).stream().allMatch(row -> ROW.matcher(row).matches()),
                    "not a table (a timestamp line, the header, a row per cluster):\n" + String.join("\n", table));
        }
        assertEquals(0, exit, "a clean stop on SIGTERM; standard error:\n" + err);
        // Stopped gracefully: the files for the commands beside it are gone with it.
        assertTrue(!Files.exists(kubeconfig) && !Files.exists(embedded.resolve("bootstrap-servers")), "left behind in " + embedded);
    }

    /**
     * The webhook as the packaged application serves it: a body nested past the JSON reader's limit is told in the
     * project's words, a review it cannot read is denied, and so is a Kubernetes version the release does not support.
     */
    private static void admissionAnswersInItsOwnWords(String base) throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        java.util.function.Function<String, java.net.http.HttpResponse<String>> post = body -> {
            try {
                return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/admission/clusters"))
                        .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        var deep = post.apply("[".repeat(1200) + "]".repeat(1200));
        assertEquals(400, deep.statusCode(), deep.body());
        assertEquals("{\"error\":\"the body is not an AdmissionReview in JSON: nested more than 1000 levels deep\"}", deep.body());

        String cluster = "{\"apiVersion\":\"anywhere.eks.amazonaws.com/v1alpha1\",\"kind\":\"Cluster\","
                + "\"metadata\":{\"namespace\":\"default\",\"name\":\"echo\"},\"spec\":{\"kubernetesVersion\":\"1.99\","
                + "\"eksaVersion\":\"v0.23.1\",\"controlPlaneConfiguration\":{\"count\":1},"
                + "\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"count\":1}]}}";
        String review = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
                + "\"operation\":\"%s\",\"object\":" + cluster + "}}";
        var lowerCase = post.apply(review.formatted("create"));
        assertEquals(200, lowerCase.statusCode(), lowerCase.body());
        assertTrue(lowerCase.body().contains("\"allowed\":false") && lowerCase.body().contains("\\\"create\\\" is none of"),
                lowerCase.body());
        var unsupported = post.apply(review.formatted("CREATE"));
        assertEquals(200, unsupported.statusCode(), unsupported.body());
        assertTrue(unsupported.body().contains("\"allowed\":false") && unsupported.body().contains(
                "kubernetes version 1.99 is not supported by EKS-A v0.23.1, which supports 1.28, 1.29, 1.30, 1.31, 1.32, 1.33"),
                unsupported.body());
    }

    private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    private static final Pattern HEADER = Pattern.compile("CLUSTER +CONTROL PLANE +WORKERS +READY +REASON");
    private static final Pattern ROW = Pattern.compile("[a-z0-9.-]+/[a-z0-9.-]+ +\\d+/\\d+ +\\d+/\\d+ +(True|False|Unknown|-) +[A-Za-z-]+");

    private static boolean allReady(List<String> table) {
        return FLEET.stream().allMatch(name -> table.stream().anyMatch(row -> row.startsWith(name + " ") && row.split("\\s+")[3].equals("True")));
    }
}
