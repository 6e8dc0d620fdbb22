package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A user's mistakes, made with the packaged application in a process of its own: each is told in one line that names
 * what is wrong, with the exit status the help promises, never a stack trace, Java's class names or the whole usage.
 */
class CommandMistakesJarIT {
    /** Nothing listens there: a command that got past its checks would wait for it. */
    private static final String NO_BROKER = "127.0.0.1:9";

    private static JarProcess.Finished run(Map<String, String> environment, String... args) throws Exception {
        return JarProcess.run(List.of(), environment, new byte[0], args);
    }

    /** Exit status {@code code}, and what the command printed (both streams: {@code run} tells through its log) says {@code what}. */
    private static void toldInOneLine(JarProcess.Finished finished, int code, String what) {
        String told = finished.out() + finished.err();
        assertEquals(code, finished.exitCode(), told);
        assertTrue(told.contains(what), "names the mistake (" + what + "): " + told);
        assertFalse(told.contains("\tat ") || told.contains("Exception") || told.contains("java."), "no stack trace or Java class: " + told);
        assertFalse(told.contains("Usage:"), "not the whole usage: " + told);
    }

    @Test
    void aKafkaSettingTheClientsWouldRefuseIsNamedByEveryCommandThatReadsKafka() throws Exception {
        Map<String, String> badAddress = Map.of("KAFKA_BOOTSTRAP_SERVERS", "not-a-host:bad");
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", "not-a-host:bad", "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "KUBECONFIG", "/nonexistent"), "run"), 2, "\"not-a-host:bad\" is not one");
        toldInOneLine(run(badAddress, "watch", "default/alpha"), 2, "\"not-a-host:bad\" is not one");
        toldInOneLine(run(badAddress, "alerts", "--alertmanager", "http://127.0.0.1:9093"), 2, "\"not-a-host:bad\" is not one");
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER, "KAFKA_MAX_POLL_RECORDS", "abc"), "watch", "default/alpha"), 2,
                "Invalid value abc for configuration max.poll.records");
    }

    @Test
    void aReviewRateOfNothingIsRefused() throws Exception {
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER, "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "KUBECONFIG", "/nonexistent", "AGGREGATOR_ACCESS_TOKEN_REVIEWS_PER_SECOND", "0"), "run"), 2,
                "aggregator.access.token-reviews-per-second must be at least 1, is 0");
    }

    /** A Cluster API version the simulated management cluster cannot be: refused before anything starts. */
    @Test
    void anEmbeddedCapiVersionNotKnownIsRefused() throws Exception {
        Path state = Files.createTempDirectory("capi-version-state");
        toldInOneLine(run(Map.of("QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "AGGREGATOR_EMBEDDED_KUBECONFIG", state.resolve("kubeconfig").toString(),
                "AGGREGATOR_EMBEDDED_CAPI_API_VERSION", "v1beta3"), "run"), 2,
                "aggregator.embedded.capi-api-version must be v1beta2 or v1beta1, is v1beta3");
        assertFalse(Files.exists(state.resolve("kubeconfig")), "nothing started");
    }

    /** A setting of an earlier release, which would now be ignored and let the aggregator write statuses: refused. */
    @Test
    void theSettingThatTurnedWriteBackOffIsRefusedNamingItsSuccessor() throws Exception {
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER, "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "KUBECONFIG", "/nonexistent", "AGGREGATOR_WRITE_ENABLED", "false"), "run"), 2,
                "aggregator.write.enabled (AGGREGATOR_WRITE_ENABLED) is no longer a setting: set aggregator.status.writer to eksa");
    }

    /**
     * The embedded default's state directory (where its kubeconfig goes) that others may write: refused before anything
     * starts, and nothing written into it; the same directory made private is used.
     */
    @Test
    void aStateDirectoryOthersMayWriteIsRefused() throws Exception {
        Path shared = Files.createTempDirectory("shared-state");
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, String> embedded = Map.of("QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0",
                "AGGREGATOR_EMBEDDED_KUBECONFIG", shared.resolve("kubeconfig").toString());
        JarProcess.Finished refused = run(embedded, "run");
        toldInOneLine(refused, 2, "the embedded default's state directory " + shared + " may be written by others (rwxrwxrwx): "
                + "chmod 700 " + shared + ", or set aggregator.embedded.kubeconfig (AGGREGATOR_EMBEDDED_KUBECONFIG)");
        assertEquals(1, refused.err().lines().filter(line -> line.contains("ERROR")).count(), refused.err());
        assertFalse(refused.err().contains("Kafka broker at"), "refused before the broker starts: " + refused.err());
        try (var left = Files.list(shared)) {
            assertEquals(List.of(), left.toList());
        }
    }

    /** Credentials in the Alertmanager's URL would be in every line naming it, and are not sent: refused, not echoed. */
    @Test
    void anAlertmanagerUrlWithCredentialsIsRefusedWithoutThem() throws Exception {
        JarProcess.Finished told = run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER), "alerts", "--alertmanager", "http://ops:s3cret@127.0.0.1:9093");
        toldInOneLine(told, 2, "the Alertmanager URL carries credentials (user:password@), which are not used");
        assertFalse((told.out() + told.err()).contains("s3cret"), told.err());
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER), "alerts", "--alertmanager", "ftp://x"), 2,
                "the Alertmanager is an http:// or https:// URL, got \"ftp://x\"");
    }

    @Test
    void aConditionThatDoesNotExistIsRefusedBeforeWaitingForIt() throws Exception {
        toldInOneLine(run(Map.of("KAFKA_BOOTSTRAP_SERVERS", NO_BROKER), "watch", "default/alpha", "--until", "Bogus"), 2,
                "--until takes one of ControlPlaneInitialized, ControlPlaneReady, WorkersReady, DefaultCNIConfigured, Ready, got \"Bogus\"");
    }

    @Test
    void computesMistakesAreToldInTheUsersWords() throws Exception {
        JarProcess.Finished date = run(Map.of(), "compute", ComputeCommandTest.FLEET, "--now", "2026-11-22");
        toldInOneLine(date, 2, "takes an RFC 3339 time like 2026-11-22T10:00:00Z, got '2026-11-22'");
        assertTrue(date.err().contains("Try 'status-aggregator compute --help' for more."), date.err());

        toldInOneLine(run(Map.of(), "compute", ComputeCommandTest.FLEET, "--capi-namespace", "Bad_NS"), 2,
                "--capi-namespace: namespace \"Bad_NS\" is not a Kubernetes namespace");

        Path binary = Files.createTempFile("binary", ".yaml");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xe9, 'a', ':', ' ', (byte) 0xe9, '\n'});
        toldInOneLine(run(Map.of(), "compute", binary.toString()), 2, "not valid YAML: not UTF-8 text at line 1");
    }

    /**
     * A command that runs without Quarkus still tells its failure in one line on standard error (Quarkus' entry point
     * holds log records back until Quarkus configures logging, which such a command never starts).
     */
    @Test
    void aKubeconfigThatCannotBeReadIsToldByACommandThatRunsWithoutQuarkus() throws Exception {
        Path kubeconfig = Files.createTempFile("kubeconfig", ".yaml");
        Files.writeString(kubeconfig, "this: [is not\n");
        JarProcess.Finished told = run(Map.of("KUBECONFIG", kubeconfig.toString()), "describe", "default/alpha");
        assertEquals(1, told.exitCode(), told.err());
        assertTrue(told.err().startsWith("error: describe failed: "), told.err());
        assertEquals(1, told.err().lines().count(), told.err());
    }

    @Test
    void aKubeconfigThatIsNotThereIsSaidSo() throws Exception {
        toldInOneLine(run(Map.of("KUBECONFIG", "/nonexistent/kubeconfig"), "describe", "default/alpha"), 1,
                "(KUBECONFIG names /nonexistent/kubeconfig, which does not exist)");
    }
}
