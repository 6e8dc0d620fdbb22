package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A Kubernetes API in this process: Fabric8's mock server in CRUD mode, with CRDs (status subresource included) for
 * every kind the aggregator reads. Not a real API server (see docs/running.md: no server-side apply, no schema
 * validation), but informers, generations and the status subresource behave as on one, and so do JSON merge patches,
 * which this class corrects (see {@link MergePatchingDispatcher}), discovery ({@link Discovery}), Events read as
 * {@code v1} ({@link CoreEvents}) and watches over plain HTTP, as kubectl sends them ({@link WatchStreamingWebServer}).
 */
public final class EmbeddedKubernetes implements AutoCloseable {
    private volatile KubernetesMockServer server;
    private final MergePatchingDispatcher dispatcher;
    private final NamespacedKubernetesClient client;

    private EmbeddedKubernetes(KubernetesMockServer server, MergePatchingDispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
        // The hands on the server (tests, the simulator) wait twice as long as an application client would: the mock
        // server stalls for seconds at times (its whole-store scans, see handleDelete), and a test should fail on what
        // the application does, not on its own request timing out.
        try (NamespacedKubernetesClient plain = server.createClient()) {
            this.client = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(plain.getConfiguration()).withRequestTimeout(20_000).build())
                    .build().adapt(NamespacedKubernetesClient.class);
        }
    }

    /**
     * Serving the Cluster API kinds at {@code v1beta1} only, as Cluster API v1.10 does: where the tests write their own
     * CAPI objects at {@code v1beta1}.
     *
     * @param port the port to listen on (loopback only), 0 for any free one
     */
    public static EmbeddedKubernetes start(int port) {
        return start(port, ServedVersions.V1BETA1_ONLY);
    }

    /**
     * @param capiVersions the versions the Cluster API kinds are served at: {@code v1beta1}, {@code v1beta2} or both,
     *                     newest first (see {@link #serveCapiVersions})
     */
    public static EmbeddedKubernetes start(int port, List<String> capiVersions) {
        MergePatchingDispatcher dispatcher = new MergePatchingDispatcher(new ServedVersions(capiVersions));
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(), new WatchStreamingWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        EmbeddedKubernetes kubernetes = new EmbeddedKubernetes(server, dispatcher);
        for (ObjectKind kind : ServedVersions.kinds()) {
            kubernetes.client.apiextensions().v1().customResourceDefinitions().resource(kubernetes.crd(kind)).create();
        }
        var release = KubernetesResources.RELEASES;
        kubernetes
                .client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(crd(release.getGroup(), release.getVersion(), release.getKind(), release.getPlural(), false))
                .create();
        return kubernetes;
    }

    /**
     * Serves the Cluster API kinds at {@code versions} from now on (their CRDs, discovery, and a 404 to any request at
     * another version), as a Cluster API upgrade does: for the tests of ingest following it. The objects stay where
     * they were written: this mock server converts nothing between versions (see {@link ServedVersions}).
     */
    public void serveCapiVersions(List<String> versions) {
        serveCapiVersions(versions, () -> { });
    }

    /**
     * As above, after {@code convert} has run with requests at any Cluster API version accepted (what discovery says
     * unchanged): where the test writes the objects at the versions about to be served, as a real server, which
     * converts, holds them the moment it serves them.
     */
    public void serveCapiVersions(List<String> versions, Runnable convert) {
        dispatcher.served.acceptingEveryVersion(convert);
        dispatcher.served.serveCapi(versions);
        for (ObjectKind kind : ServedVersions.kinds()) {
            if (kind.versions().size() > 1) {
                client.apiextensions().v1().customResourceDefinitions().resource(crd(kind)).update();
            }
        }
    }

    /** A client of this server; the caller closes it. */
    public NamespacedKubernetesClient newClient() {
        return server.createClient();
    }

    public NamespacedKubernetesClient client() {
        return client;
    }

    /**
     * Tells {@code listener} of every request this server receives (method, path with query, headers) before answering
     * it, on the thread that answers it; {@code null} stops telling. For tests that check what clients ask of the API
     * server, such as the RBAC the application needs ({@code RbacTest}); the embedded default sets none.
     */
    public void onRequest(Consumer<RecordedRequest> listener) {
        dispatcher.listener = listener;
    }

    /**
     * Answers a request with what {@code fault} returns instead of serving it, where that is not null; {@code null}
     * serves every request again. For the fault tests: a 410 to watches, a 409 to status writes.
     */
    public void answerInstead(Function<RecordedRequest, MockResponse> fault) {
        dispatcher.fault = fault;
    }

    /**
     * Serves {@code request} on the calling thread as if it had come over HTTP. The server answers one request at a
     * time, so a {@link #answerInstead} fault cannot wait for another client's request; it can serve one this way, to
     * make another writer's change land just before the request it holds (the fault tests' concurrent writers).
     */
    public MockResponse serve(RecordedRequest request) {
        return dispatcher.dispatch(request);
    }

    /** The status schema the Cluster kind is served with. */
    public enum ClusterCrd {
        /** EKS Anywhere's own CRD ({@code embedded/eksa-clusters-crd.yaml}), as on a stock management cluster. */
        EKSA,
        /** A status that keeps every field, as the CRD in {@code deploy/kubernetes/crds} has it. */
        FULL
    }

    /**
     * Serves the EKS-A Cluster kind's status with {@code crd}'s schema from now on: with {@link ClusterCrd#EKSA}, every
     * status written (merge patch or PUT of {@code /status}) loses the fields EKS-A's schema lacks ({@code defaultCNI},
     * {@code workerNodeGroups}, {@code versions}) and one breaking its limits (a condition's message over 10240
     * characters) is refused, 422 Invalid, as a real API server would. The schema is applied to the status only.
     */
    public void serveClusterStatus(ClusterCrd crd) {
        dispatcher.clusterStatus = crd == ClusterCrd.EKSA ? StatusSchema.eksaCluster() : null;
    }

    /**
     * Stops listening and listens again on the same port with the same objects, as a restarted API server does: every
     * open watch ends and clients reconnect. For the fault tests.
     */
    public void restart() {
        int port = server.getPort();
        server.destroy();
        KubernetesMockServer restarted = new KubernetesMockServer(
                new Context(), new WatchStreamingWebServer(), new HashMap<>(), dispatcher, false);
        restarted.init(InetAddress.getLoopbackAddress(), port);
        server = restarted;
    }

    public String url() {
        return "http://" + server.getHostName() + ":" + server.getPort();
    }

    /** Writes a kubeconfig for this server, so that kubectl and other clients can reach it. */
    public Path writeKubeconfig(Path file) throws IOException {
        return writePrivately(file, kubeconfig(url(), "embedded", "embedded", "embedded"));
    }

    /**
     * Writes {@code text} to {@code file} readable by this user only (0600, in a directory made 0700 where this
     * creates it): what the embedded default leaves for the commands run beside it is no one else's to read.
     */
    public static Path writePrivately(Path file, String text) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(directory)) {
            Files.createDirectories(
                    directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path written = Files.createTempFile(directory, file.getFileName().toString(), ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(written, text);
        return Files.move(written, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * A kubeconfig of one cluster, one user and one context, for an API server over plain HTTP that checks no
     * credentials (the mock server): the token is only there because clients expect some credential.
     */
    static String kubeconfig(String server, String cluster, String user, String context) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %4$s
                contexts:
                - name: %3$s
                  context:
                    cluster: %1$s
                    user: %2$s
                    namespace: default
                current-context: %3$s
                users:
                - name: %2$s
                  user:
                    token: %2$s
                """.formatted(cluster, user, context, server);
    }

    /** The CRD of {@code kind} at the versions served now, the newest stored. */
    private CustomResourceDefinition crd(ObjectKind kind) {
        return crd(kind.group(), dispatcher.served.of(kind), kind.kind(), kind.plural(),
                kind == ObjectKind.EKSA_CLUSTER);
    }

    static CustomResourceDefinition crd(
            String group, String versionName, String kind, String plural, boolean readyColumns) {
        return crd(group, List.of(versionName), kind, plural, readyColumns);
    }

    static CustomResourceDefinition crd(String group, List<String> versionNames, String kind, String plural,
            boolean readyColumns) {
        List<CustomResourceDefinitionVersion> versions = new ArrayList<>();
        for (String versionName : versionNames) {
            versions.add(crdVersion(versionName, versionName.equals(versionNames.get(0)), readyColumns));
        }
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(plural + "." + group).endMetadata()
                .withNewSpec()
                .withGroup(group)
                .withScope("Namespaced")
                .withNewNames().withKind(kind).withPlural(plural)
                .withSingular(kind.toLowerCase()).endNames()
                .withVersions(versions)
                .endSpec()
                .build();
    }

    private static CustomResourceDefinitionVersion crdVersion(String versionName, boolean storage,
            boolean readyColumns) {
        JSONSchemaProps anything = new JSONSchemaPropsBuilder()
                .withType("object")
                .withXKubernetesPreserveUnknownFields(true)
                .build();
        var version = new CustomResourceDefinitionVersionBuilder()
                .withName(versionName)
                .withServed(true)
                .withStorage(storage)
                .withNewSchema().withOpenAPIV3Schema(anything).endSchema()
                .withNewSubresources().withNewStatus().endStatus().endSubresources();
        if (readyColumns) {
            version.addNewAdditionalPrinterColumn().withName("Ready").withType("string")
                    .withJsonPath(".status.conditions[?(@.type==\"Ready\")].status").endAdditionalPrinterColumn()
                    .addNewAdditionalPrinterColumn().withName("Reason").withType("string")
                    .withJsonPath(".status.conditions[?(@.type==\"Ready\")].reason").endAdditionalPrinterColumn()
                    .addNewAdditionalPrinterColumn().withName("Age").withType("date")
                    .withJsonPath(".metadata.creationTimestamp").endAdditionalPrinterColumn();
        }
        return version.build();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
