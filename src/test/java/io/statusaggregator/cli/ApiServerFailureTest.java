package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ServerSocket;

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

    @Test
    void anApiServerThatDoesNotAnswerIsToldFromOneThatRefuses() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort(); // free once closed: nothing listens there
        }
        try (KubernetesClient nowhere = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + closed).withRequestRetryBackoffLimit(3).build()).build()) {
            Optional<String> told = ApiServerFailure.unreachable(nowhere);
            assertTrue(told.isPresent() && told.get().startsWith("cannot read from the Kubernetes API at http://127.0.0.1:" + closed), told.toString());
        }
        // Serving nothing at all (every path 404) is still an answer: the start goes on, and says what is not served.
        KubernetesMockServer api = new KubernetesMockServer(false);
        api.init();
        try (KubernetesClient answering = api.createClient()) {
            assertEquals(Optional.empty(), ApiServerFailure.unreachable(answering));
        } finally {
            api.destroy();
        }
    }
}
