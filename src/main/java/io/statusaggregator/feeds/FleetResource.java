package io.statusaggregator.feeds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.statusaggregator.model.ObjectKey;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import io.vertx.core.http.HttpServerResponse;
import java.net.URI;
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
 * <li>{@code GET /fleet/clusters/{namespace}/{name}/transitions}: that cluster's recent changes, newest first.</li>
 * </ul>
 *
 * Before {@code run} has started the page's feeds, the data answers 503.
 */
@Path("/fleet")
public class FleetResource {
    /** Events written to a browser and not yet sent on: beyond this it is dropped and reconnects. */
    static final int MAX_PENDING = 1_000;
    private static final CacheControl NO_CACHE = CacheControl.valueOf("no-cache");

    private final FleetPage page;

    FleetResource(FleetPage page) {
        this.page = page;
    }

    @GET
    public Response page() {
        return Response.seeOther(URI.create("/")).build();
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
        java.util.Optional<String> problem = ObjectKey.problemOf(namespace, name);
        if (problem.isPresent()) {
            return Response.status(400).type(MediaType.APPLICATION_JSON).cacheControl(NO_CACHE)
                    .entity(JsonNodeFactory.instance.objectNode().put("error", problem.get())).build();
        }
        return json(page.started() ? page.transitions(namespace + "/" + name) : null);
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
            return Response.status(503).type(MediaType.APPLICATION_JSON).cacheControl(NO_CACHE)
                    .entity(JsonNodeFactory.instance.objectNode().put("error", "the aggregator is starting; try again shortly"))
                    .header("Retry-After", "5").build();
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
