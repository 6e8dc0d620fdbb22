package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.Quarkus;
import io.quarkus.tls.TlsConfigurationRegistry;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.access.AccessReviews;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.embedded.EmbeddedKafka;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.EmbeddedMemory;
import io.statusaggregator.embedded.FleetSimulator;
import io.statusaggregator.embedded.LiveTable;
import io.statusaggregator.embedded.StateDirectory;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.http.HttpEdge;
import io.statusaggregator.ingest.CniObserver;
import io.statusaggregator.ingest.IngestLeadership;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.kubernetes.ApiVersionChoice;
import io.statusaggregator.kubernetes.ServedResources;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.operations.ClusterMetrics;
import io.statusaggregator.operations.MeteredKafkaClients;
import io.statusaggregator.operations.PipelineMetrics;
import io.statusaggregator.versions.json.CompatibilityReader;
import io.statusaggregator.writeback.StatusWriter;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import picocli.CommandLine.Command;

@Dependent
@Unremovable
@Command(name = "run",
        mixinStandardHelpOptions = true,
        header = "Run the aggregator (the default command).",
        description = {
                "Informers on the EKS-A Clusters and their CAPI objects feed a Kafka topic; aggregation computes each "
                        + "cluster's status and writes it back to the Cluster.",
                "",
                "Without kafka.bootstrap.servers it runs the embedded default: an in-process Kafka broker, an "
                        + "in-process Kubernetes API and a simulated fleet, with a live table of the clusters. With "
                        + "kafka.bootstrap.servers (and a kubeconfig or in-cluster config) it runs against them.",
                "",
                "It serves the fleet page, the admission webhook and the upgrade check on quarkus.http.port (8080), "
                        + "and health and metrics on the management interface, quarkus.management.port (9000).",
                "",
                "Exit status: 0 when stopped by SIGTERM (Ctrl-C: 130), 1 when Kafka or the Kubernetes API does not "
                        + "answer within 60 s, the API does not serve EKS Anywhere's and Cluster API's kinds or Kafka "
                        + "refuses the credentials, 2 on an invalid kafka.* setting or an embedded default's state "
                        + "directory that is not the user's own and private, 3 when aggregation stops on a fault "
                        + "(Kafka refusing this consumer, a bug): a restart rebuilds it."})
public class RunCommand implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(RunCommand.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    @Inject
    AggregatorConfig config;

    @Inject
    Config rawConfig;

    @Inject
    Instance<KubernetesClient> configuredClient;

    @Inject
    MeterRegistry registry;

    @Inject
    RunningPipeline runningPipeline;

    @Inject
    FleetPage fleetPage;

    @Inject
    ClusterView clusterView;

    @Inject
    TlsConfigurationRegistry tls;

    @Inject
    MeteredKafkaClients kafkaClients;

    @Inject
    StartedParts running;

    @Inject
    AccessReviews access;

    @Inject
    HttpEdge httpEdge;

    /** Whether a SIGTERM now interrupts the starting thread: only in waits made to end so (the pipeline's start). */
    private volatile boolean interruptible;

    @Override
    public Integer call() throws Exception {
        Thread starting = Thread.currentThread();
        // Until the start is done, a SIGTERM is seen at the start's next stage (checkpoint), or cuts its waits short.
        StopSignal.onSigterm(() -> {
            if (interruptible) {
                starting.interrupt();
            }
        });
        try {
            return start();
        } catch (Exception | Error e) {
            // Ctrl-C is the JVM's: its shutdown stops the parts under the start, which then fails; a stop all the same.
            if (!StopSignal.requested() && !StopSignal.jvmStopping()) {
                throw e;
            }
            Thread.interrupted(); // what started must be stopped whole, not cut short in its turn
            LOG.info("stopped while starting; what had started is stopped");
            return 0;
        } finally {
            running.closeAll();
        }
    }

    /** A SIGTERM came during the start: it ends here, and {@link #call} stops what started. */
    private static final class StopRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StopRequested() {
            super("stop requested", null, false, false);
        }
    }

    /** Between two stages of the start: ends it if a SIGTERM came. */
    private static void checkpoint() {
        if (StopSignal.requested()) {
            throw new StopRequested();
        }
    }

    /** Starts the aggregator (the embedded default's parts first, where it runs one) and waits for the stop. */
    private int start() throws Exception {
        FaultExit faultExit = new FaultExit();
        checkpoint();
        Map<String, Object> kafka = KafkaSettings.from(rawConfig);
        KafkaSettings.unknown(kafka)
                .forEach(name -> LOG.warnf("kafka.%s is no setting of the Kafka clients: ignored", name));
        Optional<String> badSetting = KafkaSettings.problem(kafka);
        if (badSetting.isPresent()) {
            LOG.errorf("a Kafka setting (kafka.*) is invalid: %s", badSetting.get());
            return 2;
        }
        if (config.access().tokenReviewsPerSecond() < 1) {
            LOG.errorf(
                    "aggregator.access.token-reviews-per-second must be at least 1, is %d",
                    config.access().tokenReviewsPerSecond());
            return 2;
        }
        Optional<ApiVersionChoice.Setting> capiVersion = ApiVersionChoice.Setting.parse(config.capi().apiVersion());
        if (capiVersion.isEmpty()) {
            LOG.errorf("aggregator.capi.api-version must be auto, v1beta2 or v1beta1, is %s",
                    config.capi().apiVersion());
            return 2;
        }
        if (rawConfig.getConfigValue("aggregator.write.enabled").getValue() != null) {
            // Ignored, it would start writing statuses a deployment meant to leave to EKS-A's controller.
            LOG.error("aggregator.write.enabled (AGGREGATOR_WRITE_ENABLED) is no longer a setting: set "
                    + "aggregator.status.writer to eksa (EKS-A's controller writes the statuses) or auto "
                    + "(docs/deploy.md)");
            return 2;
        }
        boolean embedded = !kafka.containsKey("bootstrap.servers");
        httpEdge.serve(embedded);
        KubernetesClient client;
        FleetSimulator simulator = null;
        if (embedded) {
            Optional<CapiApiVersion> simulated = CapiApiVersion.of(config.embedded().capiApiVersion());
            if (simulated.isEmpty() || config.embedded().capiApiVersion().contains("/")) {
                LOG.errorf("aggregator.embedded.capi-api-version must be v1beta2 or v1beta1, is %s",
                        config.embedded().capiApiVersion());
                return 2;
            }
            Path kubeconfigFile = Path.of(config.embedded().kubeconfig()).toAbsolutePath();
            Optional<String> refused = StateDirectory.prepare(kubeconfigFile.getParent());
            if (refused.isPresent()) {
                LOG.error(refused.get());
                return 2;
            }
            LOG.info(EmbeddedMemory.keepSmall());
            LOG.info("starting the embedded default: a Kafka broker and a Kubernetes API in this process");
            EmbeddedKafka broker = EmbeddedKafka.start();
            running.add(broker);
            checkpoint();
            kafka.put("bootstrap.servers", broker.bootstrapServers());
            EmbeddedKubernetes api = EmbeddedKubernetes.start(config.embedded().apiPort(),
                    FleetSimulator.capiVersionsServed(simulated.get()));
            running.add(api);
            api.serveClusterStatus(config.embedded().clusterCrd());
            client = api.newClient();
            running.add(client);
            checkpoint();
            if (config.embedded().simulate()) {
                simulator = new FleetSimulator(client, config.capiNamespace(), config.embedded().tick(),
                        simulated.get());
                running.add(simulator);
                // Its first step creates the fleet's first cluster, alpha, before the kubeconfig is written: what
                // docs/running.md runs once it is (kubectl wait ... alpha) finds the cluster, never NotFound.
                simulator.step();
                checkpoint();
            }
            Path kubeconfig = api.writeKubeconfig(kubeconfigFile);
            running.add(() -> Files.deleteIfExists(kubeconfig));
            // For watch and alerts on this machine: they find the embedded broker here when none is configured.
            Path bootstrap = EmbeddedKubernetes.writePrivately(
                    kubeconfig.resolveSibling(KafkaSettings.EMBEDDED_BOOTSTRAP_FILE), broker.bootstrapServers());
            running.add(() -> Files.deleteIfExists(bootstrap));
            LOG.infof("embedded default: Kafka broker at %s, Kubernetes API at %s (kubeconfig %s)",
                    broker.bootstrapServers(), api.url(), kubeconfig);
            checkpoint();
        } else {
            client = configuredClient.get();
            running.add(client);
            LOG.infof("running against Kafka at %s and the Kubernetes API at %s", kafka.get("bootstrap.servers"),
                    client.getConfiguration().getMasterUrl());
            // No kubeconfig found: say so now, rather than after a minute of waiting for an address that cannot answer.
            Optional<String> nowhere = ApiServerFailure.noKubeconfigOutsideACluster(client)
                    ? ApiServerFailure.unreachable(client)
                    : Optional.empty();
            if (nowhere.isPresent()) {
                LOG.error(nowhere.get());
                return 1;
            }
        }
        decideAccess(embedded, client);
        checkpoint();

        PipelineMetrics metrics = new PipelineMetrics(registry);
        ClusterMetrics clusterMetrics = new ClusterMetrics(registry);
        running.add(clusterMetrics);
        Pipeline pipeline = new Pipeline(
                        settings(kafka, embedded, client), client, CompatibilityReader.builtIn(), Clock.systemUTC())
                .observedBy((StatusWriter.Observer) metrics)
                .observedBy(kafkaClients)
                .observedBy(clusterMetrics)
                // A replica that no longer aggregates must not live on serving its probes: exit, and let the restart
                // (the pod's, in Kubernetes) rebuild its partitions, or hand them to the group's others.
                .onAggregationStopped(faultExit.onFault("a restart rebuilds the partitions"));
        running.add(pipeline);
        // Quarkus serves HTTP from the start: the probes get answers (not ready yet) while the pipeline starts.
        logListeners();
        ServedResources.Answer served = ServedResources.check(client, Pipeline.resourcesRead(),
                config.ingest().enabled() ? ObjectIngest.CAPI_KINDS : List.of(), capiVersion.get());
        if (!served.missing().isEmpty()) {
            LOG.errorf(
                    "the Kubernetes API at %s does not serve %s: run the aggregator against an EKS Anywhere management"
                        + " cluster (this version reads anywhere.eks.amazonaws.com/v1alpha1 and Cluster API's v1beta2"
                        + " or v1beta1); check the kubeconfig's context",
                    client.getConfiguration().getMasterUrl(), String.join(", ", served.missing()));
            return 1;
        }
        if (!served.forced().isEmpty()) {
            LOG.errorf("%s at %s: set it to auto, or to a version served", String.join("; ", served.forced()),
                    client.getConfiguration().getMasterUrl());
            return 1;
        }
        checkpoint();
        interruptible = true;
        try {
            pipeline.start(START_TIMEOUT);
        } catch (TimeoutException | ExecutionException | KafkaException | InterruptedException e) {
            checkpoint(); // interrupted by a SIGTERM, or failed after one: a stop, not a failure to report
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            // Say what went wrong in one line, without a stack trace. Kafka's own messages never carry a password.
            Throwable config = cause;
            while (config != null && !(config instanceof ConfigException)) {
                config = config.getCause();
            }
            if (config != null) {
                LOG.errorf("a Kafka setting (kafka.*) is invalid: %s", config.getMessage());
                return 2;
            }
            if (cause instanceof AuthenticationException refused) {
                LOG.error(KafkaSettings.refusedCredentials(kafka, "this application's", refused));
                return 1;
            }
            // Which of the two did not answer: the API server can be asked again now.
            if (!embedded) {
                String kafkaDidNot = "Kafka at %s did not answer in time (%s), while the Kubernetes API at %s does. "
                                .formatted(
                                        kafka.get("bootstrap.servers"),
                                        cause.getClass().getSimpleName(),
                                        client.getConfiguration().getMasterUrl())
                        + "Check kafka.bootstrap.servers and the network.";
                LOG.errorf("could not start within %s: %s", DurationText.format(START_TIMEOUT),
                        ApiServerFailure.unreachable(client).orElse(kafkaDidNot));
                return 1;
            }
            LOG.errorf(
                    "could not start within %s: Kafka at %s or the Kubernetes API at %s did not answer (%s). "
                            + "Check kafka.bootstrap.servers, the kubeconfig or in-cluster account, and the network.",
                    DurationText.format(START_TIMEOUT),
                    kafka.get("bootstrap.servers"),
                    client.getConfiguration().getMasterUrl(),
                    cause.getClass().getSimpleName());
            return 1;
        } finally {
            interruptible = false;
            Thread.interrupted(); // a SIGTERM just as the start returned: seen at the checkpoint below
        }
        checkpoint();
        metrics.bind(pipeline);
        runningPipeline.started(pipeline);
        running.add(runningPipeline::stopped);
        fleetPage.start(kafka, config.topics().statuses(), config.topics().transitions());
        running.add(fleetPage::stop);
        clusterView.start(new ClusterObjects(client, config.capiNamespace()));
        running.add(clusterView::stop);

        if (simulator != null) {
            simulator.start();
        }
        if (config.table().enabled().orElse(embedded)) {
            LiveTable table = new LiveTable(client, config.capiNamespace(), System.out, config.table().interval());
            running.add(table);
            table.start();
        }
        // SIGTERM (Kubernetes stopping the pod) ends the wait; call() stops what started, and the exit status is 0.
        StopSignal.onSigterm(Quarkus::asyncExit);
        LOG.info("status aggregator running; SIGTERM or Ctrl-C stops it");
        Quarkus.waitForExit();
        return faultExit.status(0);
    }

    /** Reviewed requests against a cluster, unless configured otherwise; the embedded default, on loopback, is open. */
    private void decideAccess(boolean embedded, KubernetesClient client) {
        if (config.access().review().orElse(!embedded)) {
            access.reviewWith(client);
            LOG.info("the fleet page, the upgrade check and the metrics answer those the Kubernetes API authorizes "
                    + "(bearer token: TokenReview, then SubjectAccessReview)");
        } else {
            access.open();
            if (!embedded) {
                LOG.warn("aggregator.access.review=false: the fleet page, the upgrade check and the metrics answer"
                        + " anyone who reaches their ports");
            }
        }
    }

    /** Where Quarkus serves: the ports as bound (a port configured as 0 is a free one). */
    private void logListeners() {
        if (!rawConfig.getOptionalValue("quarkus.http.host-enabled", Boolean.class).orElse(true)) {
            return;
        }
        boolean plain = !rawConfig
                .getOptionalValue("quarkus.http.insecure-requests", String.class)
                .orElse("enabled")
                .equals("disabled");
        if (plain) {
            LOG.infof("HTTP endpoints on HTTP port %d", rawConfig.getValue("quarkus.http.port", Integer.class));
        }
        if (tls.getDefault().filter(configuration -> configuration.getKeyStore() != null).isPresent()) {
            LOG.infof("HTTP endpoints on HTTPS port %d", rawConfig.getValue("quarkus.http.ssl-port", Integer.class));
        }
        LOG.infof(
                "health and metrics on the management interface, port %d",
                rawConfig.getValue("quarkus.management.port", Integer.class));
    }

    private Pipeline.Settings settings(Map<String, Object> kafka, boolean embedded, KubernetesClient client) {
        AggregatorConfig.Topics topics = config.topics();
        return new Pipeline.Settings(
                kafka,
                topics.objectStates(),
                topics.statuses(),
                topics.transitions(),
                topics.deadLetters(),
                topics.create(),
                topics.partitions(),
                embedded ? 1 : topics.replicationFactor(),
                config.groupId(),
                config.ingest().enabled(),
                new ObjectIngest.Settings(
                        config.capiNamespace(),
                        config.clusterNamespaces().orElse(List.of()),
                        config.ingest().relistStalledAfter(),
                        config.ingest().reconcileEvery(),
                        config.ingest().stuckSendAfter(),
                        ApiVersionChoice.Setting.parse(config.capi().apiVersion())
                                .orElseThrow(),
                        config.capi().versionCheckEvery()),
                new Aggregator.Settings(
                        topics.objectStates(),
                        config.coalescingWindow(),
                        config.longestCoalescingWindow(),
                        config.echoTimeout(),
                        config.rebuildRehearsal(),
                        config.capiNamespace(),
                        config.status().writer(),
                        config.status().stepAsideWindow()),
                new StatusWriter.Settings(
                        config.write().concurrency(),
                        config.write().initialBackoff(),
                        config.write().maxBackoff()),
                new CniObserver.Settings(
                        config.capiNamespace(),
                        config.cni().maxConnections(),
                        config.cni().staleAfter(),
                        config.cni().checkInterval(),
                        config.cni().requestTimeout()),
                config.compatibilityConfigMap(),
                config.ingest().leaderElection() ? Optional.of(lease(client)) : Optional.empty());
    }

    /** This replica's part in the ingest election: named after its pod (HOSTNAME in Kubernetes), unique per process. */
    private IngestLeadership.Settings lease(KubernetesClient client) {
        AggregatorConfig.Ingest.Lease lease = config.ingest().lease();
        String host = Optional.ofNullable(System.getenv("HOSTNAME")).filter(h -> !h.isBlank()).orElse("localhost");
        String namespace = lease.namespace().or(() -> Optional.ofNullable(client.getNamespace())).orElse("default");
        return new IngestLeadership.Settings(namespace, lease.name(), host + "-" + ProcessHandle.current().pid(),
                lease.duration(), lease.renewDeadline(), lease.retryPeriod());
    }
}
