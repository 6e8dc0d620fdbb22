package io.statusaggregator.cli;

import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.Quarkus;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.alerts.AlertBridge;
import io.statusaggregator.model.KubernetesNames;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.AuthenticationException;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Dependent
@Unremovable
@Command(
        name = "alerts",
        mixinStandardHelpOptions = true,
        header = "Post alerts to Alertmanager from the transitions feed.",
        description = {
            "Posts alerts to a Prometheus Alertmanager (API v2): ClusterNotReady when a cluster's Ready has been "
                    + "False for --not-ready-for, ClusterConditionError at once for a condition with severity "
                    + "Error; resolved when the cluster recovers or is deleted. Runs until stopped.",
            "",
            "Reads kafka.bootstrap.servers (or the broker of an embedded default on this machine) and the other "
                    + "kafka.* properties, the topic aggregator.topics.transitions and its own consumer group "
                    + "aggregator.alerts.group-id. Offsets are committed only once Alertmanager has accepted "
                    + "the alerts.",
            "",
            "Exit status: 0 when stopped by SIGTERM (Ctrl-C: 130), 1 when the Kafka broker does not answer or refuses"
                + " the credentials, 2 on bad arguments or settings, or no broker to ask, 3 when the bridge stops on a"
                + " fault or Kafka refuses the credentials later: a restart takes up from the offsets committed."
        })
public class AlertsCommand implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(AlertsCommand.class);
    static final int UNREACHABLE = 1;
    static final int BAD_USE = 2;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    @Option(
            names = "--alertmanager",
            paramLabel = "URL",
            description =
                    "The Alertmanager, like http://alertmanager:9093 (default: aggregator.alerts.alertmanager-url).")
    String alertmanager;

    @Option(names = "--not-ready-for", paramLabel = "DURATION",
            description = "How long Ready may be False before ClusterNotReady fires, like 90s, 10m or 1h "
                    + "(default: aggregator.alerts.not-ready-for, 10m).")
    String notReadyFor;

    @Inject
    AggregatorConfig config;

    @Inject
    Config rawConfig;

    @Inject
    StartedParts stopping;

    @Override
    public Integer call() throws Exception {
        String url = alertmanager != null ? alertmanager : config.alerts().alertmanagerUrl().orElse(null);
        if (url == null || url.isBlank()) {
            System.err.println(
                    "error: no Alertmanager: give --alertmanager URL or set aggregator.alerts.alertmanager-url");
            return BAD_USE;
        }
        Optional<URI> uri = httpUrl(url);
        if (uri.isPresent() && uri.get().getRawUserInfo() != null) {
            // Not sent by the HTTP client, and it would be in every line that names the Alertmanager: not echoed
            // either.
            System.err.println(
                    "error: the Alertmanager URL carries credentials (user:password@), which are not used; give it"
                            + " without them");
            return BAD_USE;
        }
        if (uri.isEmpty()) {
            System.err.println(
                    "error: the Alertmanager is an http:// or https:// URL, got " + KubernetesNames.shown(url));
            return BAD_USE;
        }
        Optional<Duration> notReady = notReadyFor == null ? Optional.of(config.alerts().notReadyFor())
                : DurationText.parse(notReadyFor.strip()).filter(d -> !d.isNegative() && !d.isZero());
        if (notReady.isEmpty()) {
            System.err.println("error: --not-ready-for takes a positive duration like 90s, 10m or 1h, got \""
                    + notReadyFor + "\"");
            return BAD_USE;
        }
        Map<String, Object> kafka = KafkaSettings.orEmbedded(
                KafkaSettings.from(rawConfig),
                Path.of(config.embedded().kubeconfig()).getParent());
        Optional<String> noKafka = KafkaSettings.feedReaderProblem(kafka);
        if (noKafka.isPresent()) {
            System.err.println("error: " + noKafka.get() + (kafka.containsKey("bootstrap.servers") ? ""
                    : "; the alert bridge reads the transitions feed of a running aggregator"));
            return BAD_USE;
        }
        try (Admin admin = Admin.create(new HashMap<>(kafka))) {
            // Say so at once rather than retry forever in the loop: the usual cause is a wrong address.
            admin.describeCluster().nodes().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            if (e.getCause() instanceof AuthenticationException refused) {
                LOG.error(KafkaSettings.refusedCredentials(kafka, "the alert bridge's", refused));
                return UNREACHABLE;
            }
            LOG.errorf("Kafka at %s did not answer within %s (%s). Check kafka.bootstrap.servers and the network.",
                    kafka.get("bootstrap.servers"), DurationText.format(START_TIMEOUT),
                    e.getCause() == null ? e.getClass().getSimpleName() : e.getCause().getClass().getSimpleName());
            return UNREACHABLE;
        }
        AlertBridge.Settings settings = new AlertBridge.Settings(
                kafka,
                config.topics().transitions(),
                config.alerts().groupId(),
                uri.get(),
                notReady.get(),
                config.alerts().resendInterval(),
                config.alerts().evaluationInterval());
        FaultExit faultExit = new FaultExit();
        AlertBridge bridge = new AlertBridge(settings, Clock.systemUTC())
                .onStopped(faultExit.onFault("a restart takes up from the offsets committed"));
        // Closed below, or in Quarkus' shutdown on Ctrl-C, which does not wait for this thread.
        stopping.add(bridge);
        try {
            bridge.start();
            // SIGTERM ends the wait; the bridge is closed below (its last commit, the group left) and the exit status
            // is 0.
            StopSignal.onSigterm(Quarkus::asyncExit);
            LOG.info("alert bridge running; SIGTERM or Ctrl-C stops it");
            Quarkus.waitForExit();
        } finally {
            stopping.closeAll();
        }
        return faultExit.status(0);
    }

    private static Optional<URI> httpUrl(String url) {
        try {
            URI uri = new URI(url.strip());
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            return http && uri.getHost() != null ? Optional.of(uri) : Optional.empty();
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }
}
