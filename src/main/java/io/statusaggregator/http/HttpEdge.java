package io.statusaggregator.http;

import io.quarkus.vertx.http.ManagementInterface;
import io.statusaggregator.AggregatorConfig;
import io.vertx.core.VertxException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.jboss.logging.Logger;

/**
 * What every request meets before its route: a {@code Host} this server answers for (else 421), and a body that
 * arrives in time (else 408 and the connection closed; {@link BodyPace}). With the routes that read a body reading it
 * on the event loop (the webhook, the sign-in form), a client that sends its body slowly, or never, so holds its own
 * connection for a few seconds and nothing else. Refusals are logged one line a minute at most.
 *
 * <p>The management interface reads a body with Quarkus' own body handler before any route of the application's, so
 * none is weighed here: it serves GET only and refuses any body at once (quarkus.management.limits.max-body-size=0).
 */
@ApplicationScoped
public class HttpEdge {
    private static final Logger LOG = Logger.getLogger(HttpEdge.class);
    /** How often a body still arriving is weighed against its deadline and rate floor. */
    private static final long TICK_MILLIS = 250;
    private static final Duration LOG_INTERVAL = Duration.ofMinutes(1);
    private static final String HEALTH = "/q/health";

    private final AggregatorConfig.Http settings;
    private final BodyPace pace;
    private final Tally cutOff = new Tally(LOG_INTERVAL);
    private final Tally misdirected = new Tally(LOG_INTERVAL);
    private volatile AllowedHosts hosts;

    HttpEdge(AggregatorConfig config) {
        this.settings = config.http();
        this.pace = new BodyPace(settings.bodyTimeout(), settings.bodyMinRate());
        // Until run has said which mode this is: the narrowest, the embedded default's.
        this.hosts = settings.allowedHosts().map(AllowedHosts::of).orElse(AllowedHosts.loopback());
    }

    /** The mode is known: unless configured, the embedded default answers loopback names only, a deployment any. */
    public void serve(boolean embedded) {
        hosts = settings.allowedHosts().map(AllowedHosts::of)
                .orElse(embedded ? AllowedHosts.loopback() : AllowedHosts.any());
        if (!hosts.anyHost()) {
            LOG.infof("HTTP requests are served for the Host names %s (aggregator.http.allowed-hosts)", hosts);
        }
    }

    void onApplicationRouter(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(request -> handle(request, true))
                .failureHandler(HttpEdge::clientFault);
    }

    void onManagementRouter(@Observes ManagementInterface management) {
        management.router().route().order(Integer.MIN_VALUE).handler(request -> handle(request, false))
                .failureHandler(HttpEdge::clientFault);
    }

    /**
     * A client's faults that fail a request before any route: a Host header that is no host name at all (Vert.x' 400)
     * gets one line, not the error handler's page that names Vert.x' exception; a client gone is answered nothing.
     * Neither is logged as an error.
     */
    private static void clientFault(RoutingContext context) {
        if (context.failure() instanceof HttpClosedException) {
            // The client went away (a body cut off, a stalled one closed at the idle timeout): no one to answer.
            return;
        }
        if (context.statusCode() == 400 && context.failure() instanceof VertxException failure
                && failure.getMessage() != null && failure.getMessage().contains("'Host' header")) {
            refuse(context, 400, "the Host header names no host");
            return;
        }
        context.next();
    }

    private void handle(RoutingContext context, boolean application) {
        HttpServerRequest request = context.request();
        try {
            context.normalizedPath();
        } catch (IllegalArgumentException e) {
            // A % not followed by two hex digits: what reads the path later would fail with a server error.
            refuse(context, 400, "the request's path is not valid percent-encoding");
            return;
        }
        // The kubelet probes health by the pod's address: health tells nothing a rebinding page could use.
        boolean health = !application && request.path() != null && request.path().startsWith(HEALTH);
        if (!health && !hosts.admits(host(request))) {
            tell(misdirected, "refused %d request(s) naming a Host this server does not answer for (421; "
                    + "aggregator.http.allowed-hosts: %s)", hosts);
            refuse(context, 421, "this server answers requests for " + hosts + " only (aggregator.http.allowed-hosts)");
            return;
        }
        long declared = declaredBody(request);
        if (declared != 0 && !request.isEnded()) {
            new ArrivingBody(context, declared).watch();
        }
        context.next();
    }

    /**
     * The body's length as its head declares it: -1 for chunks of a length not told, 0 for none. A body is weighed
     * only when declared: a request without one is paused by the route that has not read it yet, which is no fault of
     * the client (HTTP/2 without {@code content-length}: its stream, read only by the routes that read it on the event
     * loop, holds no thread).
     */
    private static long declaredBody(HttpServerRequest request) {
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                return Math.max(0, Long.parseLong(length.trim()));
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        boolean chunked = request.version() != HttpVersion.HTTP_2
                && request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
        return chunked ? -1 : 0;
    }

    /** The body of one request as it arrives, weighed every tick until it has arrived or the answer has gone. */
    private final class ArrivingBody {
        private final RoutingContext context;
        private final HttpServerRequest request;
        private final long declared;
        private final long start = System.nanoTime();
        private long timer = -1;

        ArrivingBody(RoutingContext context, long declared) {
            this.context = context;
            this.request = context.request();
            this.declared = declared;
        }

        void watch() {
            timer = context.vertx().setPeriodic(TICK_MILLIS, id -> weigh());
        }

        /** Also after the answer: a route that reads no body answers at once, and the connection waits for it. */
        private void weigh() {
            // All of a declared length read: arrived, whether or not the route has taken its end yet.
            if (request.isEnded() || context.response().closed() || (declared > 0 && request.bytesRead() >= declared)) {
                settle();
                return;
            }
            BodyPace.Verdict verdict = pace.of(Duration.ofNanos(System.nanoTime() - start), request.bytesRead());
            if (verdict != BodyPace.Verdict.GOING) {
                settle();
                tell(cutOff, "cut off %d request body(ies) that arrived too slowly or too late (408; "
                        + "aggregator.http.body-timeout %s, aggregator.http.body-min-rate %d bytes a second)",
                        BodyPace.seconds(pace.deadline()), pace.minimumBytesPerSecond());
                refuse(context, 408, pace.refusal(verdict));
            }
        }

        private void settle() {
            if (timer >= 0) {
                context.vertx().cancelTimer(timer);
                timer = -1;
            }
        }
    }

    /** The host the request names: its Host header, or HTTP/2's authority. */
    private static String host(HttpServerRequest request) {
        String header = request.getHeader(HttpHeaders.HOST);
        if (header != null || request.version() != HttpVersion.HTTP_2) {
            return header;
        }
        HostAndPort authority = request.authority();
        return authority == null ? null : authority.host() + (authority.port() >= 0 ? ":" + authority.port() : "");
    }

    /** One line of JSON, and the connection closed: what else the client sends is not read. */
    private static void refuse(RoutingContext context, int status, String message) {
        HttpServerRequest request = context.request();
        HttpServerResponse response = context.response();
        if (response.headWritten()) {
            close(request);
            return;
        }
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        if (request.version() != HttpVersion.HTTP_2) {
            response.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        }
        response.end(new JsonObject().put("error", message).encode() + "\n").onComplete(done -> close(request));
    }

    private static void close(HttpServerRequest request) {
        if (request.version() == HttpVersion.HTTP_2) {
            if (!request.isEnded()) {
                request.response().reset();
            }
        } else {
            request.connection().close();
        }
    }

    private static void tell(Tally tally, String format, Object... arguments) {
        OptionalLong count = tally.add(Instant.now());
        if (count.isPresent()) {
            Object[] all = new Object[arguments.length + 1];
            all[0] = count.getAsLong();
            System.arraycopy(arguments, 0, all, 1, arguments.length);
            LOG.warnf(format, all);
        }
    }
}
