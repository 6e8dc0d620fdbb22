package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.Kubectl;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.pipeline.Waiting;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The real kubectl against the embedded API, as docs/running.md runs it: {@code kubectl wait} follows the cluster
 * through a watch over plain HTTP (what kubectl sends; Fabric8's mock server answered only WebSocket watches, so kubectl
 * printed "Failed to watch" and saw the change only when it listed again), and the watch answers as a real API
 * server's: from the resourceVersion asked for, ended after timeoutSeconds.
 */
class KubectlWaitTest {
    private static final String CLUSTERS = "clusters.anywhere.eks.amazonaws.com";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void kubectlWaitForReadySeesTheConditionThroughItsWatch() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
            create(api, "alpha");
            setReady(api, "alpha", "False");
            AtomicInteger watches = requestsByKubectl(api, path -> path.contains("watch=true"));

            Kubectl.Running wait = Kubectl.start(kubeconfig, "wait", "--for=condition=Ready", CLUSTERS + "/alpha", "--timeout=60s");
            Waiting.until(Duration.ofSeconds(30), () -> watches.get() > 0, () -> "kubectl never watched the cluster");
            setReady(api, "alpha", "True");
            Kubectl.Result result = wait.finish(Duration.ofSeconds(60));

            assertEquals(0, result.exit(), result::toString);
            assertEquals("cluster.anywhere.eks.amazonaws.com/alpha condition met", result.out().strip(), result::toString);
            assertFalse(result.err().contains("Failed to watch"), result::toString);
            assertEquals("", result.err().strip(), "nothing on standard error: " + result);
            assertEquals(1, watches.get(), "one watch, never refused and retried");
        }
    }

    /** What docs/running.md runs for a cluster the demo creates later: wait for it to exist, then for Ready. */
    @Test
    void kubectlWaitForCreateSeesTheClusterAppear() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
            // kubectl 1.31 and later: it asks for the object every half second until it is there.
            AtomicInteger asked = requestsByKubectl(api, path -> path.endsWith("/namespaces/default/clusters/delta"));

            Kubectl.Running wait = Kubectl.start(kubeconfig, "wait", "--for=create", CLUSTERS + "/delta", "--timeout=60s");
            Waiting.until(Duration.ofSeconds(30), () -> asked.get() > 0, () -> "kubectl never asked for the cluster");
            create(api, "delta");
            Kubectl.Result result = wait.finish(Duration.ofSeconds(60));

            assertEquals(0, result.exit(), result::toString);
            assertEquals("", result.err().strip(), "nothing on standard error: " + result);
        }
    }

    /** What a user sees for a cluster that is not there (yet, or any more), as from a real API server. */
    @Test
    void kubectlWaitForAClusterThatIsNotThereSaysWhichOne() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
            Kubectl.Result result = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "wait", "--for=condition=Ready", CLUSTERS + "/zulu",
                    "--timeout=5s");

            assertEquals(1, result.exit(), result::toString);
            assertEquals("Error from server (NotFound): clusters.anywhere.eks.amazonaws.com \"zulu\" not found", result.err().strip(),
                    result::toString);
        }
    }

    /**
     * {@code kubectl create namespace}, as a user trying the tour might: created at once (the mock server answered its
     * create of a Namespace with nothing, and kubectl waited two minutes for an answer and failed with EOF), listed by
     * {@code kubectl get ns}, and Active, as a real API server makes a namespace.
     */
    @Test
    void kubectlCreatesANamespaceAsOnARealApiServer() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
            Kubectl.Result created = Kubectl.run(kubeconfig, Duration.ofSeconds(30), "create", "namespace", "team-b");
            assertEquals(0, created.exit(), created::toString);
            assertEquals("namespace/team-b created", created.out().strip(), created::toString);

            Kubectl.Result listed = Kubectl.run(kubeconfig, Duration.ofSeconds(30), "get", "namespaces", "-o", "name");
            assertEquals(0, listed.exit(), listed::toString);
            assertTrue(listed.out().lines().anyMatch("namespace/team-b"::equals), listed::toString);
            Kubectl.Result phase = Kubectl.run(kubeconfig, Duration.ofSeconds(30), "get", "ns", "team-b", "-o", "jsonpath={.status.phase}");
            assertEquals("Active", phase.out(), phase::toString);

            Kubectl.Result again = Kubectl.run(kubeconfig, Duration.ofSeconds(30), "create", "namespace", "team-b");
            assertEquals(1, again.exit(), again::toString);
            assertEquals("Error from server (AlreadyExists): namespaces \"team-b\" already exists", again.err().strip(), again::toString);

            // Other built-in kinds come in protobuf too, and are not served here: refused at once, never a hang.
            Kubectl.Result configMap = Kubectl.run(kubeconfig, Duration.ofSeconds(30), "create", "configmap", "c", "--from-literal=a=b");
            assertEquals(1, configMap.exit(), configMap::toString);
            assertTrue(configMap.err().contains("the body of the request was in an unknown format"), configMap::toString);
        }
    }

    /** kubectl's own status patch (it adds ?fieldManager=...): applied, as a real API server applies it. */
    @Test
    void kubectlPatchesAStatusAsOnARealApiServer() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            create(api, "alpha");
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
            Kubectl.Result patched = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "patch", CLUSTERS + "/alpha", "--subresource=status",
                    "--type=merge", "-p", "{\"status\":{\"failureReason\":\"ByHand\"}}");
            assertEquals(0, patched.exit(), patched::toString);
            assertEquals("ByHand", api.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default")
                    .withName("alpha").get().getAdditionalProperties().entrySet().stream().filter(e -> e.getKey().equals("status"))
                    .map(e -> String.valueOf(((java.util.Map<?, ?>) e.getValue()).get("failureReason"))).findFirst().orElse(""), patched::toString);
        }
    }

    @Test
    void aPlainHttpWatchStreamsChangesAfterItsResourceVersionAndEndsAfterItsTimeout() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            create(api, "alpha");
            create(api, "bravo");
            // HTTP/1.1 as kubectl speaks it to a plain-HTTP server (Java's client would ask for HTTP/2).
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String clusters = api.url() + "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters";
            JsonNode list = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(clusters)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            String listed = list.path("metadata").path("resourceVersion").asText();

            // As kubectl asks: one object by field selector, from the list's resourceVersion, bookmarks allowed.
            long started = System.nanoTime();
            HttpResponse<java.io.InputStream> watch = http.send(HttpRequest.newBuilder(URI.create(clusters
                    + "?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dalpha&resourceVersion=" + listed + "&timeoutSeconds=2&watch=true"))
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, watch.statusCode());
            assertEquals(List.of("chunked"), watch.headers().allValues("transfer-encoding"));
            setReady(api, "bravo", "True");
            setReady(api, "alpha", "True");
            List<JsonNode> events = new ArrayList<>();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    events.add(JSON.readTree(line));
                }
            }
            long lasted = Duration.ofNanos(System.nanoTime() - started).toMillis();

            assertEquals(1, events.size(), "alpha's change only, not alpha as listed nor bravo: " + events);
            assertEquals("MODIFIED", events.get(0).path("type").asText());
            assertEquals("alpha", events.get(0).path("object").path("metadata").path("name").asText());
            assertTrue(lasted >= 1_900 && lasted < 10_000, "the stream ends after timeoutSeconds=2, it lasted " + lasted + " ms");
        }
    }

    /** Counts the requests kubectl sends this API server for a path (with its query) that {@code counted} accepts. */
    private static AtomicInteger requestsByKubectl(EmbeddedKubernetes api, java.util.function.Predicate<String> counted) {
        AtomicInteger requests = new AtomicInteger();
        api.onRequest(request -> {
            String agent = request.getHeader("User-Agent");
            if (agent != null && agent.startsWith("kubectl") && counted.test(request.getPath())) {
                requests.incrementAndGet();
            }
        });
        return requests;
    }

    private static void create(EmbeddedKubernetes api, String name) {
        api.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default")
                .resource(api.client().getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: Cluster
                        metadata: {namespace: default, name: %s}
                        spec: {kubernetesVersion: "1.31"}
                        """.formatted(name), GenericKubernetesResource.class)).create();
    }

    private static void setReady(EmbeddedKubernetes api, String name, String status) {
        api.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default").withName(name)
                .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), """
                        {"status": {"conditions": [{"type": "Ready", "status": "%s", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}"""
                        .formatted(status));
    }
}
