package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.access.AccessReviews;
import io.statusaggregator.access.KubernetesUser;
import io.statusaggregator.access.RequiredAccess;
import io.statusaggregator.management.CompatibilityConfigMap;
import io.statusaggregator.deploy.Manifests;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.describe.ClusterTree;
import io.statusaggregator.deploy.ShippedRbac;
import io.statusaggregator.deploy.ShippedRbac.Grant;
import io.statusaggregator.deploy.ShippedRbac.Request;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.ingest.IngestLeadership;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.preflight.UpgradeCheck;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped RBAC (deploy/kubernetes, as {@code kubectl kustomize} builds it) against what the application asks of
 * the API server: every request the application's clients make to the management cluster's API through a full
 * scenario is recorded, mapped to the (verb, API group, resource/subresource, namespace, name) the API server
 * authorizes, and checked (a) granted to the Deployment's ServiceAccount, and (b) the other way round, every verb
 * granted on every resource (and every resourceName) used by some request: nothing is granted that is not used.
 *
 * <p>The scenario: two replicas with ingest under leader election (the Lease in the application's namespace, named
 * as the Deployment configures it), the compatibility ConfigMap followed, a cluster created by the test and brought
 * to Ready (status written; its CNI observed in a workload cluster through its kubeconfig secret), the ConfigMap
 * created, the upgrade check's reads (the endpoint's, and the command's run in a pod), the cluster view's reads (the
 * fleet page's tree, and describe's), the cluster deleted, the leader stopped (the other takes the Lease over), then
 * the other stopped (Lease released).
 *
 * <p>What is counted: the embedded API server tells the test of every request it receives; only those carrying the
 * header {@link #CLIENT_HEADER}, which the application's clients (and the clients the application derives from them,
 * such as the status writer's) send, are counted. The test's own fixture client sends none, and the workload
 * clusters are other servers. Requests for API discovery ({@code /api}, {@code /apis}, {@code /version}: non-resource
 * URLs) need no grant: the default ClusterRole {@code system:discovery} gives them to every authenticated user.
 */
class RbacTest {
    /** No rate on the reviews: what is asked here is which requests they make (a rate needs the application's CDI). */
    private static final io.smallrye.faulttolerance.api.Guard UNLIMITED = new io.smallrye.faulttolerance.api.Guard() {
        @Override
        public <T> T call(java.util.concurrent.Callable<T> action, Class<T> type) throws Exception {
            return action.call();
        }

        @Override
        public <T> T call(java.util.concurrent.Callable<T> action, jakarta.enterprise.util.TypeLiteral<T> type) throws Exception {
            return action.call();
        }

        @Override
        public <T> T get(java.util.function.Supplier<T> action, Class<T> type) {
            return action.get();
        }

        @Override
        public <T> T get(java.util.function.Supplier<T> action, jakarta.enterprise.util.TypeLiteral<T> type) {
            return action.get();
        }
    };

    /** Marks the requests of the application's clients. */
    static final String CLIENT_HEADER = "X-Rbac-Test-Client";
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private record Recorded(String client, String method, String path) {
    }

    private final List<Recorded> recorded = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> opened = new ArrayList<>();
    private EmbeddedKubernetes kubernetes;
    private Fleet fleet;

    @AfterEach
    void stop() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // closing
            }
        }
        if (fleet != null) {
            fleet.close();
        }
        if (kubernetes != null) {
            kubernetes.close();
        }
    }

    @Test
    void everyRequestOfTheApplicationIsGrantedAndEveryGrantIsUsed() throws Exception {
        Manifests manifests = Manifests.build(Manifests.APPLICATION);
        String namespace = manifests.applicationNamespace();
        String lease = manifests.setting("aggregator.ingest.lease.name").orElse("status-aggregator-ingest");
        // The scenario's names are the Deployment's.
        assertEquals(CAPI, manifests.setting("aggregator.capi-namespace").orElse("eksa-system"));
        assertEquals(Optional.of(Fleet.COMPATIBILITY_CONFIGMAP), manifests.setting("aggregator.compatibility.configmap"));
        assertEquals("fieldRef:metadata.namespace", manifests.environment().get("AGGREGATOR_INGEST_LEASE_NAMESPACE"));
        ShippedRbac rbac = ShippedRbac.of(manifests, namespace, manifests.serviceAccount());

        kubernetes = EmbeddedKubernetes.start(0);
        fleet = new Fleet(kubernetes.client());
        kubernetes.onRequest(this::record);
        String run = UUID.randomUUID().toString().substring(0, 8);
        Pipeline a = replica("replica-a", namespace, lease, run);
        Pipeline b = replica("replica-b", namespace, lease, run);
        await(DEADLINE, () -> a.ingesting() != b.ingesting(), () -> "one replica ingests: a=" + a.ingesting() + ", b=" + b.ingesting());

        // A cluster to Ready: every CAPI kind ingested, the status written, the CNI observed through the kubeconfig secret.
        fleet.createCluster("alpha", 1, 1);
        capiObjects("alpha");
        fleet.controlPlaneReady("alpha", 1);
        fleet.workers("alpha", 1, 1, 1, 1);
        NamespacedKubernetesClient workload = fleet.workloadCluster("alpha");
        Fleet.cilium(workload, "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("alpha");
        // A flap, the workers not ready and back: the Events it repeats raise their series (a patch of each).
        fleet.workers("alpha", 1, 1, 1, 0);
        await(DEADLINE, () -> "False".equals(fleet.condition("default", "alpha", "Ready").get("status")), () -> "alpha not Ready");
        fleet.workers("alpha", 1, 1, 1, 1);
        fleet.awaitReady("alpha");
        await(DEADLINE, () -> recorded.stream().anyMatch(r -> r.method().equals("PATCH") && r.path().contains("/events/")),
                () -> "an Event's series raised");

        // The compatibility data from the ConfigMap, followed by every replica.
        kubernetes.client().configMaps().inNamespace(CAPI).resource(new ConfigMapBuilder()
                .withNewMetadata().withName(Fleet.COMPATIBILITY_CONFIGMAP).withNamespace(CAPI).endMetadata()
                .addToData("compatibility.yaml", """
                        version: "rbac-1"
                        releaseLines:
                          - eksa: v0.23
                            kubernetes: ["1.31", "1.32"]
                            cilium: [{from: v0.23.0, version: v1.15.16-eksa.1}]
                        """).build()).create();
        await(DEADLINE, () -> a.compatibility().get().version().equals("rbac-1") && b.compatibility().get().version().equals("rbac-1"),
                () -> "the ConfigMap's compatibility data in force on both replicas");

        // The upgrade check's reads, as the endpoint makes them through a replica's client, and as the upgrade-check
        // command makes them when run in a pod with its account (kubectl exec): the ConfigMap read once, the Cluster,
        // the releases.
        try (KubernetesClient client = applicationClient("upgrade-check", namespace)) {
            assertEquals("rbac-1", new CompatibilityConfigMap(CompatibilityReader.builtIn())
                    .readOnce(client, CAPI, Fleet.COMPATIBILITY_CONFIGMAP).get().version());
            assertEquals("alpha", UpgradeCheck.readCluster(client, new ObjectKey("default", "alpha")).key().name());
            assertFalse(UpgradeCheck.readReleases(client, CAPI).isEmpty());
        }

        // The fleet page's cluster view, as describe makes the same reads in a pod: the Cluster got, the CAPI kinds
        // listed in the CAPI namespace.
        try (KubernetesClient client = applicationClient("cluster-view", namespace)) {
            assertEquals("Cluster/alpha", new ClusterObjects(client, CAPI).read(new ObjectKey("default", "alpha")).orElseThrow()
                    .tree(new ClusterTree.Options(true, false), java.time.Instant.now()).get(0).name());
        }

        // The access reviews, as a replica makes them for a request to the page, the upgrade check or the metrics: a
        // TokenReview, then SubjectAccessReviews of a resource and of a URL.
        try (KubernetesClient client = applicationClient("access-reviews", namespace)) {
            AccessReviews reviews = new AccessReviews(Optional.empty(), UNLIMITED);
            reviews.reviewWith(client);
            KubernetesUser user = new KubernetesUser("alice", "u-1", List.of("fleet-viewers"), Map.of());
            // The embedded API server has no authenticator or authorizer to answer them: the requests are what counts.
            for (Runnable review : List.<Runnable>of(() -> reviews.authenticate("a-token"),
                    () -> reviews.allowed(user, RequiredAccess.LIST_CLUSTERS),
                    () -> reviews.allowed(user, RequiredAccess.of(RequiredAccess.METRICS_PATH)))) {
                try {
                    review.run();
                } catch (AccessReviews.ReviewUnavailable unanswered) {
                    // as said
                }
            }
            reviews.close();
        }

        // The cluster deleted, and its CAPI objects after it as EKS-A and CAPI delete them: its CNI connection
        // closed, its state dropped.
        fleet.delete(ObjectKind.EKSA_CLUSTER, "default", "alpha");
        fleet.delete(ObjectKind.MACHINE, CAPI, "alpha-md-0-x1");
        fleet.delete(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0");
        fleet.delete(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "alpha");
        fleet.delete(ObjectKind.ETCDADM_CLUSTER, CAPI, "alpha-etcd");
        fleet.delete(ObjectKind.CAPI_CLUSTER, CAPI, "alpha");
        await(DEADLINE, () -> a.aggregator().clustersTracked() + b.aggregator().clustersTracked() == 0, () -> "alpha forgotten");

        // The leader stops: it releases the Lease, the other takes it over; then the other stops too.
        await(DEADLINE, () -> a.ingesting() != b.ingesting(), () -> "one replica ingests: a=" + a.ingesting() + ", b=" + b.ingesting());
        Pipeline leader = a.ingesting() ? a : b;
        Pipeline other = leader == a ? b : a;
        leader.close();
        await(DEADLINE, other::ingesting, () -> "the other replica took the Lease over");
        other.close();
        kubernetes.onRequest(null);

        check(rbac);
    }

    private void check(ShippedRbac rbac) {
        List<Request> requests = new ArrayList<>();
        List<String> discovery = new ArrayList<>();
        for (Recorded r : recorded) {
            Request.of(r.method(), r.path()).ifPresentOrElse(requests::add, () -> discovery.add(r.method() + " " + r.path()));
        }
        assertTrue(requests.size() > 20, "the application's requests were recorded: " + recorded);
        // A path with its query: the status writes name their field manager (?fieldManager=status-aggregator).
        assertTrue(recorded.stream().anyMatch(r -> r.client().equals("status-writer")
                || r.path().replaceFirst("[?].*", "").endsWith("/status")),
                "the status writer's requests carry the header too");

        // (a) every request granted.
        List<String> refused = requests.stream().filter(r -> !rbac.allows(r)).map(r -> r.attributes() + "  <- " + r.method() + " " + r.path())
                .distinct().toList();

        // (b) every grant used: each verb on each resource, and each resourceName it lists.
        List<String> unused = new ArrayList<>();
        Map<String, Long> uses = new TreeMap<>();
        for (Grant grant : rbac.grants()) {
            List<String> names = grant.resourceNames().isEmpty() ? java.util.Collections.singletonList(null) : grant.resourceNames();
            for (String name : names) {
                Grant one = name == null ? grant : new Grant(grant.binding(), grant.namespace(), grant.apiGroup(), grant.resource(),
                        grant.verb(), List.of(name));
                long count = requests.stream().filter(one::allows).count();
                uses.put(one.toString(), count);
                if (count == 0) {
                    unused.add(one.toString());
                }
            }
        }

        StringBuilder table = new StringBuilder("\nRBAC granted vs used (requests of the application, " + requests.size() + " in all; "
                + discovery.size() + " discovery requests, exempt)\n");
        uses.forEach((grant, count) -> table.append(String.format("  %5d  %s%n", count, grant)));
        table.append("Requests by (verb, resource, namespace, name):\n");
        requests.stream().collect(Collectors.groupingBy(Request::attributes, TreeMap::new, Collectors.counting()))
                .forEach((attributes, count) -> table.append(String.format("  %5d  %s%n", count, attributes)));
        System.out.println(table);

        // (c) the replicas' informers list the fleet's kinds a page at a time (a real API server then answers in pages).
        List<String> listed = recorded.stream().filter(r -> r.client().startsWith("replica-") && r.method().equals("GET")
                && FLEET_LIST.matcher(r.path()).matches() && !r.path().contains("watch=true")).map(Recorded::path).toList();
        List<String> unpaged = listed.stream().filter(path -> !path.contains("limit=500")).toList();

        assertAll(() -> assertEquals(List.of(), refused, "(a) requests the shipped RBAC does not grant"),
                () -> assertEquals(List.of(), unused, "(b) grants no request used: more than the application needs"),
                () -> assertTrue(listed.size() >= 6, "the informers' lists recorded: " + listed),
                () -> assertEquals(List.of(), unpaged, "(c) lists of the fleet's kinds not paged"));
    }

    /** A list of a kind of the fleet, in one namespace or all: the Machines, the Clusters, ... */
    private static final Pattern FLEET_LIST = Pattern.compile("/apis/[a-z.]+/v1[a-z0-9]*/(namespaces/[a-z0-9-]+/)?"
            + "(machines|machinedeployments|kubeadmcontrolplanes|clusters|etcdadmclusters|eksareleases)(\\?.*)?");

    private void record(RecordedRequest request) {
        String client = header(request, CLIENT_HEADER);
        if (client != null) {
            recorded.add(new Recorded(client, request.getMethod(), request.getPath()));
        }
    }

    private static String header(RecordedRequest request, String name) {
        return request.getHeaders().toMultimap().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
    }

    /** A client of the management API as the application has one: its requests carry {@link #CLIENT_HEADER}. */
    private KubernetesClient applicationClient(String name, String namespace) {
        try (NamespacedKubernetesClient base = kubernetes.newClient()) {
            return new KubernetesClientBuilder().withConfig(new ConfigBuilder(base.getConfiguration())
                    .withNamespace(namespace).addToCustomHeaders(CLIENT_HEADER, name).build()).build();
        }
    }

    private Pipeline replica(String identity, String namespace, String lease, String run) throws Exception {
        KubernetesClient client = applicationClient(identity, namespace);
        opened.add(client);
        Pipeline.Settings base = Fleet.settings(kafka.bootstrapServers(), run, true);
        Pipeline.Settings elected = new Pipeline.Settings(base.kafka(), base.objectStatesTopic(), base.statusesTopic(),
                base.transitionsTopic(), base.deadLettersTopic(), base.createTopics(), base.partitions(), base.replicationFactor(), base.groupId(), true,
                base.ingestSettings(), base.aggregatorSettings(), base.writerSettings(), base.cniSettings(), base.compatibilityConfigMap(),
                // The defaults' lease duration and renew deadline (a loaded machine must not make the holder lose the
                // Lease: see IngestLeadership, an elector that lost it once does not run again), a short retry period.
                Optional.of(new IngestLeadership.Settings(namespace, lease, identity, Duration.ofSeconds(15), Duration.ofSeconds(10),
                        Duration.ofMillis(300))));
        Pipeline pipeline = new Pipeline(elected, client, CompatibilityReader.builtIn(), Clock.systemUTC());
        opened.add(pipeline);
        pipeline.start(DEADLINE);
        return pipeline;
    }

    /** The CAPI objects Fleet.createCluster leaves out: the CAPI Cluster, a Machine, an EtcdadmCluster. */
    private void capiObjects(String name) {
        fleet.create(ObjectKind.CAPI_CLUSTER, """
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: Cluster
                metadata: {namespace: %s, name: %s}
                spec: {controlPlaneRef: {kind: KubeadmControlPlane, name: %s}}
                """.formatted(CAPI, name, name));
        fleet.create(ObjectKind.MACHINE, """
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: Machine
                metadata: {namespace: %s, name: %s-md-0-x1, labels: {cluster.x-k8s.io/deployment-name: %s-md-0}}
                spec: {clusterName: %s, version: v1.31.4}
                """.formatted(CAPI, name, name, name));
        fleet.create(ObjectKind.ETCDADM_CLUSTER, """
                apiVersion: etcdcluster.cluster.x-k8s.io/v1beta1
                kind: EtcdadmCluster
                metadata: {namespace: %s, name: %s-etcd, labels: {cluster.x-k8s.io/cluster-name: %s}}
                spec: {replicas: 1}
                """.formatted(CAPI, name, name));
    }
}
