package io.statusaggregator.bench;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.writeback.StatusWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Status writes that go nowhere: counted, and the last one of each cluster kept for the check of the results. */
final class CountingDestination implements StatusWriter.Destination {
    private final AtomicLong writes = new AtomicLong();
    private final Map<String, ClusterStatus> last = new ConcurrentHashMap<>();

    @Override
    public StatusWriter.Stored write(ObjectKey cluster, ClusterStatus status, String expectedVersion) {
        writes.incrementAndGet();
        last.put(cluster.name(), status);
        return new StatusWriter.Stored(status, ""); // no version: the next write has the Cluster's own as its condition
    }

    long writes() {
        return writes.get();
    }

    /** The last status written of each cluster, by name. */
    Map<String, ClusterStatus> statuses() {
        return last;
    }

    /** Forgets the statuses kept for the check: the harness's copy, out of a measured heap. */
    void forgetStatuses() {
        last.clear();
    }
}
