package io.statusaggregator.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Replaces an informer whose watch has not run for {@code stalledAfter} after it synced by a fresh one, made the same
 * way, which lists the API server; what the old one knew and the new one does not find was deleted meanwhile and
 * goes to the handler's {@code onDelete}. Fabric8's informer lists again when a running watch ends with 410 Gone, but
 * when the server refuses to start a watch from a version it no longer has (HTTP 410 at once), it retries that same
 * version forever (seen with Fabric8 7.5.2), and would miss every change from then on. An informer whose first list
 * failed (the API did not answer) is replaced too, as Fabric8 does not list again then: so a fresh informer made while
 * the API is away does not end the following for good.
 */
public final class StalledWatchGuard {
    private static final Logger LOG = Logger.getLogger(StalledWatchGuard.class);

    private final Duration stalledAfter;
    private final ScheduledExecutorService thread;
    private final Set<GuardedInformer<?>> guarded = ConcurrentHashMap.newKeySet();
    private volatile Consumer<String> relisted = what -> { };

    /**
     * @param thread where the guard looks every second, and tells of the deletions a fresh list finds: a handler may
     *               wait (a send to the broker), which must not hold the client's event loop. Its owner shuts it down.
     */
    public StalledWatchGuard(Duration stalledAfter, ScheduledExecutorService thread) {
        this.stalledAfter = stalledAfter;
        this.thread = thread;
        thread.scheduleWithFixedDelay(this::relistStalled, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * An informer from {@code factory} (which makes each one alike: same resources, same kind of store) with
     * {@code handler} added, guarded until it is closed; not started yet.
     *
     * @param what names the informer's objects in the log, e.g. {@code machines.cluster.x-k8s.io}
     */
    public <T extends HasMetadata> GuardedInformer<T> guard(String what, Supplier<SharedIndexInformer<T>> factory,
            ResourceEventHandler<T> handler) {
        GuardedInformer<T> informer = new GuardedInformer<>(what, factory, handler);
        guarded.add(informer);
        return informer;
    }

    /**
     * Told, on the guard's thread, each time a guarded informer has listed again: a fresh one made here has synced,
     * or Fabric8's own informer was seen without a watch and then with one again (Fabric8 lists before every new
     * watch). A relist over within one of the guard's one-second looks can go unseen.
     */
    public void onRelist(Consumer<String> listener) {
        this.relisted = listener;
    }

    private void relistStalled() {
        long now = System.nanoTime();
        guarded.forEach(informer -> informer.relistIfStalled(now));
    }

    /** An informer and the ones that replaced it: {@link #current()} is the one to read. */
    public final class GuardedInformer<T extends HasMetadata> implements AutoCloseable {
        private final String what;
        private final Supplier<SharedIndexInformer<T>> factory;
        private final ResourceEventHandler<T> handler;
        private volatile SharedIndexInformer<T> current;
        /** The informer whose events are handled: the current one, or the one a switch over is listing. */
        private volatile SharedIndexInformer<T> delivering;
        /** The fresh informer of a {@link #switchOver} while it lists; null otherwise. */
        private SharedIndexInformer<T> pending;
        /** The current informer's start: failed when its first list did. */
        private CompletableFuture<Void> started = new CompletableFuture<>();
        /**
         * What the last informer that listed knew: deletions are found against it, past fresh ones whose list failed.
         */
        private List<T> lastKnown = List.of();
        /** Since when (System.nanoTime) the current informer has had no running watch; null while it has one. */
        private Long notWatchingSince;
        private boolean closed;

        private GuardedInformer(
                String what, Supplier<SharedIndexInformer<T>> factory, ResourceEventHandler<T> handler) {
            this.what = what;
            this.factory = factory;
            this.handler = handler;
            this.current = make();
        }

        /** Made by the factory; its events go to the handler while it is {@link #delivering}. */
        private SharedIndexInformer<T> make() {
            SharedIndexInformer<T> informer = factory.get();
            delivering = informer;
            informer.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(T object) {
                    if (delivering == informer) {
                        handler.onAdd(object);
                    }
                }

                @Override
                public void onUpdate(T before, T after) {
                    if (delivering == informer) {
                        handler.onUpdate(before, after);
                    }
                }

                @Override
                public void onDelete(T object, boolean finalStateUnknown) {
                    if (delivering == informer) {
                        handler.onDelete(object, finalStateUnknown);
                    }
                }
            });
            return informer;
        }

        /**
         * Replaces the informer by a fresh one from the factory, which may make it differently now (another API
         * version of the same objects). Until the fresh one has listed, the one before stays {@link #current()} to be
         * read, its events no longer handled: nothing it holds looks deleted meanwhile. Then what it held and the fresh
         * one does not find goes to {@code onDelete}, as after a relist. The objects themselves, found again, go to
         * {@code onAdd}.
         */
        public synchronized void switchOver() {
            if (closed) {
                return;
            }
            SharedIndexInformer<T> before = current;
            List<T> known = before.hasSynced() ? before.getStore().list() : lastKnown;
            if (pending != null) {
                pending.stop();
            }
            SharedIndexInformer<T> fresh = make();
            pending = fresh;
            fresh.start().toCompletableFuture().whenCompleteAsync((listed, failure) -> {
                synchronized (this) {
                    if (closed || pending != fresh) {
                        return; // closed, or switched over again meanwhile
                    }
                    pending = null;
                    current = fresh;
                    started = failure == null ? CompletableFuture.completedFuture(null)
                            : CompletableFuture.failedFuture(failure);
                    notWatchingSince = null;
                    before.stop();
                    if (failure != null) {
                        lastKnown = known; // the guard lists again, and finds the deletions then
                        return;
                    }
                }
                reportVanished(fresh, known);
            }, thread);
        }

        public SharedIndexInformer<T> current() {
            return current;
        }

        /** Starts the first informer; completes when it has listed its objects. */
        public synchronized CompletableFuture<Void> start() {
            started = current.start().toCompletableFuture();
            return started;
        }

        private synchronized void relistIfStalled(long now) {
            SharedIndexInformer<T> stalled = current;
            if (pending != null) {
                return; // a switch over lists; it replaces this one
            }
            if (closed || !(started.isCompletedExceptionally() || stalled.hasSynced() && !stalled.isWatching())) {
                if (notWatchingSince != null && !closed && stalled.isWatching()) {
                    relisted.accept(what);
                }
                notWatchingSince = null;
                return;
            }
            if (notWatchingSince == null) {
                notWatchingSince = now;
            }
            if (now - notWatchingSince < stalledAfter.toNanos()) {
                return;
            }
            notWatchingSince = null;
            LOG.warnf("the watch on %s has not run for %s; listing them again", what, stalledAfter);
            if (stalled.hasSynced()) {
                lastKnown = stalled.getStore().list();
            }
            List<T> known = lastKnown;
            stalled.stop();
            SharedIndexInformer<T> fresh = make();
            current = fresh;
            started = fresh.start().toCompletableFuture();
            started.thenRunAsync(() -> reportVanished(fresh, known), thread);
        }

        private void reportVanished(SharedIndexInformer<T> fresh, List<T> known) {
            synchronized (this) {
                if (current != fresh) {
                    return; // closed or replaced meanwhile: its user no longer follows these objects
                }
                lastKnown = List.of();
            }
            for (T object : known) {
                if (fresh.getStore().get(object) == null) {
                    handler.onDelete(object, true);
                }
            }
            relisted.accept(what);
        }

        /** Stops the current informer and forgets it. */
        @Override
        public synchronized void close() {
            closed = true;
            guarded.remove(this);
            current.close();
            if (pending != null) {
                pending.close();
                pending = null;
            }
        }
    }
}
