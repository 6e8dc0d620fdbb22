package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.model.ObjectKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The fleet page in a real headless browser (Debian's chromium, driven through its chromedriver by Selenium) on the
 * whole pipeline: a real broker, the CRUD API server, the aggregator and the page's own readers of the status and
 * transitions topics. A cluster turns Ready on the page without a reload, and its detail panel lists the transition
 * and shows its objects as {@code describe}'s tree. Also the page's routes on their own: the event stream (snapshot
 * first, then each status, a tombstone as {@code deleted}), the JSON snapshot, the transitions and the tree of one
 * cluster. Its set-up: {@link FleetPageFixture}. The page at fleet scale: {@link FleetPageAtScaleTest}.
 */
@QuarkusTest
class FleetPageBrowserTest {
    private static final String CILIUM = "v1.15.16-eksa.1";
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    /** Quarkus' fleet page, served at {@link #root} (a free port in tests). */
    @Inject
    FleetPage page;

    @Inject
    ClusterView view;

    @TestHTTPResource("/")
    URL root;

    private FleetPageFixture on;
    private Fleet fleet;
    private String base;
    private HeadlessChromium chromium;
    private WebDriver browser;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        on = FleetPageFixture.start(EmbeddedKubernetes.start(0), kafka.bootstrapServers(), page, view);
        fleet = on.fleet;
        base = root.toString().replaceAll("/$", "");
    }

    @AfterEach
    void stop() throws IOException {
        if (on != null) {
            on.close();
        }
    }

    @Test
    void aClusterTurnsReadyOnTheOpenPageAndItsDetailListsTheTransition() throws Exception {
        chromium = on.chromium();
        browser = chromium.driver;
        try {
            turnsReadyLive();
        } catch (AssertionError | RuntimeException e) {
            // What the page showed when it failed: often the quickest explanation.
            screenshot(Path.of("target", "fleet-page-failure.png"));
            throw e;
        }
        Path screenshot = screenshot(Path.of("target", "fleet-page.png"));
        System.out.println("fleet page screenshot: " + screenshot.toAbsolutePath());
    }

    private Path screenshot(Path file) throws IOException {
        return chromium.screenshot(file);
    }

    private void turnsReadyLive() {
        fleet.createCluster("alpha", 1, 1);
        NamespacedKubernetesClient alpha = fleet.workloadCluster("alpha");
        Fleet.cilium(alpha, CILIUM, 1, 0);
        // The rest of the fleet, for a page with every colour: Ready, scaling up, failed.
        fleet.createCluster("bravo", 1, 2);
        fleet.controlPlaneReady("bravo", 1);
        fleet.workers("bravo", 1, 2, 2, 2);
        Fleet.cilium(fleet.workloadCluster("bravo"), CILIUM, 3, 3);
        fleet.createCluster("charlie", 3, 3);
        fleet.controlPlaneReady("charlie", 3);
        fleet.workers("charlie", 1, 3, 3, 1);
        // delta: machines all ready, but an EKS-A version the management cluster has no release of (Ready False, Error).
        fleet.createCluster("delta", 1, 1);
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "delta", "{\"spec\": {\"eksaVersion\": \"v0.99.0\"}}");
        fleet.controlPlaneReady("delta", 1);
        fleet.workers("delta", 1, 1, 1, 1);
        Fleet.cilium(fleet.workloadCluster("delta"), CILIUM, 2, 2);

        WebDriverWait wait = new WebDriverWait(browser, DEADLINE);
        browser.get(base + "/");
        String alphaReady = "tr[data-cluster='default/alpha'] td[data-condition='Ready']";
        wait.withMessage(() -> "alpha shown Ready False: " + html(By.id("fleet")))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(alphaReady + "[data-status='False']")));
        wait.until(ExpectedConditions.attributeToBe(By.id("connection"), "data-state", "live"));
        // A mark on this very document: a reload would lose it.
        ((JavascriptExecutor) browser).executeScript("window.fleetPageTestMark = 'same document';");

        // alpha becomes Ready, as in PipelineTest: control plane, workers, then Cilium ready in the workload cluster.
        fleet.controlPlaneReady("alpha", 1);
        fleet.workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(alpha, CILIUM, 1, 1);
        wait.withMessage(() -> "alpha shown Ready True without a reload: " + html(By.cssSelector("tr[data-cluster='default/alpha']")))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(alphaReady + "[data-status='True']")));
        assertEquals("same document", ((JavascriptExecutor) browser).executeScript("return window.fleetPageTestMark;"),
                "the page changed live, it was not reloaded");
        WebElement readyPill = browser.findElement(By.cssSelector(alphaReady + " .pill"));
        assertTrue(readyPill.getAttribute("class").contains("ok"), "Ready True is green: " + readyPill.getAttribute("class"));

        // The rest of the fleet settles: bravo Ready, charlie scaling up (amber), delta failed (red).
        wait.withMessage(() -> "bravo Ready, charlie's workers scaling, delta failed: " + html(By.id("fleet")))
                .until(d -> !d.findElements(By.cssSelector("tr[data-cluster='default/bravo'] td[data-condition='Ready'][data-status='True']")).isEmpty()
                        && !d.findElements(By.cssSelector("tr[data-cluster='default/charlie'] td[data-condition='WorkersReady'][data-status='False']")).isEmpty()
                        && !d.findElements(By.cssSelector("tr[data-cluster='default/delta'] td[data-condition='Ready'][data-severity='Error']")).isEmpty());
        assertEquals("EksaVersionInvalid", browser.findElement(By.cssSelector("tr[data-cluster='default/delta'] [data-failure-reason]"))
                .getAttribute("data-failure-reason"), "failureReason shown");
        assertEquals("4 clusters, 2 Ready", browser.findElement(By.id("counts")).getText());
        assertTrue(browser.findElement(By.cssSelector("tr[data-cluster='default/delta'] td[data-condition='Ready'] .pill"))
                .getAttribute("class").contains("error"), "a failed cluster's Ready is red");
        assertTrue(browser.findElement(By.cssSelector("tr[data-cluster='default/charlie'] td[data-condition='WorkersReady'] .pill"))
                .getAttribute("class").contains("warn"), "scaling up is amber");

        // The detail panel: alpha's recent transitions, Ready False -> True among them.
        browser.findElement(By.cssSelector("tr[data-cluster='default/alpha']")).click();
        wait.withMessage(() -> "alpha's detail lists Ready False -> True: " + html(By.id("detail")))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
                        "#detail[data-cluster='default/alpha'] [data-transition][data-condition='Ready'][data-from='False'][data-to='True']")));
        // The panel slides in from transparent (0.2 s): its transitions can be in the page before it counts as shown.
        wait.withMessage("alpha's detail shown").until(ExpectedConditions.visibilityOfElementLocated(By.id("detail")));
        WebElement newest = browser.findElement(By.cssSelector("#transitions > li"));
        assertTrue(newest.getText().contains("Ready"), "the newest change comes first and made alpha Ready: " + newest.getText());

        // Its objects, read from the API server as describe reads them: the same tree, line for line.
        wait.withMessage(() -> "alpha's objects as a tree: " + html(By.id("detail-objects")))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#detail-tree li[data-name='Cluster/alpha'][data-ready='True']")));
        java.util.List<String> names = browser.findElements(By.cssSelector("#detail-tree > li")).stream()
                .map(li -> li.getAttribute("aria-level") + " " + li.getAttribute("data-name")).toList();
        assertEquals(java.util.List.of("1 Cluster/alpha", "2 ControlPlane", "3 KubeadmControlPlane/alpha", "2 Workers", "2 CNI cilium"),
                names, "the tree describe prints for alpha");
        assertEquals("True", browser.findElement(By.cssSelector("#detail-tree li[data-name='KubeadmControlPlane/alpha'] .pill"))
                .getText(), "the control plane's readiness");
        assertEquals(tree("default", "alpha").path("lines").size(), names.size(), "the panel shows every line the endpoint serves");
    }

    /** The tree of one cluster as JSON: the lines describe prints; 400, 404 and 503 each with a one-line error. */
    @Test
    void theTreeEndpointServesDescribesLinesAndSaysWhyWhenItCannot() throws Exception {
        fleet.createCluster("foxtrot", 1, 1);
        fleet.controlPlaneReady("foxtrot", 1);
        JsonNode tree = tree("default", "foxtrot");
        assertEquals("default/foxtrot", tree.path("cluster").asText());
        JsonNode first = tree.path("lines").get(0);
        assertEquals(0, first.path("depth").asInt());
        assertEquals("Cluster/foxtrot", first.path("name").asText());
        assertTrue(first.has("ready") && first.has("reason") && first.has("since") && first.has("message"), first.toString());
        JsonNode kcp = tree.path("lines").get(2);
        assertEquals("KubeadmControlPlane/foxtrot", kcp.path("name").asText(), tree.toString());
        assertEquals("True", kcp.path("ready").asText(), "Available True: " + kcp);

        assertError(400, "/fleet/clusters/Default/foxtrot/tree", "namespace");
        assertError(400, "/fleet/clusters/default/" + "x".repeat(300) + "/tree", "name");
        assertError(404, "/fleet/clusters/default/nosuch/tree", "EKS-A Cluster default/nosuch not found");

        // An API server that refuses connections: 503 and a clear message, never the client's stack or address.
        view.stop();
        io.fabric8.kubernetes.client.Config unreachable = new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:1").withRequestRetryBackoffLimit(0).withConnectionTimeout(2_000).build();
        try (KubernetesClient away = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(unreachable).build()) {
            view.start(new ClusterObjects(away, CAPI));
            HttpResponse<String> answer = assertError(503, "/fleet/clusters/default/foxtrot/tree", "the Kubernetes API is unreachable");
            assertTrue(!answer.body().contains("127.0.0.1") && !answer.body().contains("Exception"), answer.body());
            assertEquals("5", answer.headers().firstValue("retry-after").orElse(""));
        }
    }

    private HttpResponse<String> assertError(int status, String path, String says) throws Exception {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(status, answer.statusCode(), path + ": " + answer.body());
        JsonNode body = JSON.readTree(answer.body());
        assertTrue(body.path("error").asText().contains(says), path + ": " + answer.body());
        assertTrue(!body.path("error").asText().contains("\n") && body.size() == 1, "one line: " + answer.body());
        return answer;
    }

    private JsonNode tree(String namespace, String name) {
        return get("/fleet/clusters/" + namespace + "/" + name + "/tree");
    }

    /** A replica still starting has no feeds yet: its data answers 503 (retry), not an empty fleet. */
    @Test
    void theDataAnswers503UntilThePageHasItsFeedsAndFleetLeadsToThePage() throws Exception {
        page.stop();
        HttpResponse<String> early = client.send(HttpRequest.newBuilder(URI.create(base + "/fleet/clusters")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, early.statusCode(), early.body());
        assertEquals("5", early.headers().firstValue("retry-after").orElse(""));
        HttpResponse<String> fleet = client.send(HttpRequest.newBuilder(URI.create(base + "/fleet")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(303, fleet.statusCode());
        // A path: a browser resolves it against the page's own address, never a host the request named.
        String location = fleet.headers().firstValue("location").orElse("");
        assertEquals("/", location);
        HttpResponse<String> shown = client.send(HttpRequest.newBuilder(URI.create(base + "/").resolve(location)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, shown.statusCode());
        assertTrue(shown.body().contains("<script src=\"/fleet/fleet.js\"></script>"), shown.body());
    }

    @Test
    void theEventStreamStartsWithASnapshotThenCarriesEachStatusTransitionAndDeletion() throws Exception {
        fleet.createCluster("echo", 1, 1);
        await(DEADLINE, () -> get("/fleet/clusters").toString().contains("\"key\":\"default/echo\""),
                () -> "echo in the snapshot: " + get("/fleet/clusters"));

        try (EventStream events = EventStream.open(URI.create(base + "/fleet/events"))) {
            EventStream.Event snapshot = events.next(e -> true);
            assertEquals("snapshot", snapshot.type(), "the stream starts with a snapshot");
            JsonNode clusters = JSON.readTree(snapshot.data());
            assertEquals("default/echo", clusters.get(0).path("key").asText());
            assertEquals("echo", clusters.get(0).path("document").path("metadata").path("name").asText());

            fleet.controlPlaneReady("echo", 1);
            // Two topics read apart: the status and the change event may come in either order.
            events.all(e -> e.type().equals("status") && e.data().contains("\"key\":\"default/echo\"") && initialized(e.data()),
                    e -> e.type().equals("transition") && e.data().contains("\"key\":\"default/echo\"")
                            && e.data().contains("{\"type\":\"ControlPlaneInitialized\",\"from\":\"False\",\"to\":\"True\""));

            JsonNode transitions = get("/fleet/clusters/default/echo/transitions");
            assertEquals("default/echo", transitions.path("cluster").asText());
            JsonNode newest = transitions.path("events").get(0);
            assertTrue(newest.toString().contains("{\"type\":\"ControlPlaneInitialized\",\"from\":\"False\",\"to\":\"True\""),
                    "newest first: " + transitions);
            assertTrue(transitions.path("events").size() >= 2, "the first status is a change too: " + transitions);

            fleet.delete(ObjectKind.EKSA_CLUSTER, "default", "echo");
            fleet.delete(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "echo");
            fleet.delete(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "echo-md-0");
            events.next(e -> e.type().equals("deleted") && e.data().contains("default/echo"));
        }
        assertEquals(0, get("/fleet/clusters").size(), "a deleted cluster leaves the snapshot");
        // Its history goes with it (the transitions topic's deletion event may come after the status topic's tombstone).
        await(DEADLINE, () -> status("/fleet/clusters/default/echo/transitions") == 404, () -> "echo's transitions are not 404");
    }

    private static boolean initialized(String data) {
        try {
            for (JsonNode condition : JSON.readTree(data).path("document").path("status").path("conditions")) {
                if (condition.path("type").asText().equals("ControlPlaneInitialized")) {
                    return condition.path("status").asText().equals("True");
                }
            }
            return false;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private int status(String path) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("application/json"), response.headers().toString());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private String html(By element) {
        return chromium.html(element);
    }

    /** A reader of a server-sent event stream: events as they arrive, awaited with a deadline. */
    private static final class EventStream implements AutoCloseable {
        record Event(String type, String data) {
        }

        private final InputStream body;
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private final Thread reader;

        private EventStream(HttpResponse<InputStream> response) {
            this.body = response.body();
            this.reader = new Thread(this::read, "fleet-page-test-events");
            reader.setDaemon(true);
            reader.start();
        }

        static EventStream open(URI uri) throws IOException, InterruptedException {
            HttpResponse<InputStream> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"),
                    "content type: " + response.headers().firstValue("content-type"));
            assertEquals("no-cache", response.headers().firstValue("cache-control").orElse(""));
            return new EventStream(response);
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String type = "message";
                StringBuilder data = new StringBuilder();
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.isEmpty()) {
                        if (data.length() > 0) {
                            events.add(new Event(type, data.toString()));
                        }
                        type = "message";
                        data.setLength(0);
                    } else if (line.startsWith("event:")) {
                        type = line.substring(6).trim();
                    } else if (line.startsWith("data:")) {
                        data.append(data.length() > 0 ? "\n" : "").append(line.substring(5).trim());
                    }
                }
            } catch (IOException e) {
                // Closed by the test.
            }
        }

        /** Waits until each of {@code wanted} has accepted an event, in any order, skipping others. */
        @SafeVarargs
        final void all(Predicate<Event>... wanted) throws InterruptedException {
            java.util.List<Predicate<Event>> waiting = new java.util.ArrayList<>(java.util.List.of(wanted));
            while (!waiting.isEmpty()) {
                Event event = next(e -> waiting.stream().anyMatch(p -> p.test(e)));
                waiting.removeIf(p -> p.test(event));
            }
        }

        /** The next event that {@code wanted} accepts, skipping others. */
        Event next(Predicate<Event> wanted) throws InterruptedException {
            long end = System.nanoTime() + DEADLINE.toNanos();
            StringBuilder skipped = new StringBuilder();
            while (true) {
                Event event = events.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (event == null) {
                    throw new AssertionError("no such event within " + DEADLINE + "; skipped: " + skipped);
                }
                if (wanted.test(event)) {
                    return event;
                }
                skipped.append(event.type()).append(' ');
            }
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }
}
