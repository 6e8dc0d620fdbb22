package io.statusaggregator.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.topics.TopicFollower;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;
import io.statusaggregator.topics.StatusChange;

/**
 * What the fleet page shows: every cluster's conditions, live. An adapter on the two feeds: it reads the status topic
 * (the latest document per cluster) and the transitions topic (the last {@value #HISTORY} changes per cluster) from
 * their beginning, without a consumer group (every instance shows the whole fleet), and hands each change to the
 * page's open event streams ({@link FleetResource} serves them over HTTP, with the page's assets).
 *
 * <p>A cluster as served: {@code {key, document, progress}}, the document as the status topic holds it and the
 * progress (control plane and workers, ready and desired) of its latest change event, or null before one is read.
 * A singleton, not a client proxy: {@code run} stops it while Quarkus stops, after its contexts have ended.
 */
@Singleton
public class FleetPage {
    private static final Logger LOG = Logger.getLogger(FleetPage.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Change events kept per cluster. */
    static final int HISTORY = 50;
    private static final Duration KEEPALIVE = Duration.ofSeconds(15);

    /** An open event stream: a browser showing the page. */
    public interface Stream {
        /** Sends one server-sent event; without blocking. */
        void send(String event, String data);

        /** A comment line, which keeps proxies from closing an idle stream. */
        void keepalive();

        /** Whether the browser has fallen too far behind: it is then dropped (see {@link #broadcast}). */
        boolean behind();

        void close();
    }

    /**
     * Every change and every write to the event streams happens under this object's lock: each stream sees the
     * snapshot and then the changes in topic order.
     */
    private final Map<String, ObjectNode> documents = new HashMap<>();
    private final Map<String, JsonNode> progress = new HashMap<>();
    /** Newest first; each list replaced, never changed, so that readers on other threads see whole lists. */
    private final Map<String, List<ObjectNode>> history = new ConcurrentHashMap<>();
    private final Set<Stream> streams = new LinkedHashSet<>();

    private final List<TopicFollower<?>> readers = new ArrayList<>();
    private volatile boolean running;
    private ScheduledExecutorService keepalive;

    /** Starts reading both topics, each on its own daemon thread, and the keepalive of the event streams. */
    public synchronized void start(Map<String, Object> kafka, String statusesTopic, String transitionsTopic) {
        if (running) {
            throw new IllegalStateException("the fleet page is already reading " + statusesTopic);
        }
        running = true;
        documents.clear();
        progress.clear();
        history.clear();
        readers.add(new TopicFollower<>(kafka, "fleet-page-statuses", statusesTopic, new StringDeserializer(),
                records -> onBatch(records, this::onStatus)));
        readers.add(new TopicFollower<>(kafka, "fleet-page-transitions", transitionsTopic, new CloudEventDeserializer(),
                records -> onBatch(records, this::onTransition)));
        readers.forEach(TopicFollower::start);
        keepalive = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("fleet-page-keepalive"));
        keepalive.scheduleAtFixedRate(
                this::keepalive, KEEPALIVE.toMillis(), KEEPALIVE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether the page has its feeds: {@code run} starts it once the pipeline runs. */
    public boolean started() {
        return running;
    }

    private synchronized <V> void onBatch(
            List<ConsumerRecord<String, V>> records, Consumer<ConsumerRecord<String, V>> each) {
        records.forEach(each);
    }

    /** Opens a stream: it gets {@code snapshot} (every cluster) first, then every change. */
    public synchronized void open(Stream stream) {
        streams.add(stream);
        stream.send("snapshot", snapshot().toString());
    }

    public synchronized void closed(Stream stream) {
        streams.remove(stream);
    }

    /** Every cluster, sorted by {@code namespace/name}. */
    public synchronized ArrayNode snapshot() {
        ArrayNode clusters = JsonNodeFactory.instance.arrayNode();
        new TreeMap<>(documents).forEach((key, document) -> clusters.add(cluster(key, document)));
        return clusters;
    }

    /**
     * That cluster's recent changes, newest first; empty when the page has neither a status nor a change of it (see
     * {@link #read} for whether it could yet).
     */
    public Optional<ObjectNode> transitions(String key) {
        List<ObjectNode> changes = history.get(key);
        boolean known;
        synchronized (this) {
            known = documents.containsKey(key);
        }
        if (changes == null && !known) {
            return Optional.empty();
        }
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("cluster", key);
        ArrayNode events = body.putArray("events");
        (changes == null ? List.<ObjectNode>of() : changes).forEach(events::add);
        return Optional.of(body);
    }

    /** The cluster's status on the status topic (the aggregator's verdict), if the page has one. */
    public synchronized Optional<JsonNode> status(String key) {
        return Optional.ofNullable(documents.get(key)).map(document -> document.get("status"))
                .filter(JsonNode::isObject);
    }

    /** Whether the page has read both topics to the ends they had when it found their partitions. */
    public synchronized boolean read() {
        return running && readers.stream().allMatch(TopicFollower::caughtUp);
    }

    private ObjectNode cluster(String key, ObjectNode document) {
        ObjectNode cluster = JsonNodeFactory.instance.objectNode().put("key", key);
        cluster.set("document", document);
        cluster.set("progress", progress.getOrDefault(key, JsonNodeFactory.instance.nullNode()));
        return cluster;
    }

    private void onStatus(ConsumerRecord<String, String> record) {
        String key = record.key();
        if (key == null) {
            return;
        }
        if (record.value() == null) {
            documents.remove(key);
            progress.remove(key);
            broadcast("deleted", () -> JsonNodeFactory.instance.objectNode().put("key", key).toString());
            return;
        }
        JsonNode document;
        try {
            document = JSON.readTree(record.value());
        } catch (IOException e) {
            LOG.warnf(
                    "skipped a record of %s on topic %s at offset %d: not JSON", key, record.topic(), record.offset());
            return;
        }
        if (!document.isObject()) {
            return;
        }
        documents.put(key, (ObjectNode) document);
        broadcast("status", () -> cluster(key, (ObjectNode) document).toString());
    }

    private void onTransition(ConsumerRecord<String, CloudEvent> record) {
        CloudEvent event = record.value();
        if (event == null || event.getSubject() == null || event.getData() == null) {
            return;
        }
        String key = event.getSubject();
        JsonNode data;
        try {
            data = JSON.readTree(event.getData().toBytes());
        } catch (IOException e) {
            LOG.warnf("skipped event %s of %s on topic %s: its data is not JSON", event.getId(), key, record.topic());
            return;
        }
        // What the page lists: the change, not the whole statuses before and after it.
        ObjectNode entry = JsonNodeFactory.instance.objectNode();
        entry.put("id", event.getId());
        entry.put("type", event.getType());
        entry.put("time", event.getTime() != null ? event.getTime().toInstant().toString()
                : Instant.ofEpochMilli(record.timestamp()).toString());
        entry.put("generation", data.path("generation").asLong());
        if (data.has("observedGeneration")) {
            entry.put("observedGeneration", data.path("observedGeneration").asLong());
        }
        entry.set(
                "transitions",
                data.path("transitions").isArray() ? data.get("transitions") : JsonNodeFactory.instance.arrayNode());
        entry.set(
                "progress",
                data.path("progress").isObject() ? data.get("progress") : JsonNodeFactory.instance.nullNode());
        if (StatusChange.DELETED.equals(event.getType())) {
            // The cluster is gone: its history goes with it, and a cluster made again under its name starts afresh.
            history.remove(key);
            progress.remove(key);
        } else {
            List<ObjectNode> kept = new ArrayList<>(HISTORY);
            kept.add(entry);
            history.getOrDefault(key, List.of()).stream().limit(HISTORY - 1).forEach(kept::add);
            history.put(key, List.copyOf(kept));
            if (entry.get("progress").isObject()) {
                progress.put(key, entry.get("progress"));
            }
        }
        broadcast("transition", () -> entry.deepCopy().put("key", key).toString());
    }

    /**
     * A browser that does not keep up is dropped rather than buffered for: its page reconnects by itself and starts
     * again from a snapshot, which loses nothing. The event is written out only when a page is open: most of the time
     * none is, and writing out every change for nobody was a good part of the page's readers' work.
     */
    private synchronized void broadcast(String event, Supplier<String> written) {
        if (streams.isEmpty()) {
            return;
        }
        String data = written.get();
        for (Stream stream : List.copyOf(streams)) {
            if (stream.behind()) {
                streams.remove(stream);
                stream.close();
            } else {
                stream.send(event, data);
            }
        }
    }

    private synchronized void keepalive() {
        streams.forEach(Stream::keepalive);
    }

    /** Stops reading the feeds and ends every open stream. */
    public void stop() {
        List<TopicFollower<?>> stopping;
        synchronized (this) {
            running = false;
            stopping = List.copyOf(readers);
            readers.clear();
            if (keepalive != null) {
                keepalive.shutdownNow();
            }
        }
        // Outside the lock: a reader may be waiting for it to hand over its last batch.
        stopping.forEach(TopicFollower::close);
        synchronized (this) {
            List.copyOf(streams).forEach(Stream::close);
            streams.clear();
        }
    }
}
