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
 * have listed the API server, and then periodically, every key still alive on the topic whose object the API server
 * does not have gets its tombstone.
 */
final class TopicReconciliation {
    private static final Logger LOG = Logger.getLogger(TopicReconciliation.class);

    private TopicReconciliation() {
    }

    /**
     * @param exists whether the API server (as listed by the informers) still has the object of a key
     * @return how many tombstones were sent
     */
    static int tombstoneVanished(Map<String, Object> kafka, String topic, Predicate<ObjectStateKey> exists,
            ObjectStatePublisher publisher, Duration timeout) {
        // Only whether each key is alive: the values (a day of history not compacted yet) are neither copied nor decoded.
        Optional<java.util.Set<String>> live = CompactedTopic.liveKeys(kafka, topic, timeout);
        if (live.isEmpty()) {
            LOG.warnf("could not read %s to its end within %s; deletions from before this start may linger", topic, timeout);
            return 0;
        }
        int sent = 0;
        for (String text : live.get()) {
            Optional<ObjectStateKey> key = ObjectStateKey.parse(text);
            if (key.isPresent() && !exists.test(key.get())) {
                publisher.tombstone(key.get());
                sent++;
            }
        }
        if (sent > 0) {
            LOG.infof("%d keys on %s name objects the API server does not have (deleted while ingest was not running, or "
                    + "written by something else): tombstones sent", sent, topic);
        }
        return sent;
    }

}
