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
                        client.genericKubernetesResources(ObjectIngest.context(w.kind())).inNamespace(object.path("metadata").path("namespace").asText())
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
                ObjectIngest ingest = new ObjectIngest(client, new ObjectIngest.Settings(FleetWorkload.CAPI, List.of()),
                        onFailure -> new ObjectStatePublisher(producer, topic, onFailure));
                t = System.nanoTime();
                ingest.start().get(10, TimeUnit.MINUTES);
                producer.flush();
                Bench.log("informer memory: ingest listed and published in %.1f s", (System.nanoTime() - t) / 1e9);
                long running = Bench.retainedHeap();
                String histogram = histogram();
                ingest.close();
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

    /** The classes holding most of the heap, from {@code jcmd GC.class_histogram}: the profile behind the figure. */
    private static String histogram() {
        try {
            Process jcmd = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java").replaceAll("java$", "jcmd"),
                    Long.toString(ProcessHandle.current().pid()), "GC.class_histogram").redirectErrorStream(true).start();
            List<String> top = new ArrayList<>();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(jcmd.getInputStream()))) {
                String line;
                while ((line = out.readLine()) != null) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length == 4 && f[0].endsWith(":") && top.size() < 6) {
                        top.add("%s %,d MB".formatted(f[3], Long.parseLong(f[2]) / 1_000_000));
                    }
                }
            }
            jcmd.waitFor(60, TimeUnit.SECONDS);
            return "heap histogram top: " + String.join(", ", top);
        } catch (Exception e) {
            return "no heap histogram (" + e.getMessage() + ")";
        }
    }
}
