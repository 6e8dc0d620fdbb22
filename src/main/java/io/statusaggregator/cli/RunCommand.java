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
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.embedded.FleetSimulator;
import io.statusaggregator.embedded.LiveTable;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.http.HttpEdge;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.kubernetes.ApiVersionChoice;
import io.statusaggregator.kubernetes.ServedResources;
import io.statusaggregator.operations.ClusterMetrics;
import io.statusaggregator.operations.MeteredKafkaClients;
import io.statusaggregator.operations.PipelineMetrics;
import io.statusaggregator.versions.json.CompatibilityReader;
import io.statusaggregator.writeback.StatusWriter;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaException;
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
    static final class StopRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StopRequested() {
            super("stop requested", null, false, false);
        }
    }

    /** Between two stages of the start: ends it if a SIGTERM came. */
    static void checkpoint() {
        if (StopSignal.requested()) {
            throw new StopRequested();
        }
    }

    /** The start ends with an exit status, what went wrong said: a setting refused, a server that did not answer. */
    static final class StartFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        StartFailed(int status) {
            super("start failed", null, false, false);
            this.status = status;
        }
    }

    /** The API server the pipeline runs against, and the demo fleet on it where the embedded default runs one. */
    record ApiServer(KubernetesClient client, Optional<FleetSimulator> demo) {
    }

    /** Starts the aggregator (the embedded default's parts first, where it runs one) and waits for the stop. */
    private int start() throws Exception {
        FaultExit faultExit = new FaultExit();
        try {
            checkpoint();
            Map<String, Object> kafka = checkKafkaSettings();
            ApiVersionChoice.Setting capiVersion = checkSettings();
            boolean embedded = !kafka.containsKey("bootstrap.servers");
            httpEdge.serve(embedded);
            ApiServer api = embedded ? new EmbeddedDefaultStart(config, running).start(kafka) : connectToCluster(kafka);
            decideAccess(embedded, api.client());
            checkpoint();
            PipelineMetrics metrics = new PipelineMetrics(registry);
            Pipeline pipeline = wirePipeline(kafka, embedded, api.client(), metrics, faultExit);
            // Quarkus serves HTTP from the start: the probes get answers (not ready yet) while the pipeline starts.
            logListeners();
            checkServedResources(api.client(), capiVersion);
            checkpoint();
            startPipeline(pipeline, kafka, embedded, api.client());
            checkpoint();
            servePipeline(pipeline, metrics, kafka, api.client());
            startEmbeddedShow(api, embedded);
            return awaitStop(faultExit);
        } catch (StartFailed failed) {
            return failed.status;
        }
    }

    /** The Kafka clients' settings ({@code kafka.*}): an unknown one ignored, an invalid one refused. */
    private Map<String, Object> checkKafkaSettings() {
        Map<String, Object> kafka = KafkaSettings.from(rawConfig);
        KafkaSettings.unknown(kafka)
                .forEach(name -> LOG.warnf("kafka.%s is no setting of the Kafka clients: ignored", name));
        Optional<String> badSetting = KafkaSettings.problem(kafka);
        if (badSetting.isPresent()) {
            LOG.errorf("a Kafka setting (kafka.*) is invalid: %s", badSetting.get());
            throw new StartFailed(2);
        }
        return kafka;
    }

    /** The settings Quarkus cannot check by their types alone; returns the Cluster API version setting. */
    private ApiVersionChoice.Setting checkSettings() {
        if (config.access().tokenReviewsPerSecond() < 1) {
            LOG.errorf(
                    "aggregator.access.token-reviews-per-second must be at least 1, is %d",
                    config.access().tokenReviewsPerSecond());
            throw new StartFailed(2);
        }
        Optional<ApiVersionChoice.Setting> capiVersion = ApiVersionChoice.Setting.parse(config.capi().apiVersion());
        if (capiVersion.isEmpty()) {
            LOG.errorf("aggregator.capi.api-version must be auto, v1beta2 or v1beta1, is %s",
                    config.capi().apiVersion());
            throw new StartFailed(2);
        }
        if (rawConfig.getConfigValue("aggregator.write.enabled").getValue() != null) {
            // Ignored, it would start writing statuses a deployment meant to leave to EKS-A's controller.
            LOG.error("aggregator.write.enabled (AGGREGATOR_WRITE_ENABLED) is no longer a setting: set "
                    + "aggregator.status.writer to eksa (EKS-A's controller writes the statuses) or auto "
                    + "(docs/deploy.md)");
            throw new StartFailed(2);
        }
        return capiVersion.get();
    }

    /** The configured API server (kubeconfig or in-cluster account) and broker. */
    private ApiServer connectToCluster(Map<String, Object> kafka) {
        KubernetesClient client = configuredClient.get();
        running.add(client);
        LOG.infof("running against Kafka at %s and the Kubernetes API at %s", kafka.get("bootstrap.servers"),
                client.getConfiguration().getMasterUrl());
        // No kubeconfig found: say so now, rather than after a minute of waiting for an address that cannot answer.
        Optional<String> nowhere = ApiServerFailure.noKubeconfigOutsideACluster(client)
                ? ApiServerFailure.unreachable(client)
                : Optional.empty();
        if (nowhere.isPresent()) {
            LOG.error(nowhere.get());
            throw new StartFailed(1);
        }
        return new ApiServer(client, Optional.empty());
    }

    /** The pipeline with its observers: the metrics, and the exit when aggregation stops on a fault. */
    private Pipeline wirePipeline(Map<String, Object> kafka, boolean embedded, KubernetesClient client,
            PipelineMetrics metrics, FaultExit faultExit) {
        ClusterMetrics clusterMetrics = new ClusterMetrics(registry);
        running.add(clusterMetrics);
        Pipeline.Settings settings = PipelineSettings.of(config, kafka, embedded, client);
        Pipeline pipeline = new Pipeline(settings, client, CompatibilityReader.builtIn(), Clock.systemUTC())
                .observedBy((StatusWriter.Observer) metrics)
                .observedBy(kafkaClients)
                .observedBy(clusterMetrics)
                // A replica that no longer aggregates must not live on serving its probes: exit, and let the restart
                // (the pod's, in Kubernetes) rebuild its partitions, or hand them to the group's others.
                .onAggregationStopped(faultExit.onFault("a restart rebuilds the partitions"));
        running.add(pipeline);
        return pipeline;
    }

    /** The API server serves EKS Anywhere's and Cluster API's kinds, at the Cluster API version set. */
    private void checkServedResources(KubernetesClient client, ApiVersionChoice.Setting capiVersion) {
        ServedResources.Answer served = ServedResources.check(client, Pipeline.resourcesRead(),
                config.ingest().enabled() ? ObjectIngest.CAPI_KINDS : List.of(), capiVersion);
        if (!served.missing().isEmpty()) {
            LOG.errorf(
                    "the Kubernetes API at %s does not serve %s: run the aggregator against an EKS Anywhere management"
                        + " cluster (this version reads anywhere.eks.amazonaws.com/v1alpha1 and Cluster API's v1beta2"
                        + " or v1beta1); check the kubeconfig's context",
                    client.getConfiguration().getMasterUrl(), String.join(", ", served.missing()));
            throw new StartFailed(1);
        }
        if (!served.forced().isEmpty()) {
            LOG.errorf("%s at %s: set it to auto, or to a version served", String.join("; ", served.forced()),
                    client.getConfiguration().getMasterUrl());
            throw new StartFailed(1);
        }
    }

    /** Starts the pipeline, a SIGTERM meanwhile cutting its waits short; a failure said in one line. */
    private void startPipeline(Pipeline pipeline, Map<String, Object> kafka, boolean embedded,
            KubernetesClient client) {
        interruptible = true;
        try {
            pipeline.start(START_TIMEOUT);
        } catch (TimeoutException | ExecutionException | KafkaException | InterruptedException e) {
            checkpoint(); // interrupted by a SIGTERM, or failed after one: a stop, not a failure to report
            throw new StartFailed(StartFailure.explain(e, kafka, embedded, client, START_TIMEOUT));
        } finally {
            interruptible = false;
            Thread.interrupted(); // a SIGTERM just as the start returned: seen at the checkpoint after
        }
    }

    /** The started pipeline to its metrics, health and preflight checks, the fleet page and its cluster view. */
    private void servePipeline(Pipeline pipeline, PipelineMetrics metrics, Map<String, Object> kafka,
            KubernetesClient client) {
        metrics.bind(pipeline);
        runningPipeline.started(pipeline);
        running.add(runningPipeline::stopped);
        fleetPage.start(kafka, config.topics().statuses(), config.topics().transitions());
        running.add(fleetPage::stop);
        clusterView.start(new ClusterObjects(client, config.capiNamespace()));
        running.add(clusterView::stop);
    }

    /** The demo fleet's script and the live table, where they run. */
    private void startEmbeddedShow(ApiServer api, boolean embedded) {
        api.demo().ifPresent(FleetSimulator::start);
        if (config.table().enabled().orElse(embedded)) {
            LiveTable table = new LiveTable(api.client(), config.capiNamespace(), System.out,
                    config.table().interval());
            running.add(table);
            table.start();
        }
    }

    /** Runs until SIGTERM (Kubernetes stopping the pod) or a fault; {@link #call} then stops what started. */
    private int awaitStop(FaultExit faultExit) {
        // SIGTERM ends the wait, and the exit status is 0.
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
}
