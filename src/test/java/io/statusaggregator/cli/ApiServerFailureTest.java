package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a command adds to "cannot read from the Kubernetes API" when the kubeconfig is not where the user meant. */
class ApiServerFailureTest {
    @Test
    void aKubeconfigThatIsNotThereIsNamed() throws Exception {
        Path home = Files.createTempDirectory("home");
        Path config = Files.writeString(home.resolve("config"), "apiVersion: v1\n");
        Path missing = home.resolve("nowhere");
        Path token = home.resolve("token");

        assertEquals(Optional.of(" (KUBECONFIG names " + missing + ", which does not exist)"),
                ApiServerFailure.kubeconfigHint(Map.of("KUBECONFIG", missing.toString()), config, token));
        assertEquals(Optional.of(" (KUBECONFIG names " + missing + ", which does not exist)"),
                ApiServerFailure.kubeconfigHint(Map.of("KUBECONFIG", config + ":" + missing), config, token), "the first missing of a list");
        assertEquals(Optional.empty(), ApiServerFailure.kubeconfigHint(Map.of("KUBECONFIG", config.toString()), missing, token));
        assertEquals(Optional.empty(), ApiServerFailure.kubeconfigHint(Map.of(), config, token), "the default kubeconfig is there");

        assertEquals(Optional.of(" (no kubeconfig: KUBECONFIG is not set and " + missing + " does not exist)"),
                ApiServerFailure.kubeconfigHint(Map.of(), missing, token));
        Files.writeString(token, "t");
        assertEquals(Optional.empty(), ApiServerFailure.kubeconfigHint(Map.of(), missing, token), "in a pod: its service account");
    }
}
