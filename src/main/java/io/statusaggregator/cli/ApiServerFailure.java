package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The one line a command prints when the Kubernetes API cannot be read: where it tried, why, and, when the cause is
 * the usual one (no kubeconfig where the user thinks there is one), that. Without a kubeconfig the client tries the
 * in-cluster address, whose unknown host alone tells a user nothing.
 */
final class ApiServerFailure {
    private static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

    private ApiServerFailure() {
    }

    static String describe(Object apiServer, KubernetesClientException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        String why;
        if (cause instanceof UnknownHostException) {
            why = "unknown host " + cause.getMessage();
        } else if (cause instanceof ConnectException) {
            why = "no answer (" + cause.getMessage() + ")";
        } else {
            why = String.valueOf(cause.getMessage());
        }
        return "cannot read from the Kubernetes API at " + apiServer + ": " + why + kubeconfigHint().orElse("");
    }

    /** {@link #kubeconfigHint(Map, Path, Path)} of this process: its environment, home and service account. */
    private static Optional<String> kubeconfigHint() {
        return kubeconfigHint(
                System.getenv(), Path.of(System.getProperty("user.home"), ".kube", "config"), SERVICE_ACCOUNT_TOKEN);
    }

    /**
     * The line {@link #describe} makes when the Kubernetes API {@code client} talks to cannot be reached at all (no
     * answer, an unknown host); empty when it answers, whatever it answers. Asked once, without retries, for 5 s at
     * most.
     */
    static Optional<String> unreachable(KubernetesClient client) {
        Config config = new ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout(5_000)
                .withConnectionTimeout(5_000)
                .build();
        try (KubernetesClient probe = new KubernetesClientBuilder().withConfig(config).build()) {
            probe.getKubernetesVersion();
            return Optional.empty();
        } catch (KubernetesClientException e) {
            return e.getCode() > 0
                    ? Optional.empty()
                    : Optional.of(describe(client.getConfiguration().getMasterUrl(), e));
        }
    }

    /**
     * Whether {@code client} was left with the in-cluster address because no kubeconfig was found where one was looked
     * for, outside a pod: an address that cannot answer there, so waiting for it helps nobody.
     */
    static boolean noKubeconfigOutsideACluster(KubernetesClient client) {
        String master = client.getConfiguration().getMasterUrl();
        return master != null
                && master.replaceAll("/+$", "").equals(Config.DEFAULT_MASTER_URL)
                && kubeconfigHint().isPresent();
    }

    /** What is wrong with where the kubeconfig was looked for, if something is. */
    static Optional<String> kubeconfigHint(
            Map<String, String> environment, Path defaultKubeconfig, Path serviceAccountToken) {
        String named = environment.get("KUBECONFIG");
        if (named != null && !named.isBlank()) {
            Optional<String> missing = Arrays.stream(named.split(File.pathSeparator))
                    .filter(f -> !f.isBlank() && !Files.exists(Path.of(f)))
                    .findFirst();
            return missing.map(f -> " (KUBECONFIG names " + f + ", which does not exist)");
        }
        if (!Files.exists(defaultKubeconfig) && !Files.exists(serviceAccountToken)) {
            return Optional.of(" (no kubeconfig: KUBECONFIG is not set and " + defaultKubeconfig + " does not exist)");
        }
        return Optional.empty();
    }
}
