package io.statusaggregator.embedded;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * What a new watch is told of the objects held, when the dispatcher's own way tests or sends far more than it needs.
 * Fabric8's mock server (7.5.2) announces every new watch by testing each stored object against it and sending each it
 * selects as ADDED, under its lock and on its one event loop, where every other request waits:
 * <ul>
 * <li>a watch of one object by name (a field selector {@code metadata.name=NAME}, as the CNI observer opens on each
 * cluster's kubeconfig secret) takes 25 to 30 ms with the 1,000-cluster fleet stored, and the CNI observer opens one
 * per cluster when a pipeline starts: 15 to 20 s of the event loop over its first 40 s. Its object is
 * found through the store's name index instead;</li>
 * <li>a watch from a version (an informer's, after its list) is sent every object of its kind, for a stand-in
 * socket to drop those at or before that version: 0.8 to 3.1 s for the fleet's 10,000 Machines. Only those changed
 * since are sent instead, as a real API server sends them ({@link ResumableWatches}).</li>
 * </ul>
 */
final class WatchAnnouncement {
    private static final Field ON_OPEN;
    private static final Method MATCHES;
    private static final Method SEND;

    static {
        try {
            Class<?> listener = Class.forName("io.fabric8.kubernetes.client.server.mock.WatchEventsListener");
            ON_OPEN = listener.getDeclaredField("onOpenAction");
            ON_OPEN.setAccessible(true);
            MATCHES = listener.getDeclaredMethod("attributeMatches", AttributeSet.class);
            MATCHES.setAccessible(true);
            SEND = listener.getDeclaredMethod("sendWebSocketResponse", String.class, Watcher.Action.class);
            SEND.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "this Fabric8 mock server announces its watches in a way it did not: " + e, e);
        }
    }

    private WatchAnnouncement() {
    }

    /**
     * Makes {@code dispatcherWatch} (the dispatcher's, not opened yet) announce, when it opens, those of {@code stored}
     * that it selects, as ADDED, in their order, under {@code readLock} as Fabric8's own announcement is made.
     */
    static void announce(
            WebSocketListener dispatcherWatch, List<Map.Entry<AttributeSet, String>> stored, Lock readLock) {
        Consumer<Object> fromIndex = watch -> {
            readLock.lock();
            try {
                for (Map.Entry<AttributeSet, String> entry : stored) {
                    if ((boolean) MATCHES.invoke(watch, entry.getKey())) {
                        SEND.invoke(watch, entry.getValue(), Watcher.Action.ADDED);
                    }
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } finally {
                readLock.unlock();
            }
        };
        try {
            ON_OPEN.set(dispatcherWatch, fromIndex);
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new IllegalStateException("this Fabric8 mock server's watch is not the one it was: " + e, e);
        }
    }
}
