package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.Kubectl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * docs/running.md's kubectl commands against the packaged embedded default, run by the real kubectl the moment its
 * kubeconfig appears: {@code kubectl wait --for=condition=Ready .../alpha} finds alpha (the fleet's first cluster
 * exists before the kubeconfig is written; it used to fail NotFound for the first seconds) and follows it to Ready
 * through its watch, with nothing on standard error; a cluster the demo creates later is waited for with
 * {@code --for=create} first.
 */
class KubectlWaitJarIT {
    private static final String CLUSTERS = "clusters.anywhere.eks.amazonaws.com";

    @Test
    void theDocumentedKubectlWaitWorksAsSoonAsTheKubeconfigIsWritten() throws Exception {
        Path embedded = Files.createTempDirectory("embedded");
        Path kubeconfig = embedded.resolve("kubeconfig");
        Path out = embedded.resolve("run.out");
        Path err = embedded.resolve("run.err");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                "target/quarkus-app/quarkus-run.jar")
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        // Free ports, and a kubeconfig of its own: another embedded default may run on this machine.
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", "0");
        builder.environment().put("AGGREGATOR_EMBEDDED_KUBECONFIG", kubeconfig.toString());
        Process process = builder.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.exists(kubeconfig) && process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.exists(kubeconfig), "no kubeconfig within 120 s; stderr:\n" + Files.readString(err));

            Kubectl.Result alpha = Kubectl.run(kubeconfig, Duration.ofSeconds(90), "wait", "--for=condition=Ready", CLUSTERS + "/alpha",
                    "--timeout=60s");
            assertEquals(0, alpha.exit(), () -> alpha + "\nrun's stderr:\n" + read(err));
            assertEquals("cluster.anywhere.eks.amazonaws.com/alpha condition met", alpha.out().strip(), alpha::toString);
            assertEquals("", alpha.err().strip(), () -> "nothing on kubectl's standard error: " + alpha);

            Kubectl.Result created = Kubectl.run(kubeconfig, Duration.ofSeconds(90), "wait", "--for=create", CLUSTERS + "/delta", "--timeout=60s");
            assertEquals(0, created.exit(), created::toString);
            Kubectl.Result delta = Kubectl.run(kubeconfig, Duration.ofSeconds(90), "wait", "--for=condition=Ready", CLUSTERS + "/delta",
                    "--timeout=60s");
            assertEquals(0, delta.exit(), delta::toString);
            assertEquals("", created.err().strip() + delta.err().strip(), () -> "nothing on kubectl's standard error: " + created + delta);
        } finally {
            process.destroy();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the application did not stop within 30 s of SIGTERM");
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
