package io.statusaggregator.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.VersionRules;
import java.util.Optional;

/**
 * The validating admission webhook for EKS-A Clusters ({@code AdmissionReview} v1): a create or a spec change that the
 * version rules forbid is refused, with the message the status would show, so that a bad upgrade is never stored.
 * The rules compare with what the stored Cluster last reached, read from the old object's status.
 */
public final class AdmissionWebhook {
    private AdmissionWebhook() {
    }

    /** The review's answer for {@code review}, an {@code AdmissionReview} request. */
    public static ObjectNode review(JsonNode review, ManagementCluster management) {
        JsonNode request = review.path("request");
        Optional<String> refusal = request.isObject() ? refusal(request, management) : Optional.of("not an AdmissionReview request");
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("apiVersion", "admission.k8s.io/v1");
        answer.put("kind", "AdmissionReview");
        ObjectNode response = answer.putObject("response");
        response.put("uid", request.path("uid").asText(""));
        response.put("allowed", refusal.isEmpty());
        refusal.ifPresent(message -> response.putObject("status").put("code", 422).put("reason", "Invalid").put("message", message));
        return answer;
    }

    private static Optional<String> refusal(JsonNode request, ManagementCluster management) {
        String operation = request.path("operation").asText("");
        if (!operation.equals("CREATE") && !operation.equals("UPDATE")) {
            return Optional.empty();
        }
        Optional<EksaCluster> cluster;
        try {
            cluster = eksaCluster(request.path("object"));
        } catch (MalformedObjectException e) {
            return Optional.of(e.getMessage());
        }
        if (cluster.isEmpty()) {
            return Optional.empty(); // not an EKS-A Cluster: not this webhook's to judge
        }
        ClusterStatus stored = ClusterStatus.NONE;
        if (operation.equals("UPDATE")) {
            Optional<EksaCluster> old = oldCluster(request.path("oldObject"));
            if (old.isPresent() && old.get().specHash().equals(cluster.get().specHash())) {
                return Optional.empty(); // no spec change (metadata, say): a cluster already failing can still be edited
            }
            stored = old.map(EksaCluster::status).orElse(ClusterStatus.NONE);
        }
        return VersionRules.check(cluster.get().withStatus(stored), management).map(Failure::message);
    }

    private static Optional<EksaCluster> eksaCluster(JsonNode object) throws MalformedObjectException {
        if (!object.isObject()) {
            return Optional.empty();
        }
        Optional<KubernetesObject> decoded = ObjectDecoder.decode(object);
        return decoded.filter(o -> o.kind() == ObjectKind.EKSA_CLUSTER).map(EksaCluster.class::cast);
    }

    /** The stored Cluster; one that no longer decodes gives nothing to compare with, which must not block a fix. */
    private static Optional<EksaCluster> oldCluster(JsonNode object) {
        try {
            return eksaCluster(object);
        } catch (MalformedObjectException e) {
            return Optional.empty();
        }
    }
}
