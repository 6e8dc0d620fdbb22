package io.statusaggregator.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.versions.UpgradePlan.UnreachableTarget;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
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

    private final RunningPipeline running;

    PreflightResource(RunningPipeline running) {
        this.running = running;
    }

    @POST
    @Path(ADMISSION_PATH)
    @Consumes(MediaType.WILDCARD)
    public Response admission(String body) {
        Optional<Pipeline> pipeline = running.get();
        if (pipeline.isEmpty()) {
            return starting();
        }
        JsonNode review;
        try {
            review = JSON.readTree(body);
        } catch (Exception e) {
            return Response.status(400).type(MediaType.TEXT_PLAIN)
                    .entity("the body is not an AdmissionReview in JSON: " + e.getMessage()).build();
        }
        return Response.ok(AdmissionWebhook.review(review, pipeline.get().management().get())).build();
    }

    /** Reading the Cluster is a blocking call to the API server: Quarkus REST runs this on a worker thread. */
    @GET
    @Path(UPGRADE_CHECK_PATH + "/{namespace}/{name}")
    public Response upgradeCheck(@PathParam("namespace") String namespace, @PathParam("name") String name,
            @QueryParam("to") String to) {
        Optional<Pipeline> running = this.running.get();
        if (running.isEmpty()) {
            return starting();
        }
        Pipeline pipeline = running.get();
        ObjectKey key = new ObjectKey(namespace, name);
        try {
            List<EksaRelease> releases = pipeline.management().get().releases()
                    .orElseGet(() -> UpgradeCheck.readReleases(pipeline.client(), pipeline.capiNamespace()));
            return Response.ok(UpgradeCheck.toJson(key, UpgradeCheck.plan(UpgradeCheck.readCluster(pipeline.client(), key),
                    releases, pipeline.compatibility().get(), Optional.ofNullable(to)))).build();
        } catch (Exception failure) {
            int code = failure instanceof UpgradeCheck.ClusterNotFound ? 404
                    : failure instanceof UnreachableTarget || failure instanceof MalformedObjectException ? 422
                    : failure instanceof KubernetesClientException ? 503 : 500;
            if (code >= 500) {
                LOG.warnf("upgrade check of %s failed: %s", key, failure.toString());
            }
            return Response.status(code).entity(JSON.createObjectNode().put("cluster", key.toString()).put("error", failure.getMessage()))
                    .build();
        }
    }

    private static Response starting() {
        return Response.status(503).entity(JSON.createObjectNode().put("error", "the aggregator is starting; try again shortly"))
                .header("Retry-After", "5").build();
    }
}
