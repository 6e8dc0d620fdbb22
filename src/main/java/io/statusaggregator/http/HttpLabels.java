package io.statusaggregator.http;

import io.statusaggregator.model.Pure;
import java.util.Set;

/**
 * The values the HTTP server's metrics may carry in their {@code method} and {@code uri} labels, so that what a client
 * sends (a made-up method, a path of its own) cannot add series without bound: a method is one of HTTP's own or
 * {@link #OTHER_METHOD}; a URI is one of this application's routes (the templates Quarkus REST names, the static files
 * of the fleet page, the management interface's paths, Quarkus' own {@code NOT_FOUND}, {@code REDIRECTION} and
 * {@code root}) or {@link #UNKNOWN_URI}. Pure.
 */
@Pure
public final class HttpLabels {
    public static final String OTHER_METHOD = "OTHER";
    public static final String UNKNOWN_URI = "UNKNOWN";

    static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
            "PATCH");

    /** Every route's label; HttpLabelsTest holds it against the resources' paths and the static files. */
    static final Set<String> ROUTES = Set.of(
            "root", "NOT_FOUND", "REDIRECTION", UNKNOWN_URI,
            "/index.html", "/fleet", "/fleet/clusters", "/fleet/events",
            "/fleet/clusters/{namespace}/{name}/transitions", "/fleet/clusters/{namespace}/{name}/tree",
            "/fleet/fleet.js", "/fleet/view.js", "/fleet/tree.js", "/fleet/fleet.css",
            "/admission/clusters", "/upgrade-check/{namespace}/{name}", "/sign-in", "/sign-out",
            "/q/health", "/q/health/live", "/q/health/ready", "/q/health/started", "/q/metrics");

    private HttpLabels() {
    }

    public static String method(String method) {
        return method != null && METHODS.contains(method) ? method : OTHER_METHOD;
    }

    public static String uri(String uri) {
        return uri != null && ROUTES.contains(uri) ? uri : UNKNOWN_URI;
    }
}
