package io.statusaggregator.embedded;

import io.statusaggregator.kubernetes.KubernetesResources;

import io.statusaggregator.threads.DaemonThreads;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The fleet at a glance, for the embedded default mode: every EKS-A Cluster with its control plane and workers
 * (ready/desired) and its Ready condition, printed as a table whenever it changed, under a timestamp line.
 *
 * <pre>
 * 2026-05-04T10:00:12Z
 * CLUSTER         CONTROL PLANE   WORKERS   READY   REASON
 * default/alpha   1/1             2/2       True    -
 * default/bravo   2/3             0/3       False   ScalingUp
 * </pre>
 */
public final class LiveTable implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LiveTable.class);
    static final List<String> HEADERS = List.of("CLUSTER", "CONTROL PLANE", "WORKERS", "READY", "REASON");
    static final String NONE = "-";
    private static final String GAP = "   ";

    /** One cluster's line: counts of ready and desired nodes, the Ready condition's status and reason or "-". */
    record Row(String namespace, String name, int controlPlaneReady, int controlPlaneDesired, int workersReady,
            int workersDesired, String ready, String reason) {
        List<String> cells() {
            return List.of(namespace + "/" + name, controlPlaneReady + "/" + controlPlaneDesired,
                    workersReady + "/" + workersDesired, ready, reason);
        }
    }

    private final KubernetesClient client;
    private final String capiNamespace;
    private final PrintStream out;
    private final Duration interval;
    private final Clock clock;
    private ScheduledExecutorService scheduler;
    private String lastPrinted;
    private boolean failing;

    public LiveTable(KubernetesClient client, String capiNamespace, PrintStream out, Duration interval) {
        this(client, capiNamespace, out, interval, Clock.systemUTC());
    }

    LiveTable(KubernetesClient client, String capiNamespace, PrintStream out, Duration interval, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.capiNamespace = Objects.requireNonNull(capiNamespace, "capiNamespace");
        this.out = Objects.requireNonNull(out, "out");
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval must be positive, got " + interval);
        }
        this.interval = interval;
        this.clock = clock;
    }

    /** Looks at the fleet every {@code interval} on a daemon thread of its own, the first time now. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("live-table"));
        scheduler.scheduleWithFixedDelay(this::refreshLogged, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void refreshLogged() {
        try {
            refresh();
            failing = false;
        } catch (RuntimeException e) {
            // Said once per outage, not once per interval.
            if (!failing) {
                LOG.warnf("live table: cannot read the fleet: %s", e.toString());
            }
            failing = true;
        }
    }

    /** Reads the fleet and prints it if the table changed; true when it printed. */
    synchronized boolean refresh() {
        return show(readRows());
    }

    /**
     * Prints the table of these rows under a timestamp line, unless it is the one printed last; true when it printed.
     */
    synchronized boolean show(List<Row> rows) {
        String table = render(rows);
        if (table.equals(lastPrinted)) {
            return false;
        }
        out.print(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS) + "\n" + table + "\n");
        out.flush();
        lastPrinted = table;
        return true;
    }

    /** The table: a header line, then one line per row; columns as wide as their widest cell, three spaces apart. */
    static String render(List<Row> rows) {
        List<List<String>> lines = new ArrayList<>();
        lines.add(HEADERS);
        rows.forEach(row -> lines.add(row.cells()));
        int[] widths = new int[HEADERS.size()];
        for (List<String> line : lines) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder table = new StringBuilder();
        for (List<String> line : lines) {
            for (int i = 0; i < widths.length; i++) {
                String cell = line.get(i);
                table.append(cell);
                if (i < widths.length - 1) {
                    table.append(" ".repeat(widths[i] - cell.length())).append(GAP);
                }
            }
            table.append('\n');
        }
        return table.toString();
    }

    /**
     * The rows of the fleet as the API server holds it: EKS-A Clusters in every namespace, sorted by namespace and
     * name; their KubeadmControlPlane and MachineDeployments in the CAPI namespace.
     */
    List<Row> readRows() {
        List<JsonNode> controlPlanes = list(ObjectKind.KUBEADM_CONTROL_PLANE, capiNamespace);
        List<JsonNode> machineDeployments = list(ObjectKind.MACHINE_DEPLOYMENT, capiNamespace);
        List<Row> rows = new ArrayList<>();
        for (JsonNode cluster : list(ObjectKind.EKSA_CLUSTER, null)) {
            JsonNode metadata = cluster.path("metadata");
            String name = metadata.path("name").asText();
            JsonNode spec = cluster.path("spec");
            int controlPlaneReady = controlPlanes.stream()
                    .filter(kcp -> name.equals(clusterOf(kcp, kcp.path("metadata").path("name").asText())))
                    .findFirst()
                    .map(kcp -> kcp.path("status").path("readyReplicas").asInt(0))
                    .orElse(0);
            int workersReady = machineDeployments.stream()
                    .filter(md -> name.equals(md.path("spec").path("clusterName").isTextual()
                            ? md.path("spec").path("clusterName").asText() : clusterOf(md, null)))
                    .mapToInt(md -> md.path("status").path("readyReplicas").asInt(0))
                    .sum();
            int workersDesired = 0;
            for (JsonNode group : spec.path("workerNodeGroupConfigurations")) {
                // EKS-A's default for a group without a count.
                workersDesired += group.path("count").asInt(1);
            }
            JsonNode ready = readyCondition(cluster);
            rows.add(new Row(
                    metadata.path("namespace").asText(ObjectDecoder.DEFAULT_NAMESPACE),
                    name,
                    controlPlaneReady,
                    spec.path("controlPlaneConfiguration").path("count").asInt(0),
                    workersReady,
                    workersDesired,
                    text(ready.path("status")),
                    text(ready.path("reason"))));
        }
        rows.sort(Comparator.comparing(Row::namespace).thenComparing(Row::name));
        return rows;
    }

    /** The label {@code cluster.x-k8s.io/cluster-name}, else the given fallback. */
    private static String clusterOf(JsonNode object, String fallback) {
        JsonNode label = object.path("metadata").path("labels").path(ObjectDecoder.CLUSTER_NAME_LABEL);
        return label.isTextual() ? label.asText() : fallback;
    }

    private static JsonNode readyCondition(JsonNode cluster) {
        for (JsonNode condition : cluster.path("status").path("conditions")) {
            if ("Ready".equals(condition.path("type").asText())) {
                return condition;
            }
        }
        return cluster.path("status").path("no-condition");
    }

    private static String text(JsonNode value) {
        return value.isTextual() && !value.asText().isEmpty() ? value.asText() : NONE;
    }

    /**
     * The objects of {@code kind}, read at its newest version the API server serves: Cluster API v1.13 serves
     * {@code v1beta2} and {@code v1beta1}, v1.10 {@code v1beta1} only. {@code readyReplicas}, all the table reads of
     * them, means the same at both.
     */
    private List<JsonNode> list(ObjectKind kind, String namespace) {
        List<String> versions = kind.versions();
        for (int i = 0; ; i++) {
            String version = versions.get(i);
            var resources = client.genericKubernetesResources(KubernetesResources.of(kind, version));
            try {
                List<GenericKubernetesResource> items = namespace == null
                        ? resources.inAnyNamespace().list().getItems()
                        : resources.inNamespace(namespace).list().getItems();
                var serialization = client.getKubernetesSerialization();
                return items.stream().map(item -> serialization.convertValue(item, JsonNode.class)).toList();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404 || i == versions.size() - 1) {
                    throw e;
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
