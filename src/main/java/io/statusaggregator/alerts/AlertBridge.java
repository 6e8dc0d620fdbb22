package io.statusaggregator.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.statusaggregator.topics.RebuildingConsumer;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.model.json.UnreadableJson;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Alerts from the transitions feed to a Prometheus Alertmanager (API v2): a consumer group of its own, one loop on a
 * daemon thread, {@link ClusterAlerts} deciding what fires.
 *
 * <p><b>State.</b> Alerts depend on each cluster's latest status only, and the transitions topic keeps every event
 * (not compacted, retained), so on assignment each partition is read again from its beginning, without alerting,
 * up to the end offset it had then ({@link RebuildingConsumer}, aggregation's too); only then is anything evaluated,
 * so old history never fires. Events below the partition's committed offset were delivered by whoever committed
 * them: after each of those the cluster counts as having reported what it calls for, so that a recovery past the
 * committed offset is still resolved explicitly. A cluster whose last event the broker's retention removed is
 * unknown; so the retention must exceed the longest time a cluster stays unchanged while alerting (or the alert
 * expires at its {@code endsAt}).
 *
 * <p><b>Delivery and commits.</b> After each poll that brought events, and every {@code evaluationInterval} (Ready's
 * clock runs without events), the state is evaluated: resolved alerts are posted with {@code endsAt} = now, firing
 * ones when new or changed and again every {@code resendInterval}, with {@code endsAt} = now + 3 × resendInterval
 * as Prometheus does (so that they expire if the bridge dies). Offsets are committed (manually) only after
 * Alertmanager answered 2xx to everything an evaluation produced, and then up to the events that evaluation saw.
 * A failed post commits nothing and is retried with exponential backoff. The events already read stay applied
 * rather than being read again: the state is a function of the events, so re-reading them would rebuild the same
 * state, and each retry evaluates the whole state, new events included. Nothing is lost: a crash before the commit
 * replays them; duplicates are fine, Alertmanager merges alerts by their labels.
 *
 * <p>An event that cannot be read (not a CloudEvent, bad JSON, unknown type) is logged with its offset and skipped;
 * its offset is committed with the next delivery.
 */
public final class AlertBridge implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(AlertBridge.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param kafka              Kafka client properties (bootstrap servers, security)
     * @param alertmanager       the Alertmanager's base URL, like {@code http://alertmanager:9093}
     * @param notReadyFor        how long Ready may be False before {@value ClusterAlerts#NOT_READY} fires
     * @param resendInterval     how often a firing alert is posted again
     * @param evaluationInterval how often the state is evaluated without events (how late a Ready alert may fire)
     */
    public record Settings(
            Map<String, Object> kafka,
            String topic,
            String groupId,
            URI alertmanager,
            Duration notReadyFor,
            Duration resendInterval,
            Duration evaluationInterval) {
        public Settings {
            kafka = Map.copyOf(kafka);
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(alertmanager, "alertmanager");
            for (Duration d : List.of(notReadyFor, resendInterval, evaluationInterval)) {
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("durations must be positive, got " + d);
                }
            }
        }
    }

    private final Settings settings;
    private final Clock clock;
    private final AlertmanagerApi alertmanager;
    private final ClusterAlerts alerts;
    private final AtomicLong eventsRead = new AtomicLong();
    private final AtomicLong eventsSkipped = new AtomicLong();
    private final AtomicLong deliveries = new AtomicLong();
    private final AtomicLong failedDeliveries = new AtomicLong();
    private volatile boolean running;
    private volatile boolean caughtUp;
    private KafkaConsumer<String, CloudEvent> consumer;
    /** The consumer, reading each partition assigned again from its beginning before its events are evaluated. */
    private RebuildingConsumer<String, CloudEvent> rebuilding;
    private Thread thread;
    private java.util.function.Consumer<Throwable> onStopped = fault -> { };

    // The loop's own state, touched on its thread only (the rebalance listener runs inside poll).
    /** Whether a partition read again reached its end since the state was last rebuilt: it is, once none is left. */
    private boolean readAgain;
    /** The committed offset each partition had when assigned: events below it were delivered already. */
    private final Map<TopicPartition, Long> deliveredUntil = new HashMap<>();
    /** What this instance committed last, so that only progress is committed. */
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final Map<TopicPartition, Set<String>> clustersOf = new HashMap<>();
    /** When to post and what. */
    private final AlertDelivery delivery;

    public AlertBridge(Settings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.alertmanager = new AlertmanagerApi(settings.alertmanager());
        this.alerts = new ClusterAlerts(settings.notReadyFor());
        this.delivery = new AlertDelivery(settings.resendInterval(), settings.evaluationInterval());
    }

    /**
     * Before {@link #start}: {@code listener} is told, on the bridge's thread, if the loop stops on a fault it does not
     * outlive (an {@code Error}, or Kafka refusing the credentials; any other {@code RuntimeException} is retried):
     * nothing is delivered after it.
     */
    public AlertBridge onStopped(java.util.function.Consumer<Throwable> listener) {
        onStopped = listener;
        return this;
    }

    /** Joins the consumer group and starts the loop on its own thread; returns at once. */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        Map<String, Object> props = new HashMap<>(settings.kafka());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // The topic is the aggregator's to create, with its partitions: a subscriber must not create it first.
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class.getName());
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-alerts-" + ProcessHandle.current().pid());
        consumer = new KafkaConsumer<>(props);
        rebuilding = new RebuildingConsumer<>(consumer, settings.topic(), new Rebalance());
        running = true;
        thread = DaemonThreads.named("alert-bridge").newThread(this::loop);
        thread.start();
    }

    /** Events read from the feed, skipped ones included. */
    public long eventsRead() {
        return eventsRead.get();
    }

    /** Events that could not be read and were skipped. */
    public long eventsSkipped() {
        return eventsSkipped.get();
    }

    /** Evaluations Alertmanager accepted (an evaluation with nothing to post counts too). */
    public long deliveries() {
        return deliveries.get();
    }

    /** Posts Alertmanager did not accept (refused or unreachable). */
    public long failedDeliveries() {
        return failedDeliveries.get();
    }

    /** Whether every assigned partition has been read again up to where it ended at assignment. */
    public boolean caughtUp() {
        return caughtUp;
    }

    private void loop() {
        LOG.infof(
                "alert bridge: topic %s, group %s, Alertmanager %s, not ready for %s",
                settings.topic(), settings.groupId(), settings.alertmanager(), settings.notReadyFor());
        try {
            while (running) {
                try {
                    iteration();
                } catch (WakeupException | InterruptException e) {
                    break;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (AuthenticationException e) {
                    // Retrying would not mend it: credentials come from the pod's environment, read again by a restart.
                    LOG.errorf("alert bridge stopped: Kafka refused its credentials (%s)", e.getMessage());
                    onStopped.accept(e);
                    break;
                } catch (RuntimeException e) {
                    // A broker that went away, a commit refused: the loop must outlive it; nothing was committed.
                    Duration pause = delivery.pauseAfterError();
                    LOG.warnf("alert bridge: %s; trying again in %s", e.toString(), pause);
                    pause(pause);
                }
            }
        } catch (Error fault) { // else the thread would end, leaving a process that runs and delivers nothing
            LOG.error("alert bridge stopped", fault);
            onStopped.accept(fault);
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.debug("closing the consumer", e);
            }
        }
    }

    private void iteration() throws InterruptedException {
        ConsumerRecords<String, CloudEvent> records;
        try {
            records = rebuilding.poll(pollTimeout());
        } catch (RecordDeserializationException e) {
            // Not a CloudEvent: skip it, so that the partition moves on; its offset is committed with the next
            // delivery.
            LOG.warnf(
                    "skipped the event at %s offset %d: not a readable CloudEvent (%s)",
                    e.topicPartition(),
                    e.offset(),
                    e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
            eventsRead.incrementAndGet();
            eventsSkipped.incrementAndGet();
            consumer.seek(e.topicPartition(), e.offset() + 1);
            return;
        }
        for (ConsumerRecord<String, CloudEvent> record : records) {
            take(record);
        }
        readAgain |= !rebuilding.readToEnd().isEmpty();
        if (rebuilding.rebuilding()) {
            return;
        }
        if (readAgain) {
            rebuilt();
        }
        Instant now = clock.instant();
        if (delivery.due(now)) {
            deliver(now);
        }
    }

    private Duration pollTimeout() {
        return rebuilding.rebuilding() ? Duration.ofMillis(100) : delivery.wait(clock.instant());
    }

    private void take(ConsumerRecord<String, CloudEvent> record) {
        eventsRead.incrementAndGet();
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        CloudEvent event = record.value();
        String cluster;
        try {
            if (event == null) {
                throw new ClusterAlerts.MalformedEvent("no value");
            }
            JsonNode data;
            try {
                data = event.getData() == null ? null : JSON.readTree(event.getData().toBytes());
            } catch (JsonProcessingException e) {
                throw new ClusterAlerts.MalformedEvent("the data is not JSON: " + UnreadableJson.problem(e));
            } catch (IOException e) {
                throw new ClusterAlerts.MalformedEvent("the data cannot be read: " + e.getMessage());
            }
            Instant time =
                    event.getTime() != null ? event.getTime().toInstant() : Instant.ofEpochMilli(record.timestamp());
            cluster = alerts.accept(event.getType(), data, time);
        } catch (ClusterAlerts.MalformedEvent | RuntimeException e) {
            LOG.warnf("skipped the event at %s offset %d%s: %s", partition, record.offset(),
                    event == null ? "" : " (id " + event.getId() + ")", e.getMessage());
            eventsSkipped.incrementAndGet();
            return;
        }
        clustersOf.computeIfAbsent(partition, p -> new HashSet<>()).add(cluster);
        if (record.offset() < deliveredUntil.getOrDefault(partition, 0L)) {
            alerts.assumeDelivered(cluster, clock.instant());
        }
        delivery.eventTaken();
    }

    /** Every partition assigned has been read again to the end offset it had then: the state is rebuilt. */
    private void rebuilt() {
        readAgain = false;
        LOG.infof(
                "alert bridge: state rebuilt from partitions %s (clusters known: %d)",
                consumer.assignment(), alerts.clusters());
        delivery.rebuilt();
        caughtUp = true;
    }

    private void deliver(Instant now) throws InterruptedException {
        AlertDelivery.Batch batch = delivery.plan(alerts.evaluate(now), now);
        List<AlertmanagerApi.Posting> postings = new ArrayList<>();
        batch.resolved().forEach(alert -> postings.add(new AlertmanagerApi.Posting(alert, now)));
        batch.sent().forEach(alert -> postings.add(new AlertmanagerApi.Posting(alert, batch.endsAt())));
        try {
            alertmanager.post(postings, now);
        } catch (AlertmanagerApi.DeliveryFailed e) {
            failedDeliveries.incrementAndGet();
            Duration wait = delivery.failed(now);
            LOG.warnf("alert bridge: %s; offsets stay uncommitted, next attempt in %s", e.getMessage(), wait);
            return;
        }
        alerts.delivered(batch.evaluation());
        batch.newlyFiring().forEach(a -> LOG.infof(
                "alert %s firing for %s: %s",
                a.labels().get("alertname"), a.cluster(), a.annotations().get("summary")));
        batch.resolved().forEach(a -> LOG.infof(
                "alert %s resolved for %s (%s)",
                a.labels().get("alertname"), a.cluster(), a.labels().get("condition")));
        deliveries.incrementAndGet();
        if (delivery.delivered(batch, now)) {
            LOG.infof("alert bridge: Alertmanager at %s accepts alerts again", settings.alertmanager());
        }
        commit();
    }

    /** Commits how far each partition was read: everything the delivered evaluation saw. */
    private void commit() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : consumer.assignment()) {
            long position = consumer.position(partition);
            if (position > committed.getOrDefault(partition, -1L)) {
                offsets.put(partition, new OffsetAndMetadata(position));
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
            offsets.forEach((p, o) -> committed.put(p, o.offset()));
        } catch (WakeupException | InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            // The alerts are delivered; the offsets go with the next delivery, or the next owner replays (duplicates).
            LOG.warnf("alert bridge: could not commit offsets %s: %s", offsets, e.toString());
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Told on the loop's thread: what was assigned, before the next poll; what was revoked, inside a poll. */
    private final class Rebalance implements RebuildingConsumer.Partitions {
        @Override
        public void assigned(Map<TopicPartition, Long> ends) {
            // Their committed offsets are known before any of their events is read: those below were delivered.
            Map<TopicPartition, OffsetAndMetadata> committedNow = consumer.committed(ends.keySet());
            for (TopicPartition partition : ends.keySet()) {
                OffsetAndMetadata offset = committedNow.get(partition);
                long delivered = offset == null ? 0 : offset.offset();
                deliveredUntil.put(partition, delivered);
                committed.put(partition, delivered);
            }
            caughtUp = false;
            LOG.infof(
                    "alert bridge: assigned %s; reading them from the beginning to rebuild the clusters' state",
                    ends.keySet());
        }

        @Override
        public void revoked(Collection<TopicPartition> partitions) {
            // Their clusters go to another instance, which rebuilds them: nothing is resolved here.
            for (TopicPartition partition : partitions) {
                for (String cluster : clustersOf.getOrDefault(partition, Set.of())) {
                    alerts.forget(cluster);
                    delivery.forget(cluster);
                }
                clustersOf.remove(partition);
                deliveredUntil.remove(partition);
                committed.remove(partition);
            }
        }
    }

    @Override
    public void close() {
        Thread loop;
        synchronized (this) {
            loop = thread;
            running = false;
        }
        if (loop == null) {
            return;
        }
        consumer.wakeup();
        try {
            loop.join(Duration.ofSeconds(10).toMillis());
            if (loop.isAlive()) {
                loop.interrupt();
                loop.join(Duration.ofSeconds(5).toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
