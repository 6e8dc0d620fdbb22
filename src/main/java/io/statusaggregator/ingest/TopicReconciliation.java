package io.statusaggregator.ingest;


import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * Keys on the compacted topic whose objects the API server does not have. An informer reports the deletions it sees
 * and those it missed while its watch was down, but a freshly started one has seen nothing, so the objects deleted
 * before it started would live on in the topic; and anything but ingest may write a record there. Once the informers
 * have listed the API server, and after every relist, the whole topic is checked: every key still alive on it whose
 * object the API server does not have gets its tombstone. Between those, the periodic check reads only the records
 * written since the last check read the topic to its end: a key alive then was checked then, and one written since is
 * among them (a whole day of history not compacted yet, read every five minutes, was a second of a replica's CPU).
 */
final class TopicReconciliation {
    private static final Logger LOG = Logger.getLogger(TopicReconciliation.class);

    /** Each partition's end when the topic was last read to it; empty until then (the next check is whole). */
    private Map<Integer, Long> checkedUpTo = Map.of();

    /**
     * @param exists whether the API server (as listed by the informers) still has the object of a key
     * @param whole  the whole topic, rather than what was written since the last check
     * @return how many tombstones were sent
     */
    synchronized int tombstoneVanished(Map<String, Object> kafka, String topic, Predicate<ObjectStateKey> exists,
            ObjectStatePublisher publisher, Duration timeout, boolean whole) {
        // Only whether each key is alive: the values are neither copied nor decoded.
        Optional<CompactedTopic.LiveKeys> read = CompactedTopic.liveKeysSince(kafka, topic, whole ? Map.of() : checkedUpTo, timeout);
        if (read.isEmpty()) {
            LOG.warnf("could not read %s to its end within %s; deletions from before this start may linger", topic, timeout);
            return 0;
        }
        int sent = 0;
        for (String text : read.get().live()) {
            Optional<ObjectStateKey> key = ObjectStateKey.parse(text);
            if (key.isPresent() && !exists.test(key.get())) {
                publisher.tombstone(key.get());
                sent++;
            }
        }
        checkedUpTo = read.get().ends();
        if (sent > 0) {
            LOG.infof("%d keys on %s name objects the API server does not have (deleted while ingest was not running, or "
                    + "written by something else): tombstones sent", sent, topic);
        }
        return sent;
    }
}
