package io.statusaggregator.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The PrometheusRule of {@code deploy/kubernetes/monitoring}, as {@code kubectl kustomize} builds it: its rule groups
 * (its {@code spec}, written to a rules file) pass {@code promtool check rules} and the unit tests of
 * {@code src/test/resources/prometheus/rules-test.yaml} ({@code promtool test rules}); every alert has a severity, a
 * summary, a description and a runbook section in docs/alerts.md, and a unit test. Without promtool (Debian's
 * {@code prometheus} package, which CI installs) these tests fail rather than skip.
 */
class PrometheusRulesTest {
    private static final Path MONITORING = Manifests.APPLICATION.resolve("monitoring");
    private static final Path UNIT_TESTS = Path.of("src/test/resources/prometheus/rules-test.yaml");
    private static final Path RUNBOOKS = Path.of("docs/alerts.md");

    private static JsonNode theRule() {
        List<JsonNode> documents = Manifests.build(MONITORING).documents();
        assertEquals(1, documents.size(), "one object: " + documents);
        return documents.get(0);
    }

    @Test
    void theRuleGroupsPassPromtoolsCheckAndUnitTests() throws Exception {
        String promtool = promtool();
        Path directory = Files.createTempDirectory("prometheus-rules");
        try {
            new YAMLMapper().writeValue(directory.resolve("rules.yaml").toFile(), theRule().path("spec"));
            Files.copy(UNIT_TESTS, directory.resolve("rules-test.yaml"));
            run(directory, promtool, "check", "rules", "rules.yaml");
            run(directory, promtool, "test", "rules", "rules-test.yaml");
        } finally {
            try (var files = Files.walk(directory)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void itIsAPrometheusRuleInTheApplicationsNamespaceAppliedApartFromTheApplication() {
        JsonNode rule = theRule();
        assertEquals("monitoring.coreos.com/v1", rule.path("apiVersion").asText());
        assertEquals("PrometheusRule", rule.path("kind").asText());
        Manifests application = Manifests.build(Manifests.APPLICATION);
        assertEquals(application.applicationNamespace(), Manifests.namespace(rule), "beside the application");
        assertEquals(0, application.documents().stream().filter(d -> d.path("apiVersion").asText().startsWith("monitoring.coreos.com/")).count(),
                "an API server without the Prometheus Operator's CRDs would refuse the application's kustomization");
    }

    @Test
    void everyAlertHasASeveritySummaryDescriptionARunbookSectionAndAUnitTest() throws IOException {
        String runbooks = Files.readString(RUNBOOKS, StandardCharsets.UTF_8);
        String unitTests = Files.readString(UNIT_TESTS, StandardCharsets.UTF_8);
        List<String> alerts = new ArrayList<>();
        for (JsonNode group : theRule().path("spec").path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                String alert = rule.path("alert").asText();
                alerts.add(alert);
                assertTrue(Set.of("warning", "critical").contains(rule.path("labels").path("severity").asText()), alert + ": severity");
                JsonNode annotations = rule.path("annotations");
                assertTrue(!annotations.path("summary").asText().isBlank() && !annotations.path("description").asText().isBlank(),
                        alert + ": summary and description");
                assertEquals("docs/alerts.md#" + alert.toLowerCase(Locale.ROOT), annotations.path("runbook").asText(), alert + ": runbook");
                assertTrue(runbooks.lines().anyMatch(line -> line.equals("### " + alert)), alert + ": no section \"### " + alert + "\" in " + RUNBOOKS);
                assertTrue(unitTests.contains("alertname: " + alert + "\n"), alert + ": not unit-tested in " + UNIT_TESTS);
            }
        }
        assertEquals(List.of("EksaClusterNotReady", "EksaClusterConditionError", "EksaClusterStatusStale",
                "EksaWorkloadClusterUnreachable", "StatusAggregatorDown",
                "StatusAggregatorReplicaDown", "StatusAggregatorLagging", "StatusAggregatorComputationFailing"), alerts);
    }

    /** promtool: system property or environment variable PROMTOOL, else on the PATH; missing fails the test. */
    private static String promtool() {
        Optional<String> configured = Optional.ofNullable(System.getProperty("promtool")).or(() -> Optional.ofNullable(System.getenv("PROMTOOL")));
        if (configured.isPresent()) {
            return configured.get();
        }
        List<Path> candidates = new ArrayList<>();
        for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "promtool"));
            }
        }
        candidates.add(Path.of("/usr/bin/promtool"));
        return candidates.stream().filter(Files::isExecutable).findFirst().map(Path::toString).orElseGet(() -> {
            fail("promtool not found on the PATH: these tests check the alert rules with `promtool test rules`. Install Debian's "
                    + "prometheus package (CI does: .ci/run), or point -Dpromtool= or PROMTOOL at it.");
            return null;
        });
    }

    private static void run(Path directory, String... command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("promtool", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail(String.join(" ", command) + " did not finish within 60 s");
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), () -> String.join(" ", command) + " failed:\n" + printed);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
