package io.statusaggregator.alerts;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Alertmanager's API as the alert bridge uses it: {@code POST /api/v2/alerts}, in requests of bounded size. */
final class AlertmanagerApi {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Alerts per request: a fleet-wide outage must not become one huge body. */
    private static final int ALERTS_PER_REQUEST = 500;

    /** An alert to post, firing until {@code endsAt} (now, for one resolved). */
    record Posting(ClusterAlerts.Alert alert, Instant endsAt) {
    }

    /** Alertmanager did not take the alerts: unreachable, or it refused them; the message says which, in one line. */
    static final class DeliveryFailed extends Exception {
        DeliveryFailed(String message) {
            super(message);
        }
    }

    private final URI alertsUri;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build();

    AlertmanagerApi(URI alertmanager) {
        String base = alertmanager.toString();
        this.alertsUri =
                URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/api/v2/alerts");
    }

    void post(List<Posting> postings, Instant now) throws DeliveryFailed, InterruptedException {
        for (int from = 0; from < postings.size(); from += ALERTS_PER_REQUEST) {
            ArrayNode chunk = JsonNodeFactory.instance.arrayNode();
            for (Posting posting : postings.subList(from, Math.min(postings.size(), from + ALERTS_PER_REQUEST))) {
                chunk.add(json(posting, now));
            }
            HttpRequest request = HttpRequest.newBuilder(alertsUri)
                    .timeout(REQUEST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(chunk.toString()))
                    .build();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new DeliveryFailed("cannot reach Alertmanager at " + alertsUri + ": " + e);
            }
            if (response.statusCode() / 100 != 2) {
                String body = response.body() == null ? "" : response.body().strip();
                throw new DeliveryFailed("Alertmanager at " + alertsUri + " answered " + response.statusCode()
                        + (body.isEmpty() ? "" : ": " + (body.length() > 300 ? body.substring(0, 300) + "…" : body)));
            }
        }
    }

    private static ObjectNode json(Posting posting, Instant now) {
        ClusterAlerts.Alert alert = posting.alert();
        // Alertmanager refuses an alert that ends before it starts: a producer's clock ahead of ours must not stall us.
        Instant startsAt = alert.startsAt().isAfter(now) ? now : alert.startsAt();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        ObjectNode labels = node.putObject("labels");
        alert.labels().forEach(labels::put);
        ObjectNode annotations = node.putObject("annotations");
        alert.annotations().forEach(annotations::put);
        node.put("startsAt", startsAt.toString());
        node.put("endsAt", posting.endsAt().toString());
        return node;
    }
}
