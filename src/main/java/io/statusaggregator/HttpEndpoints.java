package io.statusaggregator;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The one HTTP server {@code run} starts (the other commands start none): each stage adds its routes (the preflight
 * endpoints, the fleet page). HTTPS when a certificate is configured, as the API server requires of a webhook.
 */
public final class HttpEndpoints implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HttpEndpoints.class);

    /**
     * @param port        the port to listen on; 0 for any free one
     * @param certificate a PEM certificate chain, with its {@code key}: HTTPS when set
     */
    public record Settings(int port, Optional<String> certificate, Optional<String> key) {
    }

    private final Vertx vertx;
    private final Settings settings;
    private final Router router;
    private HttpServer server;

    public HttpEndpoints(Vertx vertx, Settings settings) {
        this.vertx = vertx;
        this.settings = settings;
        this.router = Router.router(vertx);
    }

    public HttpEndpoints with(Consumer<Router> routes) {
        routes.accept(router);
        return this;
    }

    /** Listens; returns the port. */
    public int start(Duration timeout) throws Exception {
        HttpServerOptions options = new HttpServerOptions().setPort(settings.port());
        if (settings.certificate().isPresent()) {
            options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                    .setCertPath(settings.certificate().get())
                    .setKeyPath(settings.key().orElseThrow(() -> new IllegalArgumentException("a certificate needs its key"))));
        }
        server = vertx.createHttpServer(options).requestHandler(router).listen()
                .toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof("HTTP endpoints on %s port %d", settings.certificate().isPresent() ? "HTTPS" : "HTTP", server.actualPort());
        return server.actualPort();
    }

    public int port() {
        return server.actualPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
