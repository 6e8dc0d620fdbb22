package io.statusaggregator.bench;


import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.ingest.ObjectStatePublisher;
import io.statusaggregator.ingest.ReducedObjectStore;
import io.statusaggregator.model.ObjectKind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Figure 4, ingest side: ingest's informers list a fleet of full objects from an API server, and the heap their caches
 * retain is read with ingest running and after it stopped. The API server is a CRUD mock without CRDs, so that an
 * object's status is stored with its create (one request per object instead of two).
 */
final class InformerMemory {
    record Result(long objects, long machines, long retainedBytes, String histogram) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private InformerMemory() {
    }

    /**
     * The informers' caches at fleet scale without an API server (the CRUD mock slows down with every object it holds,
     * so 100,000 Machines cannot be loaded into it in minutes): each full object deserialised as the client does for
     * an informer, into one store per kind as ingest has one informer per kind: ingest's {@link ReducedObjectStore} (as
     * shipped) or, {@code whole}, Fabric8's default store keeping every object whole (before).
     */
    static Result measureStores(long seed, int clusters, int machinesPerCluster, boolean whole) {
        FleetWorkload workload = new FleetWorkload(seed + 2, clusters, machinesPerCluster);
        List<FleetWorkload.Write> writes = workload.initialFleet();
        var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
        long before = Bench.retainedHeap();
        java.util.Map<String, Long> histogramBefore = histogram();
        java.util.Map<ObjectKind, io.fabric8.kubernetes.client.informers.cache.ItemStore<GenericKubernetesResource>> stores = new java.util.EnumMap<>(ObjectKind.class);
        for (FleetWorkload.Write w : writes) {
            var store = stores.computeIfAbsent(w.kind(), kind -> whole
                    ? new io.fabric8.kubernetes.client.informers.cache.BasicItemStore<>(
                            r -> r.getMetadata().getNamespace() + "/" + r.getMetadata().getName())
                    : new ReducedObjectStore(kind, serialization));
            GenericKubernetesResource resource = serialization.unmarshal(w.object().toString(), GenericKubernetesResource.class);
            store.put(store.getKey(resource), resource);
        }
        long running = Bench.retainedHeap();
        String profile = top(histogram(), histogramBefore);
        int kept = stores.values().stream().mapToInt(io.fabric8.kubernetes.client.informers.cache.ItemStore::size).sum();
        stores.clear();
        long stopped = Bench.retainedHeap();
        if (writes.isEmpty() || kept != writes.size()) {
            throw new IllegalStateException("the stores hold " + kept + " of " + writes.size() + " objects");
        }
        Bench.log("informer stores%s: heap before %,d, filled %,d, emptied %,d", whole ? " (whole objects)" : "", before, running, stopped);
        return new Result(writes.size(), workload.machines(), running - stopped, profile);
    }

    static Result measure(Bench.Broker broker, long seed, int clusters, int machinesPerCluster) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        List<KubernetesClient> clients = new ArrayList<>();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            FleetWorkload workload = new FleetWorkload(seed + 2, clusters, machinesPerCluster);
            long t = System.nanoTime();
            List<FleetWorkload.Write> writes = workload.initialFleet();
            List<Future<?>> done = new ArrayList<>();
            for (int lane = 0; lane < 4; lane++) {
                KubernetesClient client = server.createClient();
                clients.add(client);
                int first = lane;
                done.add(writers.submit(() -> {
                    for (int i = first; i < writes.size(); i += 4) {
                        FleetWorkload.Write w = writes.get(i);
                        ObjectNode object = w.object();
                        client.genericKubernetesResources(FleetWorkload.resource(w.kind()))
                                .inNamespace(object.path("metadata").path("namespace").asText())
                                .resource(JSON.convertValue(object, GenericKubernetesResource.class)).create();
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            Bench.log("informer memory: %,d objects created in the API server in %.1f s", writes.size(), (System.nanoTime() - t) / 1e9);
            String topic = "informer-memory-" + seed;
            broker.createTopics(true, topic);
            KubernetesClient client = server.createClient();
            clients.add(client);
            long before = Bench.retainedHeap();
            try (KafkaProducer<String, String> producer = broker.objectStateProducer()) {
                ObjectIngest[] ingest = {null};
                // This bare mock server answers no discovery: the version the objects were written at is named.
                ingest[0] = new ObjectIngest(client, new ObjectIngest.Settings(FleetWorkload.CAPI, List.of(),
                        java.time.Duration.ofSeconds(30), ObjectIngest.Settings.RECONCILE_EVERY,
                        ObjectIngest.Settings.STUCK_SEND_AFTER,
                        io.statusaggregator.kubernetes.ApiVersionChoice.Setting.V1BETA2,
                        ObjectIngest.Settings.VERSION_CHECK_EVERY),
                        onFailure -> new ObjectStatePublisher(producer, topic, onFailure));
                t = System.nanoTime();
                ingest[0].start().get(10, TimeUnit.MINUTES);
                producer.flush();
                Bench.log("informer memory: ingest listed and published in %.1f s", (System.nanoTime() - t) / 1e9);
                java.util.Map<String, Long> histogramBefore = histogram();
                long running = Bench.retainedHeap();
                String histogram = "";
                ingest[0].close();
                ingest[0] = null; // the stopped informers' stores become garbage
                histogram = top(histogramBefore, histogram());
                long stopped = Bench.retainedHeap();
                Bench.log("informer memory: heap before %,d, running %,d, stopped %,d", before, running, stopped);
                return new Result(writes.size(), workload.machines(), running - stopped, histogram);
            }
        } finally {
            writers.shutdownNow();
            clients.forEach(KubernetesClient::close);
            server.destroy();
        }
    }

    /** Bytes per class from {@code jcmd GC.class_histogram} (after a full GC): the profile behind the figure. */
    private static java.util.Map<String, Long> histogram() {
        java.util.Map<String, Long> bytes = new HashMap<>();
        try {
            Process jcmd = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java").replaceAll("java$", "jcmd"),
                    Long.toString(ProcessHandle.current().pid()), "GC.class_histogram").redirectErrorStream(true).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(jcmd.getInputStream()))) {
                String line;
                while ((line = out.readLine()) != null) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length >= 4 && f[0].endsWith(":")) {
                        bytes.put(f[3], Long.parseLong(f[2]));
                    }
                }
            }
            jcmd.waitFor(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Bench.log("no heap histogram: %s", e.getMessage());
        }
        return bytes;
    }

    /** The classes that grew most from {@code before} to {@code after}. */
    private static String top(java.util.Map<String, Long> after, java.util.Map<String, Long> before) {
        return "grew most: " + after.entrySet().stream()
                .map(e -> java.util.Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .map(e -> "%s %,.1f MB".formatted(e.getKey(), e.getValue() / 1e6)).collect(java.util.stream.Collectors.joining(", "));
    }
}
