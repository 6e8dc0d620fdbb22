package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command line as a user meets it: {@code compute} of one cluster, {@code describe} of one cluster (against the
 * embedded API server, through a kubeconfig) and {@code upgrade-check --help}, each the packaged application in a
 * process of its own, timed from its start to its exit; a warm-up run, then the median of several. On the image's
 * runtime with an ahead-of-time cache trained as the image's build trains it (deploy/image/train-aot.sh), and on plain
 * JDK 17 for comparison.
 */
final class CommandLineFigures {
    /** The proposal's "Cluster is ready" example: one cluster and its objects. */
    static final Path ONE_CLUSTER = Path.of("src/test/resources/scenarios/examples/4-cluster-is-ready.yaml");
    static final Path APP = Path.of("target/quarkus-app");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A command's figures on one runtime: wall seconds, the median and the range. */
    record Timed(double median, double min, double max, int runs) {
    }

    private final int runs;
    private final Path work;

    CommandLineFigures(int runs) throws IOException {
        this.runs = runs;
        this.work = Files.createTempDirectory("bench-cli");
    }

    /** Each command's wall time on {@code java} with {@code options}, in the order compute, describe, upgrade-check. */
    Map<String, Timed> time(String java, List<String> options) throws Exception {
        JsonNode scenario = new YAMLMapper().readTree(ONE_CLUSTER.toFile());
        Path objects = work.resolve("one-cluster.yaml");
        ObjectNode list = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "List");
        list.set("items", scenario.path("objects"));
        Files.writeString(objects, new YAMLMapper().writeValueAsString(list));
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(work.resolve("kubeconfig"));
            for (JsonNode object : scenario.path("objects")) {
                create(api, object);
            }
            String cluster = scenario.path("objects").get(0).path("metadata").path("namespace").asText() + "/"
                    + scenario.path("objects").get(0).path("metadata").path("name").asText();
            Map<String, String> environment = Map.of("KUBECONFIG", kubeconfig.toString());
            Map<String, Timed> timed = new java.util.LinkedHashMap<>();
            timed.put("compute", time(java, options, environment, 0, "compute", objects.toString()));
            // No aggregator runs here: the Cluster shows no Ready condition, so describe answers with its tree and exit 1.
            timed.put("describe", time(java, options, environment, 1, "describe", cluster));
            timed.put("upgrade-check --help", time(java, options, environment, 0, "upgrade-check", "--help"));
            return timed;
        }
    }

    /** Created as a controller makes it: the object, then its status through the status subresource. */
    private static void create(EmbeddedKubernetes api, JsonNode object) throws IOException {
        ObjectKind kind = Arrays.stream(ObjectKind.values())
                .filter(k -> k.kind().equals(object.path("kind").asText()) && k.apiVersion().equals(object.path("apiVersion").asText()))
                .findFirst().orElseThrow(() -> new IllegalStateException("not a kind the rules read: " + object.path("kind")));
        ObjectNode withoutStatus = object.deepCopy();
        withoutStatus.remove("status");
        var resources = api.client().genericKubernetesResources(KubernetesResources.of(kind))
                .inNamespace(object.path("metadata").path("namespace").asText());
        GenericKubernetesResource created = resources.resource(JSON.treeToValue(withoutStatus, GenericKubernetesResource.class)).create();
        if (object.has("status")) {
            resources.resource(created).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                    JSON.createObjectNode().set("status", object.path("status")).toString());
        }
    }

    /** One command: a warm-up run, then {@code runs} timed ones; each must exit with {@code exitCode}. */
    private Timed time(String java, List<String> options, Map<String, String> environment, int exitCode, String... args)
            throws IOException, InterruptedException {
        List<Double> seconds = new ArrayList<>();
        for (int i = 0; i <= runs; i++) {
            List<String> command = new ArrayList<>(List.of(java));
            command.addAll(options);
            command.addAll(List.of("-jar", "quarkus-run.jar"));
            command.addAll(List.of(args));
            // From the application's directory, as the image starts it: the cache holds the class path as it was given.
            ProcessBuilder builder = new ProcessBuilder(command).directory(APP.toFile()).redirectOutput(work.resolve("out.txt").toFile())
                    .redirectError(work.resolve("err.txt").toFile());
            builder.environment().putAll(environment);
            long start = System.nanoTime();
            Process process = builder.start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", args) + " did not end within 60 s");
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            String told = Files.readString(work.resolve("out.txt")) + Files.readString(work.resolve("err.txt"));
            // The status a command exits with is part of its answer; a JVM's warning (a cache it could not use) fails it.
            if (process.exitValue() != exitCode || told.contains("[warning]")) {
                throw new IllegalStateException(String.join(" ", args) + " exited " + process.exitValue() + ": " + told);
            }
            if (i > 0) {
                seconds.add(elapsed);
            }
        }
        return new Timed(Bench.median(seconds), seconds.stream().mapToDouble(d -> d).min().orElse(0),
                seconds.stream().mapToDouble(d -> d).max().orElse(0), runs);
    }
}
