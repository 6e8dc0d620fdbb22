package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.jboss.logging.Logger;

/**
 * Why {@code run}'s pipeline did not start, said in one line without a stack trace, and the exit status it ends
 * with: 2 for an invalid Kafka setting, 1 for credentials refused or a broker or API server that did not answer.
 * Kafka's own messages never carry a password.
 */
final class StartFailure {
    /** {@code run}'s lines, under its logger. */
    private static final Logger LOG = Logger.getLogger(RunCommand.class);

    private StartFailure() {
    }

    /** Logs why the start failed with {@code failure}; returns the exit status. */
    static int explain(Exception failure, Map<String, Object> kafka, boolean embedded, KubernetesClient client,
            Duration timeout) {
        Throwable cause = failure instanceof ExecutionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
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
        if (!embedded) {
            // Which of the two did not answer: the API server can be asked again now.
            String kafkaDidNot = "Kafka at %s did not answer in time (%s), while the Kubernetes API at %s does. "
                            .formatted(
                                    kafka.get("bootstrap.servers"),
                                    cause.getClass().getSimpleName(),
                                    client.getConfiguration().getMasterUrl())
                    + "Check kafka.bootstrap.servers and the network.";
            LOG.errorf("could not start within %s: %s", DurationText.format(timeout),
                    ApiServerFailure.unreachable(client).orElse(kafkaDidNot));
            return 1;
        }
        LOG.errorf(
                "could not start within %s: Kafka at %s or the Kubernetes API at %s did not answer (%s). "
                        + "Check kafka.bootstrap.servers, the kubeconfig or in-cluster account, and the network.",
                DurationText.format(timeout),
                kafka.get("bootstrap.servers"),
                client.getConfiguration().getMasterUrl(),
                cause.getClass().getSimpleName());
        return 1;
    }
}
