package io.statusaggregator.preflight;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.UnreadableJson;
import io.statusaggregator.versions.UpgradePlan.UnreachableTarget;
import io.statusaggregator.watch.VersionHistoryView;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.model.EksaCluster;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The preflight endpoints: the validating admission webhook for EKS-A Clusters and the upgrade check. A thin
 * adapter: the answers come from {@link AdmissionWebhook} and {@link UpgradeCheck}, on what the running pipeline
 * knows of the management cluster. Until the pipeline has started both answer 503.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class PreflightResource {
    private static final Logger LOG = Logger.getLogger(PreflightResource.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String ADMISSION_PATH = "/admission/clusters";
    public static final String UPGRADE_CHECK_PATH = "/upgrade-check";

    private static final Duration API_DEADLINE = Duration.ofSeconds(10);

    private final RunningPipeline running;
    /** Reads for upgrade checks, four at once at most, 32 waiting; beyond that a caller is told to come back. */
    private final ExecutorService reads = new ThreadPoolExecutor(
            4, 4, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(32), DaemonThreads.named("upgrade-check-reads"));
    /** Admission reviews: CPU only, two at once, 64 waiting; beyond that the API server is told to come back. */
    private final ExecutorService reviews = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(64), DaemonThreads.named("admission-reviews"));

    PreflightResource(RunningPipeline running) {
        this.running = running;
        ((ThreadPoolExecutor) reads).allowCoreThreadTimeOut(true);
        ((ThreadPoolExecutor) reviews).allowCoreThreadTimeOut(true);
    }

    /**
     * Returning a stage makes the body read on the event loop, in memory (quarkus.rest.input-buffer-size is the body
     * limit), and the review runs on threads of its own: neither a slow body nor a flood of reviews takes a thread that
     * health, metrics and the fleet page run on.
     */
    @POST
    @Path(ADMISSION_PATH)
    @Consumes(MediaType.WILDCARD)
    public CompletionStage<Response> admission(String body) {
        try {
            return CompletableFuture.supplyAsync(() -> review(body), reviews);
        } catch (RejectedExecutionException e) {
            Response busy = error(503, "too many admission reviews at once; try again shortly");
            return CompletableFuture.completedFuture(Response.fromResponse(busy).header("Retry-After", "1").build());
        }
    }

    private Response review(String body) {
        Optional<Pipeline> pipeline = running.get();
        if (pipeline.isEmpty()) {
            return starting();
        }
        JsonNode review;
        try {
            review = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return error(400, "the body is not an AdmissionReview in JSON: " + UnreadableJson.problem(e));
        }
        if (review == null || !review.isObject()) {
            return error(400, "the body is not an AdmissionReview in JSON: not an object");
        }
        VersionHistoryView view = pipeline.get().versionHistory();
        AdmissionWebhook.History history = new AdmissionWebhook.History(view.caughtUp(), view::of);
        try {
            return Response.ok(AdmissionWebhook.review(review, pipeline.get().management().get(),
                    pipeline.get().compatibility().get(), history)).build();
        } catch (AdmissionWebhook.HistoryNotRead e) {
            // An error, not a denial: the webhook's failurePolicy decides (Ignore, as shipped: admitted, and the
            // Cluster's status shows the failure once computed).
            return Response.fromResponse(error(503, e.getMessage())).header("Retry-After", "5").build();
        }
    }

    /**
     * Reading the Cluster and the releases are calls to the API server, which its client retries for minutes when the
     * server is away: they run on a few threads of their own, and a caller waits {@link #API_DEADLINE} at most.
     */
    @GET
    @Path(UPGRADE_CHECK_PATH + "/{namespace}/{name}")
    public Response upgradeCheck(@PathParam("namespace") String namespace, @PathParam("name") String name,
            @QueryParam("to") String to) {
        Optional<String> problem = ObjectKey.problemOf(namespace, name);
        if (problem.isPresent()) {
            // Checked before any use: the names go into a request to the API server made with this account's token.
            return error(400, problem.get());
        }
        Optional<Pipeline> running = this.running.get();
        if (running.isEmpty()) {
            return starting();
        }
        Pipeline pipeline = running.get();
        ObjectKey key = new ObjectKey(namespace, name);
        Future<Read> read;
        try {
            read = reads.submit(() -> new Read(
                    UpgradeCheck.readCluster(pipeline.client(), key),
                    pipeline.management()
                            .get()
                            .releases()
                            .orElseGet(() -> UpgradeCheck.readReleases(pipeline.client(), pipeline.capiNamespace()))));
        } catch (RejectedExecutionException e) {
            return Response.fromResponse(error(503, "too many upgrade checks at once; try again shortly"))
                    .header("Retry-After", "5")
                    .build();
        }
        try {
            Read done = read.get(API_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return Response.ok(UpgradeCheck.toJson(
                            key,
                            UpgradeCheck.plan(
                                    done.cluster(),
                                    done.releases(),
                                    pipeline.compatibility().get(),
                                    Optional.ofNullable(to))))
                    .build();
        } catch (UnreachableTarget failure) {
            return refusal(422, key, failure);
        } catch (TimeoutException e) {
            read.cancel(true);
            LOG.warnf("upgrade check of %s: the Kubernetes API did not answer within %s", key, API_DEADLINE);
            return error(
                    503,
                    "the Kubernetes API did not answer within " + API_DEADLINE.toSeconds() + " s; try again shortly");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error(503, "the aggregator is stopping");
        } catch (ExecutionException e) {
            Throwable failure = e.getCause();
            if (failure instanceof UpgradeCheck.ClusterNotFound || failure instanceof MalformedObjectException) {
                return refusal(failure instanceof UpgradeCheck.ClusterNotFound ? 404 : 422, key, failure);
            }
            if (failure instanceof KubernetesClientException) {
                // The client's message names the API server's address: it goes to the log, not to the caller.
                LOG.warnf("upgrade check of %s: the Kubernetes API failed: %s", key, failure.getMessage());
                return error(503, "the Kubernetes API did not answer; try again shortly");
            }
            LOG.errorf(failure, "upgrade check of %s failed", key);
            return error(500, "the upgrade check failed; the aggregator's log says why");
        }
    }

    /** The cluster and the releases an upgrade plan is made from. */
    private record Read(EksaCluster cluster, List<EksaRelease> releases) {
    }

    @PreDestroy
    void stop() {
        reads.shutdownNow();
        reviews.shutdownNow();
    }

    private static Response refusal(int code, ObjectKey key, Throwable failure) {
        return Response.status(code)
                .type(MediaType.APPLICATION_JSON)
                .entity(JSON.createObjectNode().put("cluster", key.toString()).put("error", failure.getMessage()))
                .build();
    }

    private static Response starting() {
        return Response.fromResponse(error(503, "the aggregator is starting; try again shortly"))
                .header("Retry-After", "5")
                .build();
    }

    private static Response error(int code, String message) {
        return Response.status(code)
                .type(MediaType.APPLICATION_JSON)
                .entity(JSON.createObjectNode().put("error", message))
                .build();
    }
}
