package io.statusaggregator.embedded;

import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.QueueDispatcher;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fabric8's mock web server, serving watches over plain HTTP as a real API server does. Fabric8's server answers a
 * watch only as a WebSocket, as its own client watches; kubectl (client-go) sends a plain {@code GET ...?watch=true}
 * and reads a chunked stream of watch events, which Fabric8's server refused with 400 ({@code "Connection" header must
 * be "Upgrade"}): {@code kubectl wait} printed {@code Failed to watch *unstructured.Unstructured: the server rejected
 * our request for an unknown reason} and saw a change only when it listed again.
 *
 * <p>Here a plain-HTTP watch is answered {@code 200} with {@code Transfer-Encoding: chunked}, one JSON watch event a
 * line, from the same watch the CRUD dispatcher opens for a WebSocket (same selection: namespace, name by field
 * selector, labels), which starts from the {@code resourceVersion} asked for as a real server's does
 * ({@link ResumableWatches}); the stream ends after {@code timeoutSeconds}. Bookmarks ({@code allowWatchBookmarks}) are
 * optional for a server and not sent. Every other request, WebSocket watches included, is served as Fabric8's server
 * serves it.
 */
final class WatchStreamingWebServer extends MockWebServer {
    /** As Fabric8's server: the channel protocols of exec and attach. */
    private static final List<String> WEBSOCKET_SUB_PROTOCOLS =
            List.of("v1.channel.k8s.io", "v2.channel.k8s.io", "v3.channel.k8s.io", "v4.channel.k8s.io");

    /**
     * The Vert.x instance Fabric8's constructor made for its own listener, used for this one: made, so it is closed.
     */
    private final Vertx vertx;

    private volatile Dispatcher dispatcher = new QueueDispatcher();
    private HttpServer http;
    private boolean stopped;
    private String hostName;
    private int port;

    WatchStreamingWebServer() {
        try {
            Field field = MockWebServer.class.getDeclaredField("vertx");
            field.setAccessible(true);
            vertx = (Vertx) field.get(this);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Fabric8 mock web server keeps its Vert.x where it did not: " + e, e);
        }
    }

    @Override
    public void setDispatcher(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /** Plain HTTP only: the embedded API servers listen on loopback without TLS. */
    @Override
    public void useHttps() {
        throw new UnsupportedOperationException("the embedded API server serves plain HTTP only");
    }

    @Override
    public synchronized void start(InetAddress address, int port) {
        if (http != null) {
            throw new IllegalStateException("start() already called");
        }
        HttpServerOptions options = new HttpServerOptions()
                .setHost(address.getHostAddress())
                .setPort(port)
                .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
                .setWebSocketSubProtocols(WEBSOCKET_SUB_PROTOCOLS)
                .setHandle100ContinueAutomatically(true);
        HttpServerRequestHandler fabric8 = new HttpServerRequestHandler(vertx) {
            @Override
            protected MockResponse onHttpRequest(RecordedRequest request) {
                return dispatcher.dispatch(request);
            }
        };
        http = vertx.createHttpServer(options).requestHandler(request -> {
            if (isPlainHttpWatch(request)) {
                streamWatch(request);
            } else {
                fabric8.handle(request);
            }
        });
        await(http.listen());
        this.port = http.actualPort();
        this.hostName = address.getHostName().equals("127.0.0.1") ? "localhost" : address.getHostName();
    }

    /** Stops listening, ending every open watch; a second call does nothing (Vert.x is closed by then). */
    @Override
    public synchronized void shutdown() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (http != null) {
            dispatcher.shutdown();
            await(http.close());
        }
        await(vertx.close());
    }

    @Override
    public synchronized int getPort() {
        return port;
    }

    @Override
    public synchronized String getHostName() {
        return hostName;
    }

    /**
     * Requests are not queued here (Fabric8's server keeps every one until taken): see EmbeddedKubernetes.onRequest.
     */
    @Override
    public RecordedRequest takeRequest() {
        throw new UnsupportedOperationException("requests are not recorded; use EmbeddedKubernetes.onRequest");
    }

    @Override
    public RecordedRequest takeRequest(long timeout, TimeUnit unit) {
        return takeRequest();
    }

    /** A watch the CRUD dispatcher would open ({@code watch=true}) asked for without a WebSocket upgrade. */
    static boolean isPlainHttpWatch(HttpServerRequest request) {
        return request.method() == io.vertx.core.http.HttpMethod.GET && "true".equals(request.getParam("watch"))
                && !"websocket".equalsIgnoreCase(request.getHeader("Upgrade"));
    }

    private void streamWatch(HttpServerRequest request) {
        request.resume();
        RecordedRequest recorded = new RecordedRequest(
                request.version().alpnName().toUpperCase(Locale.ROOT),
                HttpMethod.GET,
                request.uri(),
                Headers.builder().addAll(request.headers()).build(),
                new Buffer());
        MockResponse answer = dispatcher.dispatch(recorded);
        HttpServerResponse response = request.response();
        WebSocketListener watch = answer.getWebSocketListener();
        if (watch == null) {
            // Not a watch after all: an error, or what a test made the dispatcher answer instead.
            response.setStatusCode(answer.code());
            answer.getHeaders().toMultimap().forEach((name, values) -> response.headers().add(name, values));
            Buffer body = answer.getBody();
            response.end(io.vertx.core.buffer.Buffer.buffer(body == null ? new byte[0] : body.getBytes()));
            return;
        }
        response.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
        HttpWatchStream stream = new HttpWatchStream(recorded, response, watch);
        response.closeHandler(closed -> stream.close(1000, "the client closed the watch"));
        response.exceptionHandler(failed -> stream.close(1011, failed.toString()));
        long timeout = parseLong(request.getParam("timeoutSeconds")).orElse(0);
        if (timeout > 0) {
            stream.timer =
                    vertx.setTimer(TimeUnit.SECONDS.toMillis(timeout), fired -> stream.close(1000, "timeoutSeconds"));
        }
        watch.onBeforeAccept(stream, answer);
        watch.onOpen(stream, answer);
        // The client learns that its watch is open once the dispatcher's watch is: every change from then on reaches
        // it.
        stream.open();
    }

    private static OptionalLong parseLong(String value) {
        try {
            return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The dispatcher's watch, written to a chunked HTTP response instead of a WebSocket: each event one line. The
     * dispatcher sends from a thread of its own; Vert.x takes writes from any thread.
     */
    private final class HttpWatchStream implements WebSocket {
        private final RecordedRequest request;
        private final HttpServerResponse response;
        private final WebSocketListener watch;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile long timer = -1;
        /** Events sent before the response's head was written: written after it. */
        private final List<String> early = new ArrayList<>();
        private boolean open;

        HttpWatchStream(RecordedRequest request, HttpServerResponse response, WebSocketListener watch) {
            this.request = request;
            this.response = response;
            this.watch = watch;
        }

        @Override
        public RecordedRequest request() {
            return request;
        }

        @Override
        public boolean send(String event) {
            if (closed.get()) {
                return false;
            }
            synchronized (this) {
                if (!open) {
                    early.add(event);
                    return true;
                }
                return write(event);
            }
        }

        /** Writes the response's head (status 200, chunked), then what was sent before. */
        synchronized void open() {
            try {
                response.writeHead();
            } catch (IllegalStateException ended) {
                return;
            }
            open = true;
            early.forEach(this::write);
            early.clear();
        }

        private boolean write(String event) {
            try {
                response.write(event + "\n");
                return true;
            } catch (IllegalStateException ended) {
                return false;
            }
        }

        @Override
        public boolean send(byte[] bytes) {
            return send(new String(bytes, StandardCharsets.UTF_8));
        }

        /** Ends the stream (once): the response, the timeout, and the dispatcher's watch. */
        @Override
        public boolean close(int code, String reason) {
            if (!closed.compareAndSet(false, true)) {
                return true;
            }
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
            try {
                if (!response.ended() && !response.closed()) {
                    response.end();
                }
            } catch (IllegalStateException alreadyEnded) {
                // Ended meanwhile: nothing to end.
            }
            watch.onClosed(this, code, reason);
            return true;
        }
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the embedded API server could not start or stop: " + e, e);
        }
    }
}
