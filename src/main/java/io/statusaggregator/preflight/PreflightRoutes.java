package io.statusaggregator.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.UpgradePlan.UnreachableTarget;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The preflight endpoints: the validating admission webhook for EKS-A Clusters and the upgrade check. A thin
 * adapter: the answers come from {@link AdmissionWebhook} and {@link UpgradeCheck}.
 */
public final class PreflightRoutes {
    private static final Logger LOG = Logger.getLogger(PreflightRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String ADMISSION_PATH = "/admission/clusters";
    public static final String UPGRADE_CHECK_PATH = "/upgrade-check";

    private final Vertx vertx;
    private final KubernetesClient client;
    private final String capiNamespace;
    private final Supplier<ManagementCluster> management;
    private final Supplier<Compatibility> compatibility;

    public PreflightRoutes(Vertx vertx, KubernetesClient client, String capiNamespace, Supplier<ManagementCluster> management,
            Supplier<Compatibility> compatibility) {
        this.vertx = vertx;
        this.client = client;
        this.capiNamespace = capiNamespace;
        this.management = management;
        this.compatibility = compatibility;
    }

    public void addTo(Router router) {
        router.post(ADMISSION_PATH).handler(BodyHandler.create().setBodyLimit(3 * 1024 * 1024)).handler(this::admission);
        router.get(UPGRADE_CHECK_PATH + "/:namespace/:name").handler(this::upgradeCheck);
    }

    private void admission(RoutingContext context) {
        JsonNode review;
        try {
            review = JSON.readTree(context.body().asString());
        } catch (Exception e) {
            context.response().setStatusCode(400).end("the body is not an AdmissionReview in JSON: " + e.getMessage());
            return;
        }
        json(context, 200, AdmissionWebhook.review(review, management.get()));
    }

    /** Reading the Cluster is a blocking call to the API server: off the event loop. */
    private void upgradeCheck(RoutingContext context) {
        ObjectKey key = new ObjectKey(context.pathParam("namespace"), context.pathParam("name"));
        Optional<String> to = Optional.ofNullable(context.queryParams().get("to"));
        vertx.<JsonNode>executeBlocking(() -> {
            List<EksaRelease> releases = management.get().releases().orElseGet(() -> UpgradeCheck.readReleases(client, capiNamespace));
            return UpgradeCheck.toJson(key, UpgradeCheck.plan(UpgradeCheck.readCluster(client, key), releases, compatibility.get(), to));
        }, false).onComplete(result -> {
            if (result.succeeded()) {
                json(context, 200, result.result());
                return;
            }
            Throwable failure = result.cause();
            int code = failure instanceof UpgradeCheck.ClusterNotFound ? 404
                    : failure instanceof UnreachableTarget || failure instanceof MalformedObjectException ? 422
                    : failure instanceof KubernetesClientException ? 503 : 500;
            if (code >= 500) {
                LOG.warnf("upgrade check of %s failed: %s", key, failure.toString());
            }
            json(context, code, JSON.createObjectNode().put("cluster", key.toString()).put("error", failure.getMessage()));
        });
    }

    private static void json(RoutingContext context, int code, JsonNode body) {
        context.response().setStatusCode(code).putHeader("content-type", "application/json").end(body.toString());
    }
}
