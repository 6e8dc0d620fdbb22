package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.embedded.EmbeddedKafka;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.EmbeddedMemory;
import io.statusaggregator.embedded.FleetSimulator;
import io.statusaggregator.embedded.StateDirectory;
import io.statusaggregator.model.CapiApiVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * {@code run}'s embedded default, started as a list of steps: its settings checked, the state directory prepared, a
 * Kafka broker and a Kubernetes API in this process, the demo fleet, and their addresses written for kubectl,
 * {@code watch} and {@code alerts}. Each part is stopped with the others ({@link StartedParts}); a refused setting
 * ends the start as {@link RunCommand} ends it.
 */
final class EmbeddedDefaultStart {
    /** {@code run}'s own lines: a user reads them as one start. */
    private static final Logger LOG = Logger.getLogger(RunCommand.class);

    private final AggregatorConfig config;
    private final StartedParts running;

    EmbeddedDefaultStart(AggregatorConfig config, StartedParts running) {
        this.config = config;
        this.running = running;
    }

    /** The embedded default: a Kafka broker, a Kubernetes API and the demo fleet in this process. */
    RunCommand.ApiServer start(Map<String, Object> kafka) throws Exception {
        CapiApiVersion simulated = checkEmbeddedCapiVersion();
        Path kubeconfigFile = prepareStateDirectory();
        LOG.info(EmbeddedMemory.keepSmall());
        LOG.info("starting the embedded default: a Kafka broker and a Kubernetes API in this process");
        EmbeddedKafka broker = startEmbeddedBroker(kafka);
        EmbeddedKubernetes api = startEmbeddedApi(simulated);
        KubernetesClient client = api.newClient();
        running.add(client);
        RunCommand.checkpoint();
        Optional<FleetSimulator> demo = config.embedded().simulate()
                ? Optional.of(createDemoFleet(client, simulated))
                : Optional.empty();
        writeLocalAddresses(broker, api, kubeconfigFile);
        RunCommand.checkpoint();
        return new RunCommand.ApiServer(client, demo);
    }

    private CapiApiVersion checkEmbeddedCapiVersion() {
        Optional<CapiApiVersion> simulated = CapiApiVersion.of(config.embedded().capiApiVersion());
        if (simulated.isEmpty() || config.embedded().capiApiVersion().contains("/")) {
            LOG.errorf("aggregator.embedded.capi-api-version must be v1beta2 or v1beta1, is %s",
                    config.embedded().capiApiVersion());
            throw new RunCommand.StartFailed(2);
        }
        return simulated.get();
    }

    /** The kubeconfig's directory, the state directory: the user's own and private, or refused. */
    private Path prepareStateDirectory() throws IOException {
        Path kubeconfigFile = Path.of(config.embedded().kubeconfig()).toAbsolutePath();
        Optional<String> refused = StateDirectory.prepare(kubeconfigFile.getParent());
        if (refused.isPresent()) {
            LOG.error(refused.get());
            throw new RunCommand.StartFailed(2);
        }
        return kubeconfigFile;
    }

    /** The in-process broker; {@code kafka}'s bootstrap servers become its address. */
    private EmbeddedKafka startEmbeddedBroker(Map<String, Object> kafka) throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.start();
        running.add(broker);
        RunCommand.checkpoint();
        kafka.put("bootstrap.servers", broker.bootstrapServers());
        return broker;
    }

    /** The in-process API server, serving the Cluster API versions of the simulated management cluster. */
    private EmbeddedKubernetes startEmbeddedApi(CapiApiVersion simulated) throws Exception {
        EmbeddedKubernetes api = EmbeddedKubernetes.start(config.embedded().apiPort(),
                FleetSimulator.capiVersionsServed(simulated));
        running.add(api);
        api.serveClusterStatus(config.embedded().clusterCrd());
        return api;
    }

    /** The demo fleet, its first cluster created; its script runs once the pipeline has started. */
    private FleetSimulator createDemoFleet(KubernetesClient client, CapiApiVersion simulated) {
        FleetSimulator simulator = new FleetSimulator(client, config.capiNamespace(), config.embedded().tick(),
                simulated);
        running.add(simulator);
        // Its first step creates the fleet's first cluster, alpha, before the kubeconfig is written: what
        // docs/running.md runs once it is (kubectl wait ... alpha) finds the cluster, never NotFound.
        simulator.step();
        RunCommand.checkpoint();
        return simulator;
    }

    /** The API server's kubeconfig and the broker's address in the state directory, for kubectl, watch and alerts. */
    private void writeLocalAddresses(EmbeddedKafka broker, EmbeddedKubernetes api, Path kubeconfigFile)
            throws Exception {
        Path kubeconfig = api.writeKubeconfig(kubeconfigFile);
        running.add(() -> Files.deleteIfExists(kubeconfig));
        // For watch and alerts on this machine: they find the embedded broker here when none is configured.
        Path bootstrap = EmbeddedKubernetes.writePrivately(
                kubeconfig.resolveSibling(KafkaSettings.EMBEDDED_BOOTSTRAP_FILE), broker.bootstrapServers());
        running.add(() -> Files.deleteIfExists(bootstrap));
        LOG.infof("embedded default: Kafka broker at %s, Kubernetes API at %s (kubeconfig %s)",
                broker.bootstrapServers(), api.url(), kubeconfig);
    }
}
