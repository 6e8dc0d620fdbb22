package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.model.ObjectKind;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The fleet page's panel on a cluster whose CAPI objects are read at v1beta2, in headless Chromium on the whole
 * pipeline ({@link FleetPageFixture}, as {@link FleetPageBrowserTest}): the control plane's counters, RollingOut True shown as activity (amber,
 * not green), a message of several lines shown as lines, and the workload cluster's API unreachable from the
 * management cluster in red right under the Cluster.
 */
@QuarkusTest
class FleetPageCapiDetailTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    @Inject
    FleetPage page;

    @Inject
    ClusterView view;

    @TestHTTPResource("/")
    URL root;

    private FleetPageFixture on;
    private Fleet fleet;

    @BeforeEach
    void start() throws Exception {
        // A CAPI v1.13 management cluster, serving both versions: ingest reads v1beta2.
        on = FleetPageFixture.start(
                EmbeddedKubernetes.start(0, List.of("v1beta2", "v1beta1")), kafka.bootstrapServers(), page, view);
        fleet = on.fleet;
    }

    @AfterEach
    void stop() throws IOException {
        if (on != null) {
            on.close();
        }
    }

    @Test
    void aV1beta2ClustersPanelShowsItsCountersItsRolloutAsActivityAndItsApiUnreachable() throws Exception {
        fleet.create(ObjectKind.EKSA_CLUSTER, """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: echo}
                spec:
                  kubernetesVersion: "1.32"
                  controlPlaneConfiguration: {count: 3}
                  clusterNetwork: {cniConfig: {cilium: {}}}
                """);
        v1beta2(ObjectKind.CAPI_CLUSTER, """
                {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
                 "metadata": {"namespace": "%s", "name": "echo",
                  "labels": {"cluster.x-k8s.io/cluster-name": "echo"}}}""",
                """
                {"status": {"initialization": {"controlPlaneInitialized": true}, "conditions": [
                  {"type": "Available", "status": "True", "reason": "Available",
                   "lastTransitionTime": "2026-11-25T08:00:00Z"},
                  {"type": "RemoteConnectionProbe", "status": "False", "reason": "ProbeFailed",
                   "message": "Remote connection probe failed, probe last succeeded at 2026-11-25T09:52:10Z",
                   "lastTransitionTime": "2026-11-25T09:53:00Z"}]}}""");
        v1beta2(ObjectKind.KUBEADM_CONTROL_PLANE, """
                {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
                 "metadata": {"namespace": "%s", "name": "echo",
                  "labels": {"cluster.x-k8s.io/cluster-name": "echo"}},
                 "spec": {"replicas": 3}}""",
                """
                {"status": {"replicas": 4, "readyReplicas": 3, "availableReplicas": 3, "upToDateReplicas": 1,
                 "conditions": [
                  {"type": "Available", "status": "True", "reason": "Available",
                   "lastTransitionTime": "2026-11-25T08:00:00Z"},
                  {"type": "RollingOut", "status": "True", "reason": "RollingOut",
                   "message": "Rolling out 3 not up-to-date replicas\\n* Version v1.31.2, v1.32.1 required",
                   "lastTransitionTime": "2026-11-25T09:40:00Z"},
                  {"type": "ScalingUp", "status": "False", "reason": "NotScalingUp",
                   "lastTransitionTime": "2026-11-25T08:00:00Z"}]}}""");

        HeadlessChromium chromium = on.chromium();
        WebDriver browser = chromium.driver;
        WebDriverWait wait = new WebDriverWait(browser, DEADLINE);
        browser.get(root.toString().replaceAll("/$", "") + "/");
        By row = By.cssSelector("tr[data-cluster='default/echo']");
        try {
            wait.withMessage(() -> "echo's row: " + chromium.html(By.id("fleet")))
                    .until(ExpectedConditions.presenceOfElementLocated(row));
            browser.findElement(row).click();
            wait.withMessage(() -> "echo's objects as a tree: " + chromium.html(By.id("detail-objects")))
                    .until(ExpectedConditions.presenceOfElementLocated(
                            By.cssSelector("#detail-tree li[data-name='Condition RollingOut']")));
            assertEquals(List.of("1 Cluster/echo", "2 RemoteConnectionProbe", "2 ControlPlane",
                    "3 KubeadmControlPlane/echo", "4 Condition RollingOut", "2 Workers", "2 CNI cilium"),
                    browser.findElements(By.cssSelector("#detail-tree > li")).stream()
                            .map(li -> li.getAttribute("aria-level") + " " + li.getAttribute("data-name")).toList(),
                    "the lost API right under the Cluster; ScalingUp False and Available True have no line of their "
                            + "own");

            WebElement unreachable = line(browser, "RemoteConnectionProbe");
            assertEquals("False", unreachable.findElement(By.cssSelector(".pill")).getText());
            assertTrue(unreachable.findElement(By.cssSelector(".pill")).getAttribute("class").contains("error"), "red");
            assertEquals("workload cluster's API unreachable from the management cluster: "
                    + "Remote connection probe failed, probe last succeeded at 2026-11-25T09:52:10Z",
                    message(unreachable));

            assertEquals("3/3 ready, 3 available, 1 up to date, 4 replicas",
                    message(line(browser, "KubeadmControlPlane/echo")),
                    "v1beta2's counters: upToDateReplicas, availableReplicas, the surge beyond the 3 asked for");

            WebElement rollingOut = line(browser, "Condition RollingOut");
            WebElement pill = rollingOut.findElement(By.cssSelector(".pill"));
            assertEquals("True", pill.getText());
            assertTrue(pill.getAttribute("class").contains("warn"),
                    "a rollout is activity, amber, not green: " + pill.getAttribute("class"));
            assertEquals(List.of("Rolling out 3 not up-to-date replicas", "* Version v1.31.2, v1.32.1 required"),
                    message(rollingOut).lines().toList(), "a message of two lines shown as two lines");
        } catch (AssertionError | RuntimeException e) {
            chromium.screenshot(Path.of("target", "fleet-page-capi-detail-failure.png"));
            throw e;
        }
    }

    private static WebElement line(WebDriver browser, String name) {
        return browser.findElement(By.cssSelector("#detail-tree li[data-name='" + name + "']"));
    }

    private static String message(WebElement line) {
        return line.findElement(By.cssSelector(".tree-message")).getText();
    }

    /**
     * Creates an object at v1beta2, then writes its status as a controller does. The embedded API server keeps each
     * version's objects apart (it has no conversion, unlike a real one that serves both): the tree reads this one.
     */
    private void v1beta2(ObjectKind kind, String object, String status) {
        KubernetesClient client = on.kubernetes.client();
        var resources = client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                .withGroup(kind.group()).withVersion("v1beta2").withKind(kind.kind()).withPlural(kind.plural())
                .withNamespaced(true).build()).inNamespace(CAPI);
        GenericKubernetesResource made = resources.resource(client.getKubernetesSerialization()
                .unmarshal(object.formatted(CAPI), GenericKubernetesResource.class)).create();
        resources.withName(made.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), status);
    }
}
