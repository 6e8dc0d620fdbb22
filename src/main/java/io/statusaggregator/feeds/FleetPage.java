package io.statusaggregator.feeds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.statusaggregator.DaemonThreads;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * The fleet page: every cluster's conditions in a browser, live. An adapter on the two feeds: it reads the status topic
 * (the latest document per cluster) and the transitions topic (the last {@value #HISTORY} changes per cluster) from
 * their beginning, without a consumer group (every instance shows the whole fleet), and serves
 *
 * <ul>
 * <li>{@code GET /} and {@code GET /fleet}: the page (HTML, JS and CSS from {@code fleet/} on the classpath);</li>
 * <li>{@code GET /fleet/clusters}: every cluster, as JSON;</li>
 * <li>{@code GET /fleet/events}: server-sent events: {@code snapshot} (every cluster), then {@code status} for each
 * status published, {@code deleted} for each tombstone and {@code transition} for each change event;</li>
 * <li>{@code GET /fleet/clusters/:namespace/:name/transitions}: that cluster's recent changes, newest first.</li>
 * </ul>
 *
 * <p>A cluster as served: {@code {key, document, progress}}, the document as the status topic holds it and the
 * progress (control plane and workers, ready and desired) of its latest change event, or null before one is read.
 */
public final class FleetPage implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FleetPage.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Change events kept per cluster. */
    static final int HISTORY = 50;
    private static final long KEEPALIVE_MS = 15_000;
    /** How often the topics' partitions are listed again: partitions are rarely added. */
    private static final Duration PARTITION_CHECK = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Map<String, String> ASSETS = Map.of(
            "index.html", "text/html; charset=utf-8",
            "fleet.js", "text/javascript; charset=utf-8",
            "fleet.css", "text/css; charset=utf-8");

    private final Vertx vertx;
    private final Map<String, Object> kafka;
    private final String statusesTopic;
    private final String transitionsTopic;
    /**
     * One context for every change and every write to the event streams: the Kafka threads hand their records to it,
     * so each stream sees the snapshot and then the changes in topic order, and the state below has a single writer.
     */
    private final Context context;
    private final Map<String, Buffer> assets = new HashMap<>();

    private final Map<String, ObjectNode> documents = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> progress = new ConcurrentHashMap<>();
    /** Newest first; each list replaced, never changed, so that readers on other threads see whole lists. */
    private final Map<String, List<ObjectNode>> history = new ConcurrentHashMap<>();
    private final Set<HttpServerResponse> streams = ConcurrentHashMap.newKeySet();

    private final List<TopicReader<?>> readers = new ArrayList<>();
    private volatile boolean running;
    private long keepalive = -1;

    public FleetPage(Vertx vertx, Map<String, Object> kafka, String statusesTopic, String transitionsTopic) {
        this.vertx = vertx;
        this.kafka = Map.copyOf(kafka);
        this.statusesTopic = statusesTopic;
        this.transitionsTopic = transitionsTopic;
        this.context = vertx.getOrCreateContext();
        ASSETS.keySet().forEach(name -> assets.put(name, asset(name)));
    }

    private static Buffer asset(String name) {
        try (InputStream in = FleetPage.class.getClassLoader().getResourceAsStream("fleet/" + name)) {
            if (in == null) {
                throw new IllegalStateException("fleet/" + name + " is missing from the classpath");
            }
            return Buffer.buffer(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts reading both topics, each on its own daemon thread, and the keepalive of the event streams. */
    public void start() {
        running = true;
        readers.add(new TopicReader<>("fleet-page-statuses", statusesTopic, new StringDeserializer(),
                records -> context.runOnContext(v -> records.forEach(this::onStatus))));
        readers.add(new TopicReader<>("fleet-page-transitions", transitionsTopic, new CloudEventDeserializer(),
                records -> context.runOnContext(v -> records.forEach(this::onTransition))));
        readers.forEach(TopicReader::start);
        context.runOnContext(v -> keepalive = vertx.setPeriodic(KEEPALIVE_MS, id -> broadcast(": keepalive\n\n")));
    }

    public void addTo(Router router) {
        router.get("/").handler(context -> asset(context, "index.html"));
        router.get("/fleet").handler(context -> asset(context, "index.html"));
        router.get("/fleet/").handler(context -> asset(context, "index.html"));
        router.get("/fleet/fleet.js").handler(context -> asset(context, "fleet.js"));
        router.get("/fleet/fleet.css").handler(context -> asset(context, "fleet.css"));
        router.get("/fleet/clusters").handler(context -> json(context, 200, snapshot()));
        router.get("/fleet/events").handler(this::events);
        router.get("/fleet/clusters/:namespace/:name/transitions").handler(this::transitions);
    }

    private void asset(RoutingContext routing, String name) {
        routing.response().putHeader("Content-Type", ASSETS.get(name)).putHeader("Cache-Control", "no-cache").end(assets.get(name));
    }

    private void events(RoutingContext routing) {
        HttpServerResponse response = routing.response();
        response.setChunked(true)
                .putHeader("Content-Type", "text/event-stream; charset=utf-8")
                .putHeader("Cache-Control", "no-cache")
                // Reverse proxies that buffer (nginx) would hold the stream back.
                .putHeader("X-Accel-Buffering", "no");
        // Sends the headers at once, so the browser shows the stream open before the first change.
        response.write("retry: 2000\n\n");
        response.closeHandler(v -> streams.remove(response));
        context.runOnContext(v -> {
            if (response.closed()) {
                return;
            }
            streams.add(response);
            write(response, "event: snapshot\ndata: " + snapshot() + "\n\n");
        });
    }

    private void transitions(RoutingContext routing) {
        String key = routing.pathParam("namespace") + "/" + routing.pathParam("name");
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("cluster", key);
        ArrayNode events = body.putArray("events");
        history.getOrDefault(key, List.of()).forEach(events::add);
        json(routing, 200, body);
    }

    /** Every cluster, sorted by {@code namespace/name}. */
    private ArrayNode snapshot() {
        ArrayNode clusters = JsonNodeFactory.instance.arrayNode();
        new TreeMap<>(documents).forEach((key, document) -> clusters.add(cluster(key, document)));
        return clusters;
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
            broadcast("event: deleted\ndata: " + JsonNodeFactory.instance.objectNode().put("key", key) + "\n\n");
            return;
        }
        JsonNode document;
        try {
            document = JSON.readTree(record.value());
        } catch (IOException e) {
            LOG.warnf("skipped a record of %s on topic %s at offset %d: not JSON", key, statusesTopic, record.offset());
            return;
        }
        if (!document.isObject()) {
            return;
        }
        documents.put(key, (ObjectNode) document);
        broadcast("event: status\ndata: " + cluster(key, (ObjectNode) document) + "\n\n");
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
            LOG.warnf("skipped event %s of %s on topic %s: its data is not JSON", event.getId(), key, transitionsTopic);
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
        entry.set("transitions", data.path("transitions").isArray() ? data.get("transitions") : JsonNodeFactory.instance.arrayNode());
        entry.set("progress", data.path("progress").isObject() ? data.get("progress") : JsonNodeFactory.instance.nullNode());
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
        ObjectNode message = entry.deepCopy().put("key", key);
        broadcast("event: transition\ndata: " + message + "\n\n");
    }

    /** On the context. */
    private void broadcast(String frame) {
        for (HttpServerResponse response : List.copyOf(streams)) {
            write(response, frame);
        }
    }

    /**
     * A browser that does not keep up is dropped rather than buffered for: its page reconnects by itself and starts
     * again from a snapshot, which loses nothing.
     */
    private void write(HttpServerResponse response, String frame) {
        if (response.closed() || response.ended()) {
            streams.remove(response);
            return;
        }
        if (response.writeQueueFull()) {
            streams.remove(response);
            response.close();
            return;
        }
        response.write(frame);
    }

    private static void json(RoutingContext routing, int code, JsonNode body) {
        routing.response().setStatusCode(code).putHeader("Content-Type", "application/json").putHeader("Cache-Control", "no-cache")
                .end(body.toString());
    }

    @Override
    public void close() {
        running = false;
        readers.forEach(TopicReader::close);
        readers.clear();
        context.runOnContext(v -> {
            if (keepalive >= 0) {
                vertx.cancelTimer(keepalive);
            }
            List.copyOf(streams).forEach(response -> {
                streams.remove(response);
                if (!response.ended() && !response.closed()) {
                    response.end();
                }
            });
        });
    }

    /**
     * One topic read from its beginning and followed: every partition assigned (no group: this reader wants them
     * all), the partitions listed again now and then to pick up new ones, each batch handed to {@code batch}.
     */
    private final class TopicReader<V> {
        private final String topic;
        private final KafkaConsumer<String, V> consumer;
        private final Consumer<List<ConsumerRecord<String, V>>> batch;
        private final Thread thread;

        TopicReader(String name, String topic, Deserializer<V> values, Consumer<List<ConsumerRecord<String, V>>> batch) {
            this.topic = topic;
            this.batch = batch;
            Map<String, Object> props = new HashMap<>(kafka);
            props.remove(ConsumerConfig.GROUP_ID_CONFIG);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            // Asking for a missing topic must not create it (uncompacted): the pipeline creates the topics.
            props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-" + name + "-" + ProcessHandle.current().pid());
            this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), values);
            this.thread = DaemonThreads.named(name).newThread(this::run);
        }

        void start() {
            thread.start();
        }

        private void run() {
            Set<TopicPartition> assigned = new HashSet<>();
            long nextCheck = 0;
            try {
                while (running) {
                    try {
                        if (System.nanoTime() - nextCheck >= 0) {
                            assignNew(assigned);
                            // Until the topic exists, look again soon.
                            nextCheck = System.nanoTime() + (assigned.isEmpty() ? Duration.ofSeconds(1) : PARTITION_CHECK).toNanos();
                        }
                        if (assigned.isEmpty()) {
                            Thread.sleep(200);
                            continue;
                        }
                        ConsumerRecords<String, V> records = consumer.poll(POLL);
                        if (!records.isEmpty()) {
                            List<ConsumerRecord<String, V>> list = new ArrayList<>(records.count());
                            records.forEach(list::add);
                            batch.accept(list);
                        }
                    } catch (RecordDeserializationException e) {
                        // Not an event this page can read: skipped, the topic goes on.
                        LOG.warnf("skipped a record of topic %s at %s offset %d: %s", topic, e.topicPartition(), e.offset(), e.getMessage());
                        consumer.seek(e.topicPartition(), e.offset() + 1);
                    } catch (WakeupException e) {
                        return;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    } catch (RuntimeException e) {
                        if (!running) {
                            return;
                        }
                        // The broker away or a transient error: the page goes on showing what it has and tries again.
                        LOG.warnf("fleet page: reading topic %s failed, retrying: %s", topic, e.toString());
                        sleepQuietly(Duration.ofSeconds(1));
                    }
                }
            } finally {
                consumer.close(Duration.ofSeconds(1));
            }
        }

        private void assignNew(Set<TopicPartition> assigned) {
            Collection<TopicPartition> all = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toSet());
            List<TopicPartition> added = all.stream().filter(p -> !assigned.contains(p)).toList();
            if (added.isEmpty()) {
                return;
            }
            assigned.addAll(added);
            // assign() keeps the positions of partitions already assigned; only the new ones start from the beginning.
            consumer.assign(assigned);
            consumer.seekToBeginning(added);
        }

        private void sleepQuietly(Duration duration) {
            try {
                Thread.sleep(duration.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void close() {
            // Wakes the reader out of poll or partitionsFor; an interrupt would leave the consumer unable to close.
            consumer.wakeup();
            try {
                thread.join(Duration.ofSeconds(3).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
