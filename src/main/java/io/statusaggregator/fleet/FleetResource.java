package io.statusaggregator.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.statusaggregator.model.ObjectKey;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * The fleet page over HTTP. The page itself is a static resource ({@code META-INF/resources}: {@code /} and
 * {@code /fleet/fleet.js}, {@code /fleet/fleet.css}); this serves its data:
 *
 * <ul>
 * <li>{@code GET /fleet}: the page (a redirect to {@code /});</li>
 * <li>{@code GET /fleet/clusters}: every cluster, as JSON;</li>
 * <li>{@code GET /fleet/events}: server-sent events: {@code snapshot} (every cluster), then {@code status} for each
 * status published, {@code deleted} for each tombstone and {@code transition} for each change event;</li>
 * <li>{@code GET /fleet/clusters/{namespace}/{name}/transitions}: that cluster's recent changes, newest first: 404
 * when the page, having read its topics, has neither a status nor a change of it;</li>
 * <li>{@code GET /fleet/clusters/{namespace}/{name}/tree}: that cluster as the tree {@code describe} prints, read from
 * the Kubernetes API ({@link ClusterView}): 404 when there is no such Cluster, 503 when the API does not answer.</li>
 * </ul>
 *
 * Before {@code run} has started the page's feeds, the data answers 503; names that are no Kubernetes names, 400.
 */
@Path("/fleet")
public class FleetResource {
    /** Events written to a browser and not yet sent on: beyond this it is dropped and reconnects. */
    static final int MAX_PENDING = 1_000;
    private static final CacheControl NO_CACHE = CacheControl.valueOf("no-cache");

    private final FleetPage page;
    private final ClusterView view;

    FleetResource(FleetPage page, ClusterView view) {
        this.page = page;
        this.view = view;
    }

    /** To the page: a relative Location, as JAX-RS would make it absolute from the request's own Host header. */
    @GET
    public Response page() {
        return Response.status(Response.Status.SEE_OTHER).header(HttpHeaders.LOCATION, "/").build();
    }

    @GET
    @Path("/clusters")
    @Produces(MediaType.APPLICATION_JSON)
    public Response clusters() {
        return json(page.started() ? page.snapshot() : null);
    }

    @GET
    @Path("/clusters/{namespace}/{name}/transitions")
    @Produces(MediaType.APPLICATION_JSON)
    public Response transitions(@PathParam("namespace") String namespace, @PathParam("name") String name) {
        String key = namespace + "/" + name;
        return invalid(namespace, name).orElseGet(() -> page.transitions(key).map(FleetResource::json)
                // Until the page has read its topics, a cluster it does not know yet may still come.
                .orElseGet(() -> page.read() ? error(404, "the fleet has no status of cluster " + key) : json(null)));
    }

    @GET
    @Path("/clusters/{namespace}/{name}/tree")
    @Produces(MediaType.APPLICATION_JSON)
    public Response tree(@PathParam("namespace") String namespace, @PathParam("name") String name) {
        // Checked before any use: the names go into requests to the API server made with this account's token.
        return invalid(namespace, name).orElseGet(() -> answered(view.tree(new ObjectKey(namespace, name),
                page.status(namespace + "/" + name))));
    }

    private static Response answered(ClusterView.Answer answer) {
        if (answer instanceof ClusterView.Answer.Tree tree) {
            return Response.ok(tree.body()).cacheControl(NO_CACHE).build();
        }
        if (answer instanceof ClusterView.Answer.NotFound notFound) {
            return error(404, notFound.message());
        }
        if (answer instanceof ClusterView.Answer.Unavailable unavailable) {
            return Response.fromResponse(error(503, unavailable.message())).header("Retry-After", "5").build();
        }
        return error(500, ((ClusterView.Answer.Failed) answer).message());
    }

    /** 400 and why, when these are no Kubernetes namespace and name. */
    private static Optional<Response> invalid(String namespace, String name) {
        return ObjectKey.problemOf(namespace, name).map(problem -> error(400, problem));
    }

    private static Response error(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).cacheControl(NO_CACHE)
                .entity(JsonNodeFactory.instance.objectNode().put("error", message)).build();
    }

    @GET
    @Path("/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    public void events(@Context SseEventSink sink, @Context Sse sse, @Context HttpServerResponse response) {
        // Reverse proxies that buffer (nginx) would hold the stream back.
        response.putHeader("X-Accel-Buffering", "no").putHeader("Cache-Control", "no-cache");
        if (!page.started()) {
            sink.close();
            return;
        }
        page.open(new BrowserStream(sink, sse));
    }

    private static Response json(JsonNode body) {
        if (body == null) {
            return Response.fromResponse(error(503, "the aggregator is starting; try again shortly"))
                    .header("Retry-After", "5")
                    .build();
        }
        return Response.ok(body).cacheControl(NO_CACHE).build();
    }

    /** One browser's event stream; a send that cannot be written closes it (the browser is gone). */
    private final class BrowserStream implements FleetPage.Stream {
        private final SseEventSink sink;
        private final Sse sse;
        private final AtomicInteger pending = new AtomicInteger();

        BrowserStream(SseEventSink sink, Sse sse) {
            this.sink = sink;
            this.sse = sse;
        }

        @Override
        public void send(String event, String data) {
            // The browser reconnects 2 s after the stream breaks.
            write(sse.newEventBuilder().name(event).data(data).reconnectDelay(2_000).build());
        }

        @Override
        public void keepalive() {
            write(sse.newEventBuilder().comment("keepalive").build());
        }

        private void write(jakarta.ws.rs.sse.OutboundSseEvent event) {
            if (sink.isClosed()) {
                page.closed(this);
                return;
            }
            pending.incrementAndGet();
            sink.send(event).whenComplete((sent, failure) -> {
                pending.decrementAndGet();
                if (failure != null) {
                    page.closed(this);
                    close();
                }
            });
        }

        @Override
        public boolean behind() {
            return sink.isClosed() || pending.get() > MAX_PENDING;
        }

        @Override
        public void close() {
            if (!sink.isClosed()) {
                sink.close();
            }
        }
    }
}
