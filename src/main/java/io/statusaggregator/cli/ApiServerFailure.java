package io.statusaggregator.cli;

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
        return "cannot read from the Kubernetes API at " + apiServer + ": " + why + kubeconfigHint(System.getenv(),
                Path.of(System.getProperty("user.home"), ".kube", "config"), SERVICE_ACCOUNT_TOKEN).orElse("");
    }

    /** What is wrong with where the kubeconfig was looked for, if something is. */
    static Optional<String> kubeconfigHint(Map<String, String> environment, Path defaultKubeconfig, Path serviceAccountToken) {
        String named = environment.get("KUBECONFIG");
        if (named != null && !named.isBlank()) {
            Optional<String> missing = Arrays.stream(named.split(File.pathSeparator)).filter(f -> !f.isBlank() && !Files.exists(Path.of(f)))
                    .findFirst();
            return missing.map(f -> " (KUBECONFIG names " + f + ", which does not exist)");
        }
        if (!Files.exists(defaultKubeconfig) && !Files.exists(serviceAccountToken)) {
            return Optional.of(" (no kubeconfig: KUBECONFIG is not set and " + defaultKubeconfig + " does not exist)");
        }
        return Optional.empty();
    }
}
