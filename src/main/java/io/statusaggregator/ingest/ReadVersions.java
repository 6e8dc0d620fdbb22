package io.statusaggregator.ingest;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.kubernetes.ApiVersionChoice;
import io.statusaggregator.kubernetes.ServedResources;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.jboss.logging.Logger;

/**
 * The API version ingest reads each Cluster API kind at ({@link ApiVersionChoice}), from what discovery says the API
 * server serves: asked at start, every {@code checkEvery}, and at once when a list or watch at the version read is
 * answered 404 (the CRD no longer serves it: Cluster API upgraded). A kind whose choice changes is switched over.
 */
final class ReadVersions implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReadVersions.class);

    private final KubernetesClient client;
    private final ApiVersionChoice.Setting setting;
    private final Duration checkEvery;
    private final List<ObjectKind> kinds;
    private final ScheduledExecutorService thread =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("ingest-versions"));
    private final AtomicBoolean checkQueued = new AtomicBoolean();
    private static final String SETTING = "aggregator.capi.api-version";
    private volatile Map<ObjectKind, String> current;
    private volatile Optional<String> problem = Optional.empty();
    private volatile BiConsumer<ObjectKind, String> switchOver = (kind, version) -> { };

    ReadVersions(KubernetesClient client, ApiVersionChoice.Setting setting, Duration checkEvery,
            List<ObjectKind> kinds) {
        this.client = client;
        this.setting = setting;
        this.checkEvery = checkEvery;
        this.kinds = List.copyOf(kinds);
        this.current = ApiVersionChoice.initial(kinds, setting);
    }

    /** The version {@code kind} is read at now; a kind not followed here, at its own {@link ObjectKind#version()}. */
    String of(ObjectKind kind) {
        return current.getOrDefault(kind, kind.version());
    }

    Map<ObjectKind, String> current() {
        return current;
    }

    /** Why a kind cannot be read at the version it should be (a forced one not served); empty when every one can. */
    Optional<String> problem() {
        return problem;
    }

    /**
     * Decides before the informers are made, on the caller's thread; where discovery does not answer, each kind is
     * read at its oldest version (or the forced one) until a check finds otherwise.
     */
    void decide() {
        check(false);
    }

    /** From now on checks every {@code checkEvery}, and tells {@code switchOver} of each kind to read elsewhere. */
    void follow(BiConsumer<ObjectKind, String> switchOver) {
        this.switchOver = switchOver;
        long every = checkEvery.toMillis();
        thread.scheduleWithFixedDelay(() -> check(true), every, every, TimeUnit.MILLISECONDS);
    }

    /** A list or watch of {@code kind} at the version read was answered 404: checks at once (once for many such). */
    void notServed(ObjectKind kind) {
        if (checkQueued.compareAndSet(false, true)) {
            LOG.debugf("%s.%s is not served at %s; asking discovery", kind.plural(), kind.group(), of(kind));
            thread.execute(() -> {
                checkQueued.set(false);
                check(true);
            });
        }
    }

    private void check(boolean switching) {
        Optional<Map<ObjectKind, Set<String>>> served = served();
        if (served.isEmpty()) {
            return; // the API server does not answer: its informers say so; asked again at the next check
        }
        Map<ObjectKind, ApiVersionChoice.Choice> choices = ApiVersionChoice.decide(served.get(), setting);
        List<String> problems = new ArrayList<>();
        choices.values().forEach(choice -> choice.problem().ifPresent(problem ->
                problems.add(choice.forced() ? problem : "the API server does not serve " + problem)));
        Optional<String> now = problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
        if (!now.equals(problem)) {
            now.ifPresentOrElse(p -> LOG.errorf("%s: ingest cannot read these objects until it does", p),
                    () -> LOG.info("every Cluster API kind is served at the version read again"));
        }
        problem = now;
        Map<ObjectKind, String> before = current;
        Map<ObjectKind, String> next = ApiVersionChoice.next(before, choices.values());
        current = next;
        if (!switching) {
            List<String> read = new ArrayList<>();
            next.forEach((kind, version) -> read.add(kind.plural() + "." + kind.group() + " at " + version));
            LOG.infof("reading %s (%s=%s)", String.join(", ", read), SETTING, setting);
            return;
        }
        next.forEach((kind, version) -> {
            String was = before.get(kind);
            if (!version.equals(was)) {
                LOG.infof("reading %s.%s at %s instead of %s: the API server serves %s (%s=%s)", kind.plural(),
                        kind.group(), version, was, String.join(", ", served.get().get(kind)), SETTING, setting);
                switchOver.accept(kind, version);
            }
        });
    }

    private Optional<Map<ObjectKind, Set<String>>> served() {
        try {
            return ServedResources.versions(client, kinds);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
