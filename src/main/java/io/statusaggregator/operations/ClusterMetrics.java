package io.statusaggregator.operations;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.statusaggregator.aggregation.ClusterObserver;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The per-cluster metrics on Micrometer's registry: the shell of {@link ClusterSeries}, which decides. A series
 * becomes a gauge when it first appears, its value is set in place after that, and the gauge is removed from the
 * registry ({@link MeterRegistry#remove}) when the series goes: when its cluster is deleted or its partition leaves
 * this instance, no series of it stays behind.
 *
 * <p>Aggregation tells it on its own thread ({@link ClusterObserver}); the registry is worked on a thread of its own
 * ({@code cluster-metrics}), since registering a gauge costs tens of microseconds (2 to 5 s for the 40,000 series of
 * 1,000 clusters, which a rebuild would otherwise add to aggregation's catch-up). What each cluster showed last waits
 * there, the newest replacing an older one, so a backlog holds at most one entry per cluster.
 */
public final class ClusterMetrics implements ClusterObserver, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterMetrics.class);
    /** Waiting in {@link #latest} for a cluster that left. */
    private static final Object LEFT = new Object();

    private final MeterRegistry registry;
    private final ClusterSeries series = new ClusterSeries();
    /** The gauges registered, by series; touched by the metrics thread only. */
    private final Map<ClusterSeries.Series, Value> exported = new HashMap<>();
    private volatile int gauges;
    /** What each cluster showed last ({@link Shown}, or {@link #LEFT}) and the metrics thread has not taken yet. */
    private final Map<ObjectKey, Object> latest = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean draining;
    private final Executor executor;
    private final ExecutorService own;

    /** A gauge's value: set on the metrics thread, read by scrapes. */
    private static final class Value {
        volatile double value;
        Gauge gauge;
    }

    public ClusterMetrics(MeterRegistry registry) {
        this(registry, Executors.newSingleThreadExecutor(DaemonThreads.named("cluster-metrics")));
    }

    /** With {@code executor} doing the registry's work (one task at a time). */
    ClusterMetrics(MeterRegistry registry, Executor executor) {
        this.registry = registry;
        this.executor = executor;
        this.own = executor instanceof ExecutorService service ? service : null;
    }

    @Override
    public void shows(Shown cluster) {
        hand(cluster.cluster(), cluster);
    }

    @Override
    public void left(ObjectKey cluster) {
        hand(cluster, LEFT);
    }

    /** The gauges this instance exports now. */
    public int exported() {
        return gauges;
    }

    /** Whether everything it was told is in the registry. */
    public boolean caughtUp() {
        return latest.isEmpty() && !scheduled.get() && !draining;
    }

    private void hand(ObjectKey cluster, Object what) {
        latest.put(cluster, what);
        if (scheduled.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        draining = true;
        scheduled.set(false); // what is handed from now on schedules another drain
        for (ObjectKey cluster : latest.keySet()) {
            Object what = latest.remove(cluster);
            if (what instanceof Shown shown) {
                carryOut(series.shows(shown));
            } else if (what == LEFT) {
                carryOut(series.left(cluster));
            }
        }
        gauges = exported.size();
        draining = false;
    }

    private void carryOut(List<ClusterSeries.Change> changes) {
        for (ClusterSeries.Change change : changes) {
            try {
                if (change instanceof ClusterSeries.SetTo set) {
                    Value value = exported.get(set.series());
                    if (value == null) {
                        exported.put(set.series(), register(set.series(), set.value()));
                    } else {
                        value.value = set.value();
                    }
                } else if (change instanceof ClusterSeries.Remove remove) {
                    Value value = exported.remove(remove.series());
                    if (value != null) {
                        registry.remove(value.gauge);
                    }
                }
            } catch (RuntimeException e) {
                LOG.warnf("could not export %s: %s", change, e.toString());
            }
        }
    }

    private Value register(ClusterSeries.Series series, double initial) {
        ClusterMetric metric = series.metric();
        List<Tag> tags = new ArrayList<>(metric.labels().size());
        for (int i = 0; i < metric.labels().size(); i++) {
            tags.add(Tag.of(metric.labels().get(i), series.labels().get(i)));
        }
        Value value = new Value();
        value.value = initial;
        value.gauge = Gauge.builder(metric.metricName(), value, v -> v.value).description(metric.help()).tags(tags)
                .strongReference(true).register(registry);
        return value;
    }

    /** Stops the metrics thread; the gauges stay as they are. */
    @Override
    public void close() {
        if (own != null) {
            own.shutdown();
        }
    }
}
