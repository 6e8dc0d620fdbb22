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
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The preflight endpoints {@code run} serves: the validating admission webhook for EKS-A Clusters and the upgrade
 * check. A thin adapter: the answers come from {@link AdmissionWebhook} and {@link UpgradeCheck}.
 */
public final class PreflightServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PreflightServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String ADMISSION_PATH = "/admission/clusters";
    public static final String UPGRADE_CHECK_PATH = "/upgrade-check";

    /**
     * @param port        the port to listen on; 0 for any free one
     * @param certificate a PEM certificate chain and its key: HTTPS when set, as the API server requires of a webhook
     */
    public record Settings(int port, Optional<String> certificate, Optional<String> key) {
    }

    private final Vertx vertx;
    private final Settings settings;
    private final KubernetesClient client;
    private final String capiNamespace;
    private final Supplier<ManagementCluster> management;
    private final Supplier<Compatibility> compatibility;
    private HttpServer server;

    public PreflightServer(Vertx vertx, Settings settings, KubernetesClient client, String capiNamespace,
            Supplier<ManagementCluster> management, Supplier<Compatibility> compatibility) {
        this.vertx = vertx;
        this.settings = settings;
        this.client = client;
        this.capiNamespace = capiNamespace;
        this.management = management;
        this.compatibility = compatibility;
    }

    /** Listens; returns the port. */
    public int start(Duration timeout) throws Exception {
        Router router = Router.router(vertx);
        router.post(ADMISSION_PATH).handler(BodyHandler.create().setBodyLimit(3 * 1024 * 1024)).handler(this::admission);
        router.get(UPGRADE_CHECK_PATH + "/:namespace/:name").handler(this::upgradeCheck);
        HttpServerOptions options = new HttpServerOptions().setPort(settings.port());
        if (settings.certificate().isPresent()) {
            options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                    .setCertPath(settings.certificate().get())
                    .setKeyPath(settings.key().orElseThrow(() -> new IllegalArgumentException("a certificate needs its key"))));
        }
        server = vertx.createHttpServer(options).requestHandler(router).listen()
                .toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof("preflight endpoints on %s port %d: POST %s (admission webhook), GET %s/NAMESPACE/NAME?to=VERSION",
                settings.certificate().isPresent() ? "HTTPS" : "HTTP", server.actualPort(), ADMISSION_PATH, UPGRADE_CHECK_PATH);
        return server.actualPort();
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

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
