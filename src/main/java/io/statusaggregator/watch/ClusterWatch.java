package io.statusaggregator.watch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.statusaggregator.model.Pure;
import java.util.Optional;
import io.statusaggregator.topics.StatusChange;

/**
 * What {@code watch} shows of one cluster, folded from its transition events: the latest status, where the machines
 * stand, and whether the wait is over. Pure: events in, text and a verdict out.
 */
@Pure
public final class ClusterWatch {
    /** How a watch ends. */
    public enum Outcome {
        /** The awaited condition is True at the Cluster's generation. */
        REACHED(0),
        /** The Cluster shows a failure reason, or was deleted. */
        FAILED(1),
        /** Neither within the time given. */
        TIMED_OUT(3);

        private final int exitCode;

        Outcome(int exitCode) {
            this.exitCode = exitCode;
        }

        public int exitCode() {
            return exitCode;
        }
    }

    private static final int BAR = 24;
    private final String cluster;
    private final String until;
    private JsonNode latest;
    private boolean deleted;

    /**
     * @param cluster {@code namespace/name}
     * @param until   the condition type whose True ends the watch (Ready by default)
     */
    public ClusterWatch(String cluster, String until) {
        this.cluster = cluster;
        this.until = until;
    }

    /** Takes one event of the feed; events of other clusters are ignored. Returns whether it was this cluster's. */
    public boolean accept(String subject, String type, JsonNode data) {
        if (!cluster.equals(subject)) {
            return false;
        }
        latest = data;
        deleted = StatusChange.DELETED.equals(type);
        return true;
    }

    public boolean seen() {
        return latest != null;
    }

    /** The wait is over when the condition is True for the Cluster's current generation, or a failure shows. */
    public Optional<Outcome> outcome() {
        if (latest == null) {
            return Optional.empty();
        }
        if (deleted) {
            return Optional.of(Outcome.FAILED);
        }
        JsonNode status = latest.path("after");
        if (!status.path("failureReason").asText("").isEmpty()) {
            return Optional.of(Outcome.FAILED);
        }
        boolean current = status.path("observedGeneration").asLong(-1) == latest.path("generation").asLong(-2);
        return current && "True".equals(condition(status, until).path("status").asText())
                ? Optional.of(Outcome.REACHED)
                : Optional.empty();
    }

    private static JsonNode condition(JsonNode status, String type) {
        for (JsonNode condition : status.path("conditions")) {
            if (type.equals(condition.path("type").asText())) {
                return condition;
            }
        }
        return MissingNode.getInstance();
    }

    /** The view: a header, progress bars for the control plane and the workers, and each condition. */
    public String render() {
        StringBuilder view = new StringBuilder();
        if (latest == null) {
            return view.append(cluster).append(": waiting for its first status on the feed\n").toString();
        }
        JsonNode status = latest.path("after");
        view.append(cluster);
        if (deleted) {
            return view.append(": deleted\n").toString();
        }
        view.append("  generation ").append(latest.path("generation").asLong())
                .append(", observed ").append(status.path("observedGeneration").asLong()).append('\n');
        JsonNode progress = latest.path("progress");
        bar(view, "control plane", progress.path("controlPlane"));
        bar(view, "workers", progress.path("workers"));
        for (JsonNode condition : status.path("conditions")) {
            view.append("  ")
                    .append(pad(condition.path("type").asText(), 24))
                    .append(pad(condition.path("status").asText(), 7));
            String reason = condition.path("reason").asText("");
            String message = condition.path("message").asText("");
            if (!reason.isEmpty()) {
                view.append(reason).append(message.isEmpty() ? "" : ": " + message);
            }
            view.setLength(view.toString().stripTrailing().length());
            view.append('\n');
        }
        if (!status.path("failureReason").asText("").isEmpty()) {
            view.append("  failure: ").append(status.path("failureReason").asText()).append(": ")
                    .append(status.path("failureMessage").asText()).append('\n');
        }
        return view.toString();
    }

    private static void bar(StringBuilder view, String label, JsonNode counts) {
        int desired = counts.path("desired").asInt();
        int ready = Math.min(counts.path("ready").asInt(), Math.max(desired, 0));
        int filled = desired <= 0 ? 0 : ready * BAR / desired;
        view.append("  ").append(pad(label, 14)).append('[').append("#".repeat(filled)).append("-".repeat(BAR - filled))
                .append("] ").append(counts.path("ready").asInt()).append('/').append(desired).append('\n');
    }

    private static String pad(String text, int width) {
        return text.length() >= width ? text + " " : text + " ".repeat(width - text.length());
    }
}
