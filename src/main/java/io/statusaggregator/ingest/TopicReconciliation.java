package io.statusaggregator.ingest;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.jboss.logging.Logger;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * Keys on the compacted topic whose objects the API server does not have. An informer reports the deletions it sees
 * and those it missed while its watch was down, but a freshly started one has seen nothing, so the objects deleted
 * before it started would live on in the topic; and anything but ingest may write a record there. Once the informers
 * have listed the API server, and after every relist, the whole topic is checked: every key still alive on it whose
 * object the API server does not have gets its tombstone. Between those, the periodic check reads only the records
 * written since the last check read the topic to its end: a key alive then was checked then, and one written since is
 * among them (a whole day of history not compacted yet, read every five minutes, was a second of a replica's CPU).
 * The same reading finds the converse: a tombstone something else wrote for an object the API server has, whose state
 * is then sent again; and a whole check, an object the informers hold that has no record on the topic at all (the
 * topic deleted and made again, a record lost to an unclean leader election, a send lost), whose state is sent.
 */
final class TopicReconciliation {
    private static final Logger LOG = Logger.getLogger(TopicReconciliation.class);

    /** Each partition's end when the topic was last read to it; empty until then (the next check is whole). */
    private Map<Integer, Long> checkedUpTo = Map.of();

    /**
     * @param exists whether the API server (as listed by the informers) still has the object of a key
     * @param whole  the whole topic, rather than what was written since the last check
     * @param resend   sends the current state of an object the topic lacks where its cluster's records go; false when
     *                 it cannot
     * @param held     the keys of the objects the informers hold: on a whole check, each that has no record on the
     *                 topic is sent
     * @return how many records were sent: tombstones, and states sent again because the topic's latest record of an
     *         existing object was a tombstone
     */
    synchronized int tombstoneVanished(Map<String, Object> kafka, String topic, Predicate<ObjectStateKey> exists,
            ObjectStatePublisher publisher, Predicate<ObjectStateKey> resend, Collection<ObjectStateKey> held,
            Duration timeout, boolean whole) {
        // Only whether each key is alive: the values are neither copied nor decoded.
        Optional<CompactedTopic.LiveKeys> read =
                CompactedTopic.liveKeysSince(kafka, topic, whole ? Map.of() : checkedUpTo, timeout);
        if (read.isEmpty()) {
            LOG.warnf(
                    "could not read %s to its end within %s; deletions from before this start may linger",
                    topic, timeout);
            return 0;
        }
        int partitionCount = read.get().ends().size();
        int vanished = 0;
        int misplaced = 0;
        for (Map.Entry<String, Set<Integer>> live : read.get().partitions().entrySet()) {
            Optional<ObjectStateKey> parsed = ObjectStateKey.parse(live.getKey());
            if (parsed.isEmpty()) {
                continue; // aggregation dead-letters it; no object of ours is there to forget
            }
            ObjectStateKey key = parsed.get();
            int routed = ObjectStateKey.partitionOf(key.clusterName(), partitionCount);
            boolean there = exists.test(key);
            for (int partition : live.getValue()) {
                if (partition != routed) {
                    // Not where ingest sends its cluster's records: something else wrote it, or the topic has gained
                    // partitions since. The owner of that partition would read it as its own.
                    publisher.tombstone(key, partition);
                    misplaced++;
                } else if (!there) {
                    publisher.tombstone(key);
                    vanished++;
                }
            }
            if (there && !live.getValue().contains(routed)) {
                resend.test(key); // its state where it belongs
            }
        }
        // A tombstone where its cluster's records go, for an object the API server has: written by something else
        // (ingest
        // sends one only once its informer has lost the object), it made aggregation forget a live object.
        int revived = 0;
        for (Map.Entry<String, Set<Integer>> dead : read.get().tombstoned().entrySet()) {
            Optional<ObjectStateKey> parsed = ObjectStateKey.parse(dead.getKey());
            if (parsed.isPresent()
                    && dead.getValue()
                            .contains(
                                    ObjectStateKey.partitionOf(parsed.get().clusterName(), partitionCount))
                    && exists.test(parsed.get())
                    && resend.test(parsed.get())) {
                revived++;
            }
        }
        int missing = 0;
        if (whole) {
            for (ObjectStateKey key : held) {
                String encoded = key.encode();
                if (!read.get().partitions().containsKey(encoded) && !read.get().tombstoned().containsKey(encoded)
                        && resend.test(key)) {
                    missing++;
                }
            }
        }
        checkedUpTo = read.get().ends();
        if (vanished > 0) {
            LOG.infof(
                    "%d keys on %s name objects the API server does not have (deleted while ingest was not running, or "
                            + "written by something else): tombstones sent",
                    vanished, topic);
        }
        if (misplaced > 0) {
            LOG.infof(
                    "%d records on %s are on a partition their cluster is not routed to (written by something else, or"
                        + " before the topic gained partitions): tombstones sent there, the objects' states sent where"
                        + " they belong",
                    misplaced, topic);
        }
        if (revived > 0) {
            LOG.infof(
                    "%d objects the API server has were tombstoned on %s by something but ingest: their states sent"
                            + " again",
                    revived, topic);
        }
        if (missing > 0) {
            LOG.infof("%d objects the API server has had no record on %s (the topic made again, or records lost): "
                    + "their states sent", missing, topic);
        }
        return vanished + misplaced + revived + missing;
    }
}
