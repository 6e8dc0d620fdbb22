package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's run command: the packaged application without arguments runs the embedded default (in-process
 * broker, API server and demo fleet) and its table shows every cluster of the fleet Ready; it listens on loopback only
 * and its kubeconfig is the user's only; SIGTERM stops it cleanly, removing what it wrote for the other commands.
 */
class RunJarIT {
    private static final List<String> FLEET = List.of("default/alpha", "default/bravo", "default/charlie", "default/delta");

    @Test
    void theEmbeddedDefaultBringsTheDemoFleetToReady() throws Exception {
        Path err = Files.createTempFile("run", ".err");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                "target/quarkus-app/quarkus-run.jar")
                .redirectError(err.toFile());
        // Free ports rather than the defaults 8080 and 9000, which something else on the machine may hold; the log names them.
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", "0");
        Path embedded = Files.createTempDirectory("embedded");
        Path kubeconfig = embedded.resolve("kubeconfig");
        builder.environment().put("AGGREGATOR_EMBEDDED_KUBECONFIG", kubeconfig.toString());
        Process process = builder.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            List<String> table = new ArrayList<>();
            boolean allReady = false;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while (!allReady && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                    if (line.isBlank()) {
                        allReady = FLEET.stream().allMatch(name -> table.stream()
                                .anyMatch(row -> row.startsWith(name + " ") && row.split("\\s+")[3].equals("True")));
                        table.clear();
                    } else {
                        table.add(line);
                    }
                }
            }
            assertTrue(allReady, "the table never showed the whole fleet Ready; stderr:\n" + Files.readString(err));
            // The preflight endpoints answer on the port the log names.
            java.util.regex.Matcher port = java.util.regex.Pattern.compile("HTTP endpoints on HTTP port (\\d+)").matcher(Files.readString(err));
            assertTrue(port.find(), "no HTTP endpoints logged; stderr:\n" + Files.readString(err));
            var check = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port.group(1) + "/upgrade-check/default/alpha")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, check.statusCode(), check.body());
            assertTrue(check.body().contains("\"cluster\":\"default/alpha\""), check.body());

            // What it leaves for the commands beside it is this user's only, and nothing listens beyond loopback.
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(kubeconfig)));
            assertTrue(Files.exists(embedded.resolve("bootstrap-servers")));
            String log = Files.readString(err);
            List<Integer> ports = new ArrayList<>();
            for (String pattern : List.of("HTTP endpoints on HTTP port (\\d+)", "management interface, port (\\d+)", "Kafka broker at localhost:(\\d+)")) {
                java.util.regex.Matcher found = java.util.regex.Pattern.compile(pattern).matcher(log);
                assertTrue(found.find(), pattern + " in\n" + log);
                ports.add(Integer.parseInt(found.group(1)));
            }
            java.util.Optional<java.net.InetAddress> outside = java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                    .filter(i -> { try { return i.isUp() && !i.isLoopback(); } catch (java.net.SocketException e) { return false; } })
                    .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
                    .filter(address -> address instanceof java.net.Inet4Address).findFirst();
            if (outside.isPresent()) {
                for (int listening : ports) {
                    try (java.net.Socket socket = new java.net.Socket()) {
                        socket.connect(new java.net.InetSocketAddress(outside.get(), listening), 2_000);
                        throw new AssertionError("port " + listening + " answers on " + outside.get() + ", not only on loopback");
                    } catch (java.net.ConnectException expected) {
                        // Refused: it listens on loopback only.
                    }
                }
            } else {
                System.out.println("RunJarIT: no address but loopback on this machine; the listeners' addresses are not checked");
            }
        } finally {
            process.destroy(); // SIGTERM, as Ctrl-C or Kubernetes would stop it
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the application did not stop within 30 s of SIGTERM");
        }
        // A JVM stopped by SIGTERM exits with 143 (128 + 15) once its shutdown hooks have run.
        assertTrue(process.exitValue() == 0 || process.exitValue() == 143, "exit code " + process.exitValue() + "\n" + Files.readString(err));
        // Stopped gracefully: the files for the commands beside it are gone with it.
        assertTrue(!Files.exists(kubeconfig) && !Files.exists(embedded.resolve("bootstrap-servers")), "left behind in " + embedded);
    }
}
