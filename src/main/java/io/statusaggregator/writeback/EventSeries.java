package io.statusaggregator.writeback;

import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What to do with each Event, as client-go's event recorders decide it: the same Event again within
 * {@link #SERIES_WINDOW} of the last is a series (one Event object, its {@code series.count} raised) rather than a new
 * object; and each Cluster may make {@link #BURST} Events at once, then one every {@link #REFILL} (client-go's spam
 * filter), so that a flapping cluster cannot flood etcd. Pure: no clock, no I/O; the recorder passes the time.
 */
@Pure
public final class EventSeries {
    /** client-go's: an isomorphic Event within 6 minutes of the last joins its series. */
    public static final Duration SERIES_WINDOW = Duration.ofMinutes(6);
    /** client-go's spam filter: 25 at once per object, then one every 5 minutes. */
    public static final int BURST = 25;
    public static final Duration REFILL = Duration.ofMinutes(5);
    /** Series and buckets kept at most; the oldest go first (a Cluster quiet for longer starts afresh). */
    static final int KEPT = 20_000;

    /** An Event's identity in a series: the Cluster and what the Event says. */
    public record Key(ObjectKey cluster, StatusEvents.StatusEvent event) {
    }

    /** What to do. */
    public sealed interface Decision {
    }

    /** A new Event object. */
    public record Create(Key key) implements Decision {
    }

    /** Raise the series of the Event object {@code name} to {@code count}, last seen at {@code at}. */
    public record Repeat(String name, int count, Instant at) implements Decision {
    }

    /** Over the Cluster's budget: dropped. */
    public record Drop(Key key) implements Decision {
    }

    private static final class Series {
        String name;
        int count = 1;
        Instant last;
    }

    private static final class Bucket {
        double tokens = BURST;
        Instant refilled;
    }

    private final Map<Key, Series> series = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<ObjectKey, Bucket> buckets = new LinkedHashMap<>(16, 0.75f, true);

    /**
     * Decides one Event at {@code now}. A {@link Create} must be followed by {@link #created} with the object's name.
     */
    public Decision decide(Key key, Instant now) {
        Series known = series.get(key);
        if (known != null && known.name != null && !now.isAfter(known.last.plus(SERIES_WINDOW))) {
            known.count++;
            known.last = now;
            return new Repeat(known.name, known.count, now);
        }
        if (!take(key.cluster(), now)) {
            return new Drop(key);
        }
        Series fresh = new Series();
        fresh.last = now;
        series.put(key, fresh);
        trim(series);
        return new Create(key);
    }

    /** The Event object a {@link Create} made: the series' later repeats raise its count. */
    public void created(Key key, String name) {
        Series made = series.get(key);
        if (made != null) {
            made.name = name;
        }
    }

    /** The series' object is gone (expired on the API server, or its write failed): the next one starts afresh. */
    public void forget(Key key) {
        series.remove(key);
    }

    /**
     * The Cluster is gone: its series and its budget go with it. A Cluster made again under its name is another object
     * (another uid), and client-go keys both by the object's uid: its Events are new objects, not repeats of the old
     * one's, which are attached to the old uid.
     */
    public void forgetCluster(ObjectKey cluster) {
        series.keySet().removeIf(key -> key.cluster().equals(cluster));
        buckets.remove(cluster);
    }

    private boolean take(ObjectKey cluster, Instant now) {
        Bucket bucket = buckets.computeIfAbsent(cluster, c -> new Bucket());
        if (bucket.refilled == null) {
            bucket.refilled = now;
        }
        long elapsed = Duration.between(bucket.refilled, now).toMillis();
        if (elapsed > 0) {
            bucket.tokens = Math.min(BURST, bucket.tokens + (double) elapsed / REFILL.toMillis());
            bucket.refilled = now;
        }
        trim(buckets);
        if (bucket.tokens < 1) {
            return false;
        }
        bucket.tokens--;
        return true;
    }

    private static void trim(Map<?, ?> kept) {
        Iterator<?> oldest = kept.keySet().iterator();
        while (kept.size() > KEPT && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }
}
