package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The embedded API server's watches, resumed from a {@code resourceVersion} as a real API server's are. Fabric8's mock
 * server (7.5.2) differs from a real one in two ways that lost deletions for good, since an informer's store only
 * learns of a deletion from its watch (Fabric8 ends each watch after 5 to 10 minutes and opens the next from the last
 * version it saw; and every watch ends when the server restarts):
 * <ul>
 * <li>a watch that opens is told of every object held, as ADDED, whatever version it asked from, and of nothing
 * deleted: a deletion between the end of one watch and the start of the next was never told;</li>
 * <li>an event between a watch's request and its WebSocket's opening was dropped (sent to a socket not set yet).</li>
 * </ul>
 * Here the server keeps its latest {@link #KEPT} deletions of each resource, each stamped with a version of its own
 * as a real server stamps it. A watch from a version first gets the deletions after it, then the changes; the objects
 * it holds at or before that version are not announced again (its client listed them). A watch from a version older
 * than the deletions kept of its resource is refused with 410 Gone, as a real server refuses one it has compacted:
 * its client lists again. And each watch is opened when it is made, on a stand-in socket that holds what is sent
 * until the WebSocket opens.
 *
 * <p>Deletions are kept under the dispatcher's write lock and read under its read lock; this class locks too, cheaply.
 */
final class ResumableWatches {
    /**
     * How many deletions are kept: seconds of the benchmark's churn, far more than an informer's reconnection takes.
     */
    static final int KEPT = 4096;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern FROM_VERSION = Pattern.compile("[?&]resourceVersion=([^&]*)");
    private static final Pattern NAME_SELECTOR = Pattern.compile("[?&]fieldSelector=metadata\\.name(?:%3D|=)([^&]*)");

    private record Deletion(long version, AttributeSet key, String object) {
    }

    /** One resource's deletions, as a real server keeps a watch history per resource. */
    private static final class History {
        final ArrayDeque<Deletion> deletions = new ArrayDeque<>();
        /** The version of the newest deletion no longer kept; a watch from before it may have missed it. */
        long forgottenAt;
    }

    private final Map<String, History> byResource = new HashMap<>();
    private final int kept;

    ResumableWatches() {
        this(KEPT);
    }

    /** @param kept how many deletions are kept per resource (kind) */
    ResumableWatches(int kept) {
        this.kept = kept;
    }

    /**
     * {@code object}, stored under {@code key}, is deleted at {@code version}: kept, and handed back stamped with that
     * version, which its DELETED event carries.
     */
    synchronized String deleted(AttributeSet key, String object, long version) {
        String stamped = stamped(object, version);
        History history = byResource.computeIfAbsent(resourceOf(key), r -> new History());
        history.deletions.addLast(new Deletion(version, key, stamped));
        if (history.deletions.size() > kept) {
            history.forgottenAt = history.deletions.removeFirst().version();
        }
        return stamped;
    }

    /**
     * Whether a watch of {@code selection} from {@code version} may have missed a deletion no longer kept. Per
     * resource: a watch of a kind that nothing deleted lately is not refused for the deletions of another.
     */
    synchronized boolean forgotten(AttributeSet selection, long version) {
        History history = byResource.get(resourceOf(selection));
        return history != null && version < history.forgottenAt;
    }

    /** The DELETED events after {@code version} of the objects {@code selection} selects, oldest first. */
    synchronized List<String> deletedAfter(long version, AttributeSet selection) {
        History history = byResource.get(resourceOf(selection));
        if (history == null) {
            return List.of();
        }
        List<String> events = new ArrayList<>();
        for (Deletion deletion : history.deletions) {
            if (deletion.version() > version && deletion.key().matches(selection)) {
                events.add("{\"type\":\"DELETED\",\"object\":" + deletion.object() + "}");
            }
        }
        return events;
    }

    /** The resource (plural) a stored object's key or a watch's selection names; every path to a watch names one. */
    private static String resourceOf(AttributeSet set) {
        Attribute plural = set.getAttribute(KubernetesAttributesExtractor.PLURAL);
        return plural == null || plural.getValues().isEmpty() ? "" : plural.getValues().get(0).toString();
    }

    /** The version a watch asks to start after; none (or 0) asks for every object held, announced as ADDED. */
    static OptionalLong fromVersion(String path) {
        Matcher from = FROM_VERSION.matcher(path);
        if (!from.find()) {
            return OptionalLong.empty();
        }
        try {
            long version = Long.parseLong(from.group(1));
            return version > 0 ? OptionalLong.of(version) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * What a watch selects: the path's selection, and the one name its field selector names, if any, as Fabric8 reads
     * it.
     */
    static AttributeSet selection(AttributeSet ofPath, String path) {
        Matcher name = NAME_SELECTOR.matcher(path);
        return name.find()
                ? ofPath.add(new Attribute("name", URLDecoder.decode(name.group(1), StandardCharsets.UTF_8)))
                : ofPath;
    }

    /** A real API server's answer to a watch from a version it no longer has. */
    static MockResponse expired(long version) {
        ObjectNode status = JSON.createObjectNode()
                .put("kind", "Status")
                .put("apiVersion", "v1")
                .put("status", "Failure")
                .put("message", "too old resource version: " + version)
                .put("reason", "Expired")
                .put("code", 410);
        status.putObject("metadata");
        return new MockResponse()
                .setResponseCode(410)
                .setHeader("Content-Type", "application/json")
                .setBody(status.toString());
    }

    /** A stored object's {@code resourceVersion}; the highest there is when it has none to read, so that it is sent. */
    static long versionOf(String object) {
        try {
            return JSON.readTree(object).path("metadata").path("resourceVersion").asLong(Long.MAX_VALUE);
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    private static String stamped(String object, long version) {
        try {
            JsonNode parsed = JSON.readTree(object);
            if (parsed instanceof ObjectNode node) {
                node.with("metadata").put("resourceVersion", String.valueOf(version));
                return node.toString();
            }
            return object;
        } catch (IOException e) {
            throw new UncheckedIOException("the server's own object could not be read", e);
        }
    }

    /**
     * A watch of the dispatcher, opened as soon as it is made on a stand-in socket, which holds what is sent to it
     * until the WebSocket (or the plain-HTTP stream) opens, then passes it on. The deletions after the version asked
     * for go first, then the objects announced at the opening: only those changed since that version
     * ({@link WatchAnnouncement}).
     */
    static final class OpenedWatch extends WebSocketListener {
        private final WebSocketListener dispatcherWatch;
        private final StandIn standIn;

        /**
         * Opens {@code dispatcherWatch}; call it under the dispatcher's read lock, so that no change comes between the
         * deletions told and the objects announced.
         */
        OpenedWatch(WebSocketListener dispatcherWatch, Response response, List<String> deletions) {
            this.dispatcherWatch = dispatcherWatch;
            this.standIn = new StandIn();
            deletions.forEach(standIn::hold);
            dispatcherWatch.onOpen(standIn, response);
        }

        @Override
        public void onBeforeAccept(WebSocket webSocket, Response response) {
            dispatcherWatch.onBeforeAccept(standIn, response);
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            standIn.open(webSocket);
        }

        @Override
        public void onMessage(WebSocket webSocket, String text) {
            dispatcherWatch.onMessage(standIn, text);
        }

        @Override
        public void onMessage(WebSocket webSocket, byte[] bytes) {
            dispatcherWatch.onMessage(standIn, bytes);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            dispatcherWatch.onClosing(standIn, code, reason);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            dispatcherWatch.onClosed(standIn, code, reason);
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable error, Response response) {
            dispatcherWatch.onFailure(standIn, error, response);
        }
    }

    /**
     * The socket the dispatcher's watch sends to: what comes before the real one opens is held, then passed on in
     * order.
     */
    private static final class StandIn implements WebSocket {
        /** More held than this and the socket is taken as never to open (its client left during the handshake). */
        private static final int MOST_HELD = 200_000;
        private final List<String> held = new ArrayList<>();
        private WebSocket socket;
        private boolean closed;

        /** The request of the socket it stands in for, once that is open. */
        @Override
        public synchronized RecordedRequest request() {
            return socket == null ? null : socket.request();
        }

        @Override
        public boolean send(String event) {
            return hold(event);
        }

        synchronized boolean hold(String event) {
            if (closed) {
                return false;
            }
            if (socket == null) {
                if (held.size() >= MOST_HELD) {
                    closed = true;
                    held.clear();
                    return false;
                }
                held.add(event);
                return true;
            }
            return socket.send(event);
        }

        @Override
        public boolean send(byte[] bytes) {
            return send(new String(bytes, StandardCharsets.UTF_8));
        }

        synchronized void open(WebSocket opened) {
            socket = opened;
            held.forEach(opened::send);
            held.clear();
        }

        @Override
        public synchronized boolean close(int code, String reason) {
            closed = true;
            held.clear();
            return socket == null || socket.close(code, reason);
        }
    }
}
