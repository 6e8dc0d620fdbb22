package io.statusaggregator.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.VersionRules;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The validating admission webhook for EKS-A Clusters ({@code AdmissionReview} v1): a create or a spec change that the
 * version rules forbid is refused, with the message the status would show, so that a bad upgrade is never stored.
 * The rules compare with what the stored Cluster last reached, its durable version history ({@link History}: the
 * status topic's, as a Cluster CRD without {@code status.versions} shows none), else the old object's status, and
 * with the compatibility data in force (which Kubernetes versions each EKS-A release supports).
 */
public final class AdmissionWebhook {
    private AdmissionWebhook() {
    }

    /** The operations the API server sends, in its spelling. */
    private static final Set<String> OPERATIONS = Set.of("CREATE", "UPDATE", "DELETE", "CONNECT");

    /** Why a review is refused: one the webhook cannot read (400), or a Cluster the rules refuse (422). */
    private record Refusal(int code, String reason, String message) {
        static Refusal unreadable(String message) {
            return new Refusal(400, "BadRequest", message);
        }
    }

    /**
     * Each cluster's version history as the status topic holds it (versions.md, 003), as far as it has been read.
     *
     * @param complete whether it has been read up to where the topic ended when reading began
     */
    public record History(boolean complete, Function<ObjectKey, Optional<Versions>> versions) {
        /** None kept apart from the Clusters: the old object's status is the history (a CRD that keeps versions). */
        public static final History NONE = new History(true, cluster -> Optional.empty());
    }

    /** A cluster's history is not known yet: the status topic is still being read, and its old object shows none. */
    public static final class HistoryNotRead extends Exception {
        HistoryNotRead(ObjectKey cluster) {
            super("the version history of " + cluster
                    + " is still being read from the status topic; try again shortly");
        }
    }

    /** The review's answer for {@code review}, an {@code AdmissionReview} request. */
    public static ObjectNode review(JsonNode review, ManagementCluster management, Compatibility compatibility,
            History history) throws HistoryNotRead {
        JsonNode request = review.path("request");
        Optional<Refusal> refusal = request.isObject() ? refusal(request, management, compatibility, history)
                : Optional.of(Refusal.unreadable("not an AdmissionReview request"));
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("apiVersion", "admission.k8s.io/v1");
        answer.put("kind", "AdmissionReview");
        ObjectNode response = answer.putObject("response");
        response.put("uid", request.path("uid").asText(""));
        response.put("allowed", refusal.isEmpty());
        refusal.ifPresent(r -> response.putObject("status").put("code", r.code()).put("reason", r.reason())
                .put("message", r.message()));
        return answer;
    }

    /**
     * A review the API server would never send is refused rather than let through: with {@code failurePolicy: Ignore}
     * an error would admit it anyway, but an answer that denies it does not.
     */
    private static Optional<Refusal> refusal(JsonNode request, ManagementCluster management,
            Compatibility compatibility, History history) throws HistoryNotRead {
        JsonNode operationNode = request.path("operation");
        if (!operationNode.isTextual() || operationNode.asText().isEmpty()) {
            return Optional.of(Refusal.unreadable("the review names no operation (CREATE, UPDATE, DELETE or CONNECT)"));
        }
        String operation = operationNode.asText();
        if (!OPERATIONS.contains(operation)) {
            return Optional.of(Refusal.unreadable("the review's operation " + KubernetesNames.shown(operation)
                    + " is none of CREATE, UPDATE, DELETE and CONNECT (the API server writes them in upper case)"));
        }
        if (!operation.equals("CREATE") && !operation.equals("UPDATE")) {
            return Optional.empty();
        }
        if (!request.path("object").isObject()) {
            return Optional.of(Refusal.unreadable("the " + operation + " review carries no object"));
        }
        if (operation.equals("UPDATE") && !request.path("oldObject").isObject()) {
            return Optional.of(Refusal.unreadable(
                    "the UPDATE review carries no oldObject, which the rules compare with"));
        }
        Optional<EksaCluster> cluster;
        try {
            cluster = eksaCluster(request.path("object"));
        } catch (MalformedObjectException e) {
            return Optional.of(invalid(e.getMessage()));
        }
        if (cluster.isEmpty()) {
            return Optional.empty(); // not an EKS-A Cluster: not this webhook's to judge
        }
        ClusterStatus stored = ClusterStatus.NONE;
        if (operation.equals("UPDATE")) {
            Optional<EksaCluster> old = oldCluster(request.path("oldObject"));
            if (old.isPresent() && old.get().specHash().equals(cluster.get().specHash())) {
                return Optional
                        .empty(); // no spec change (metadata, say): a cluster already failing can still be edited
            }
            stored = reached(cluster.get().key(), old.map(EksaCluster::status).orElse(ClusterStatus.NONE), history);
        }
        return VersionRules.check(cluster.get().withStatus(stored), management,
                        VersionRules.supportedBy(cluster.get().spec(), compatibility))
                .map(Failure::message).map(AdmissionWebhook::invalid);
    }

    /**
     * What the stored Cluster {@code cluster} reached: {@code stored}, its old object's status, with the versions of
     * its durable history, where that has them.
     */
    private static ClusterStatus reached(ObjectKey cluster, ClusterStatus stored, History history)
            throws HistoryNotRead {
        Optional<Versions> durable = history.versions().apply(cluster);
        if (durable.isPresent()) {
            return new ClusterStatus(stored.observedGeneration(), stored.failure(), stored.defaultCni(),
                    stored.conditions(), stored.workerNodeGroups(), durable.get());
        }
        if (!history.complete() && stored.versions().current().isEmpty()) {
            throw new HistoryNotRead(cluster); // judged now, a skipped minor would pass for a first version
        }
        return stored;
    }

    private static Refusal invalid(String message) {
        return new Refusal(422, "Invalid", message);
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
